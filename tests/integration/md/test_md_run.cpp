// MD runs end to end through md::runCase: output files, restart from H5MD, clean stop on a blow-up, bench JSON.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "CatchCompat.h"
#include "core/ExitCode.h"
#include "io/md/H5mdReader.h"
#include "io/md/MdCaseParser.h"
#include "solvers/md/MdBench.h"
#include "solvers/md/MdRun.h"
#include "solvers/md/MdSimulation.h"

using hopsim::io::CaseDocument;

namespace {
std::filesystem::path scratch(const std::string& name) {
  const auto p = std::filesystem::temp_directory_path() / "hopsim-md-run-test" / name;
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p;
}
std::string smallCase(const std::string& dir, double dt, long long steps) {
  return "solver: md\nprecision: double\nsystem: {lattice: {type: fcc, density: 0.8442, cells: [5, 5, 5]}}\n"
         "potential: {type: lj, cutoff: 2.5}\nneighbor: {skin: 0.3}\nvelocity: {temperature: 1.44, seed: 5}\n"
         "integrator: {type: nve, dt: " + std::to_string(dt) + "}\nrun: {steps: " + std::to_string(steps) +
         "}\nthermo: {every: 10}\noutput: {dir: " + dir + ", every: 50, formats: [h5md]}\ndevice: {backend: cpu}\n";
}
int countLines(const std::filesystem::path& p) {
  std::ifstream in(p);
  int n = 0;
  for (std::string l; std::getline(in, l);) ++n;
  return n;
}
}  // namespace

TEST_CASE("md run writes thermo.csv, an H5MD trajectory with XDMF, and run.json", "[integration][md]") {
  const auto dir = scratch("outputs");
  hopsim::RunOptions o;
  o.quiet = true;
  REQUIRE(hopsim::md::runCase(CaseDocument::fromString(smallCase(dir.string(), 0.005, 100), "case.yaml"), o) == 0);
  CHECK(countLines(dir / "thermo.csv") == 12);  // header + steps 0..100 every 10
  CHECK(std::filesystem::exists(dir / "trajectory.h5"));
  CHECK(std::filesystem::exists(dir / "trajectory.xmf"));
  CHECK(std::filesystem::exists(dir / "run.json"));
  CHECK(!std::filesystem::exists(dir / "trajectory.h5.part"));
  const auto frame = hopsim::io::md::readH5mdFrame((dir / "trajectory.h5").string());
  CHECK(frame.frames == 3);
  CHECK(frame.state.step == 100);
  CHECK(frame.state.size() == 500u);
}

TEST_CASE("md restart from an H5MD frame continues the trajectory", "[integration][md]") {
  const auto dir = scratch("restart");
  hopsim::RunOptions o;
  o.quiet = true;
  o.writeOutput = true;
  // One run of 100 steps, and the same run restarted from its frame at step 50.
  const auto full = hopsim::md::runMd(
      hopsim::io::md::parseMdCase(CaseDocument::fromString(smallCase(dir.string(), 0.005, 100), "a.yaml")), o);
  const std::string restart =
      "solver: md\nprecision: double\nsystem: {read: {h5md: " + (dir / "trajectory.h5").string() +
      ", frame: 1}}\npotential: {type: lj, cutoff: 2.5}\nneighbor: {skin: 0.3}\n"
      "integrator: {type: nve, dt: 0.005}\nrun: {steps: 50}\nthermo: {every: 10}\ndevice: {backend: cpu}\n";
  o.writeOutput = false;
  const auto cont = hopsim::md::runMd(hopsim::io::md::parseMdCase(CaseDocument::fromString(restart, "b.yaml")), o);
  REQUIRE(cont.thermo.front().step == 50);
  REQUIRE(cont.thermo.back().step == 100);
  // Only the order of force sums differs: agreement far below the thermo's own fluctuations.
  CHECK(cont.thermo.back().etotal == Approx(full.thermo.back().etotal).epsilon(1e-9));
  CHECK(cont.thermo.back().press == Approx(full.thermo.back().press).epsilon(1e-8));
}

TEST_CASE("md run stops on a blow-up, keeping the good output", "[integration][md]") {
  const auto dir = scratch("blowup");
  hopsim::RunOptions o;
  o.quiet = true;
  // dt = 0.05 at T = 1.44 heats the liquid until energies overflow.
  const int rc = hopsim::md::runCase(CaseDocument::fromString(smallCase(dir.string(), 0.05, 5000), "case.yaml"), o);
  CHECK(rc == hopsim::kExitUnstable);  // 3, as an unstable LBM run
  CHECK(std::filesystem::exists(dir / "thermo.csv"));
  CHECK(std::filesystem::exists(dir / "trajectory.h5"));
  std::ifstream json(dir / "run.json");
  const std::string text((std::istreambuf_iterator<char>(json)), std::istreambuf_iterator<char>());
  CHECK(text.find("\"status\": \"unstable\"") != std::string::npos);
  const auto last = hopsim::io::md::readH5mdFrame((dir / "trajectory.h5").string());
  for (std::size_t i = 0; i < last.state.size(); ++i) REQUIRE(std::isfinite(last.state.x[i]));
}

TEST_CASE("md bench returns throughput and a phase breakdown", "[integration][md]") {
  const auto doc = CaseDocument::fromString(smallCase("unused", 0.005, 20), "bench.yaml");
  hopsim::RunOptions o;
  o.quiet = true;
  hopsim::md::BenchOptions b;
  b.steps = 20;
  b.repeats = 3;
  b.copyBytes = std::size_t(32) << 20;
  const auto doc0 = hopsim::md::bench(doc, o, b);
  INFO(doc0.dump(2));
  CHECK(doc0["copy_bandwidth"]["median_gbs"].get<double>() > 0);  // the host's, measured in the same process
  REQUIRE(doc0["runs"].size() == 1);
  const auto& j = doc0["runs"][0];
  CHECK(j["id"] == "md/bench/double/cpu/500");
  CHECK(j["atoms"] == 500);
  // 500 atoms per step: ms per step = 1e3 * 500 / (atom-steps/s), so the shortest time goes with the highest rate
  // and, with an odd number of repeats, median with median.
  CHECK(j["step_time_ms"]["min"].get<double>() ==
        Approx(1e3 * 500 / j["atom_steps_per_second"]["max"].get<double>()).epsilon(1e-9));
  CHECK(j["step_time_ms"]["median"].get<double>() ==
        Approx(1e3 * 500 / j["atom_steps_per_second"]["median"].get<double>()).epsilon(1e-9));
  CHECK(j["atom_steps_per_second"]["median"].get<double>() > 0);
  CHECK(j["ms_per_step"]["force"].get<double>() > 0);
  CHECK(j["precision"] == "double");
}
