// The hopsim binary as a user meets it: exit codes, located errors, output files, every example case.
#include <fmt/format.h>
#include <hdf5.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <sys/wait.h>
#include <vector>

#include <nlohmann/json.hpp>

#include "CatchCompat.h"
#include "CommandRun.h"

namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path p = fs::temp_directory_path() / ("hopsim_cli_" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

std::string source(const std::string& rel) { return std::string(HOPSIM_SOURCE_DIR) + "/" + rel; }

}  // namespace

TEST_CASE("a case error is reported as file:line:col with exit code 2 and nothing is written", "[integration]") {
  const fs::path dir = scratch("bad");
  {
    std::ofstream f(dir / "bad.yaml");
    f << "solver: lbm\nlattice: D2Q9\ndomain: {cells: [32, 16], periodic: [x]}\nfluid: {tau: 0.5}\n"
         "boundaries:\n  y-: {type: wall}\n  y+: {type: wall}\nrun: {steps: 10}\n";
  }
  const CommandResult r = runHopsim("run " + (dir / "bad.yaml").string() + " --output " + (dir / "out").string());
  CHECK(r.code == 2);
  CHECK(r.output.find("bad.yaml:4:14:") != std::string::npos);
  CHECK(r.output.find("0.5") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "out"));
}

TEST_CASE("missing and binary case files are clear errors", "[integration]") {
  const fs::path dir = scratch("files");
  CommandResult r = runHopsim("run " + (dir / "nope.yaml").string());
  CHECK(r.code == 2);
  CHECK(r.output.find("cannot open") != std::string::npos);
  {
    std::ofstream f(dir / "bin.yaml", std::ios::binary);
    f.write("\x7f" "ELF\0\0\1", 7);
  }
  r = runHopsim("run " + (dir / "bin.yaml").string());
  CHECK(r.code == 2);
  CHECK(r.output.find("binary") != std::string::npos);
}

TEST_CASE("a bad --set override names the command line", "[integration]") {
  const CommandResult r = runHopsim("run " + source("inputs/lbm/poiseuille2d.yaml") + " --set run.steps=-3");
  CHECK(r.code == 2);
  CHECK(r.output.find("--set run.steps=-3") != std::string::npos);
}

TEST_CASE("a run writes fields, series, CSV files and run.json, and no temporary files", "[integration]") {
  const fs::path out = scratch("run") / "out";
  const CommandResult r = runHopsim("run " + source("inputs/lbm/cylinder2d.yaml") +
                          " --set run.steps=300 --set output.every=100 --output " + out.string());
  INFO(r.output);
  REQUIRE(r.code == 0);
  for (const char* f : {"fields.xmf", "fields_000000000.h5", "fields_000000300.h5", "observables.csv", "forces.csv",
                        "run.json"})
    CHECK(fs::exists(out / f));
  for (const auto& e : fs::directory_iterator(out)) {
    const std::string name = e.path().filename().string();
    CHECK(name.find(".tmp-") == std::string::npos);
    CHECK(name.find(".part") == std::string::npos);
  }
  std::ifstream js(out / "run.json");
  const auto run = nlohmann::json::parse(js);
  CHECK(run["steps"] == 300);
  CHECK(run["status"] == "completed");
  CHECK(run["case"]["lattice"] == "D2Q9");
  // forces.csv: header plus one row per 100 steps for the one obstacle
  std::ifstream fc(out / "forces.csv");
  std::string line;
  int lines = 0;
  while (std::getline(fc, line)) ++lines;
  CHECK(lines == 1 + 3);
  CHECK(r.output.find("MLUPS") != std::string::npos);
  CHECK(r.output.find("Reynolds") != std::string::npos);
}

TEST_CASE("every example LBM case runs as shipped (shortened)", "[integration]") {
  for (const auto& e : fs::directory_iterator(source("inputs/lbm"))) {
    if (e.path().extension() != ".yaml") continue;
    const fs::path out = scratch("example") / e.path().stem();
    const CommandResult r =
        runHopsim("run " + e.path().string() + " --quiet --set run.steps=20 --output " + out.string());
    INFO(e.path().string() << "\n" << r.output);
    CHECK(r.code == 0);
    CHECK(fs::exists(out / "run.json"));
    CHECK(fs::exists(out / "view.py"));  // every LBM output folder has its ParaView script
  }
}

TEST_CASE("validate lists cases and rejects unknown names", "[integration]") {
  CommandResult r = runHopsim("validate --list");
  CHECK(r.code == 0);
  CHECK(r.output.find("lbm.poiseuille2d") != std::string::npos);
  r = runHopsim("validate lbm.nonexistent");
  CHECK(r.code == 2);
}

TEST_CASE("info reports the build", "[integration]") {
  const CommandResult r = runHopsim("info");
  CHECK(r.code == 0);
  CHECK(r.output.find("hopsim") != std::string::npos);
  CHECK(r.output.find("CUDA") != std::string::npos);
  // A binary in its build folder reads validation/ and inputs/ from the source tree (installed: share/hopsim, which
  // the deb_package test checks).
  CHECK(r.output.find("data:   " + std::string(HOPSIM_SOURCE_DIR) + "\n") != std::string::npos);
}

TEST_CASE("every command exits by one table: 0 done, 2 bad input (CLI11's errors too), 3 unstable", "[integration]") {
  const fs::path dir = scratch("exit_codes");
  CHECK(runHopsim("--help").code == 0);
  CHECK(runHopsim("--version").code == 0);
  // Command-line errors that CLI11 catches (it would exit 105-109 on its own).
  CommandResult r = runHopsim("run --no-such-option " + source("inputs/lbm/poiseuille2d.yaml"));
  CHECK(r.code == 2);
  CHECK(r.output.find("--no-such-option") != std::string::npos);
  CHECK(runHopsim("run").code == 2);
  CHECK(runHopsim("frobnicate").code == 2);
  r = runHopsim("run " + source("inputs/lbm/poiseuille2d.yaml") + " --backend foo");
  CHECK(r.code == 2);
  CHECK(r.output.find("foo") != std::string::npos);
  CHECK(runHopsim("bench --repeats 0").code == 2);

  // The Hopper MD force path (the example case asks for it) on the cpu backend is refused, not ignored; an MD bench
  // given two kernel variants is refused too (it would measure one).
  r = runHopsim("run " + source("inputs/md/lj_liquid_hopper.yaml") + " --backend cpu --set run.steps=1 --output " +
                (dir / "md_hopper").string());
  CHECK(r.code == 2);
  CHECK(r.output.find("needs the cuda backend") != std::string::npos);
  r = runHopsim("bench " + source("inputs/md/lj_liquid.yaml") + " --kernels portable,hopper --steps 1 --repeats 1");
  CHECK(r.code == 2);
  CHECK(r.output.find("--kernels takes one variant for an MD case") != std::string::npos);
  r = runHopsim("bench " + source("inputs/md/lj_liquid.yaml") + " --layouts in-place --steps 1 --repeats 1");
  CHECK(r.code == 2);
  CHECK(r.output.find("--layouts") != std::string::npos);

  // A lid-driven cavity at Reynolds number 1.4e5 on 32^2 cells (tau 0.5001) blows up within a few hundred steps:
  // exit 3, as an unstable MD run.
  {
    std::ofstream f(dir / "unstable.yaml");
    f << "solver: lbm\nlattice: D2Q9\nprecision: double\ndomain: {cells: [32, 32]}\nfluid: {tau: 0.5001}\n"
         "boundaries:\n  x-: {type: wall}\n  x+: {type: wall}\n  y-: {type: wall}\n"
         "  y+: {type: moving_wall, velocity: [0.15, 0]}\nrun: {steps: 2000}\n"
         "output: {every: 0, fields: [density], formats: [hdf5]}\ndevice: {backend: cpu}\n";
  }
  r = runHopsim("run " + (dir / "unstable.yaml").string() + " --quiet --output " + (dir / "lbm_out").string());
  INFO(r.output);
  CHECK(r.code == 3);
  CHECK(r.output.find("unstable") != std::string::npos);
}

TEST_CASE("an LBM run that blows up exits 3 before garbage reaches the fields, naming the criterion", "[integration]") {
  // The unstable cavity of the exit-code test, with fields and observables every 100 steps: its densities run away
  // (|rho| ~ 1e26 by step 200) before they turn NaN, and no fields may be written from such a state.
  const fs::path dir = scratch("lbm_blowup");
  {
    std::ofstream f(dir / "unstable.yaml");
    f << "solver: lbm\nlattice: D2Q9\nprecision: double\ndomain: {cells: [32, 32]}\nfluid: {tau: 0.5001}\n"
         "boundaries:\n  x-: {type: wall}\n  x+: {type: wall}\n  y-: {type: wall}\n"
         "  y+: {type: moving_wall, velocity: [0.15, 0]}\nrun: {steps: 2000}\n"
         "output: {every: 100, observables: {every: 100}, fields: [density], formats: [hdf5]}\n"
         "device: {backend: cpu}\n";
  }
  const fs::path out = dir / "out";
  const CommandResult r = runHopsim("run " + (dir / "unstable.yaml").string() + " --quiet --output " + out.string());
  INFO(r.output);
  REQUIRE(r.code == 3);
  CHECK(r.output.find("error: the simulation became unstable by step ") != std::string::npos);
  const bool named = r.output.find("left the band 0.5 .. 2") != std::string::npos ||
                     r.output.find("exceeds the lattice speed of sound 1/sqrt(3)") != std::string::npos ||
                     r.output.find("kinetic energy") != std::string::npos;
  CHECK(named);

  // The last fields written: every density finite and inside the band.
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(out))
    if (e.path().extension() == ".h5" && e.path().filename().string().rfind("fields_", 0) == 0) files.push_back(e.path());
  REQUIRE(!files.empty());
  const fs::path last = *std::max_element(files.begin(), files.end());
  INFO("last fields: " << last);
  CHECK(r.output.find(fmt::format("the last good fields are from step {}", std::stoll(last.stem().string().substr(7)))) !=
        std::string::npos);
  const hid_t file = H5Fopen(last.string().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(file >= 0);
  const hid_t ds = H5Dopen2(file, "/density", H5P_DEFAULT);
  REQUIRE(ds >= 0);
  std::vector<double> rho(32 * 32);
  REQUIRE(H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, rho.data()) >= 0);
  H5Dclose(ds);
  H5Fclose(file);
  const auto [lo, hi] = std::minmax_element(rho.begin(), rho.end());
  INFO("density " << *lo << " .. " << *hi);
  CHECK(std::all_of(rho.begin(), rho.end(), [](double v) { return std::isfinite(v); }));
  CHECK(*lo >= 0.5);
  CHECK(*hi <= 2.0);
}

TEST_CASE("a domain whose obstacles together fill it is refused with exit 2", "[integration]") {
  // Neither box covers the domain alone (the parser's check); their union does, which the solver sees in the flags.
  const fs::path dir = scratch("all_solid");
  {
    std::ofstream f(dir / "solid.yaml");
    f << "solver: lbm\nlattice: D2Q9\ndomain: {cells: [16, 8], periodic: [x, y]}\nfluid: {tau: 0.8}\n"
         "run: {steps: 10}\ndevice: {backend: cpu}\nobstacles:\n"
         "  - {name: left, shape: box, min: [0, 0], max: [8, 8]}\n"
         "  - {name: right, shape: box, min: [8, 0], max: [16, 8]}\n";
  }
  const CommandResult r =
      runHopsim("run " + (dir / "solid.yaml").string() + " --quiet --output " + (dir / "out").string());
  INFO(r.output);
  CHECK(r.code == 2);
  CHECK(r.output.find("error: " + (dir / "solid.yaml").string() +
                      ": 'obstacles': every cell of the domain lies inside an obstacle ('left', 'right'): no fluid is "
                      "left to simulate") != std::string::npos);
  CHECK(!fs::exists(dir / "out" / "run.json"));
}
