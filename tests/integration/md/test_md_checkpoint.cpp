// Checkpoint and restart of MD runs: a run continued from a checkpoint ends in the uninterrupted run's atoms bitwise,
// with its thermo.csv and trajectory (each thermostat; after a clean stop, a SIGUSR1 or a kill -9); checkpoints that
// do not fit the case are refused with exit 2 naming the difference; run.json carries the build and host.
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "BackgroundRun.h"
#include "CatchCompat.h"
#include "FileText.h"
#include "CommandRun.h"
#include "ScratchDir.h"
#include "io/CaseReader.h"
#include "io/Checkpoint.h"
#include "io/md/H5mdReader.h"
#include "io/md/MdCaseParser.h"
#include "solvers/md/InitialState.h"
#include "solvers/md/MdSimulation.h"

namespace fs = std::filesystem;
using hopsim::io::CaseDocument;

using hopsim::testing::fileText;

namespace {

// 256 atoms of LJ liquid, thermo every 10 steps, a frame every 50, a checkpoint every 50.
std::string ljCase(const std::string& integrator, long long steps, const std::string& precision = "mixed") {
  return "solver: md\nprecision: " + precision +
         "\nsystem: {lattice: {type: fcc, density: 0.8442, cells: [4, 4, 4]}}\n"
         "potential: {type: lj, cutoff: 2.5}\nneighbor: {skin: 0.3}\nvelocity: {temperature: 1.44, seed: 5}\n"
         "integrator: " + integrator + "\nrun: {steps: " + std::to_string(steps) +
         "}\nthermo: {every: 10}\noutput: {dir: unused, every: 50, formats: [h5md], checkpoint: {every: 50}}\n"
         "device: {backend: cpu}\n";
}

hopsim::md::MdRunResult run(const std::string& yaml, const fs::path& out, const std::string& restart = "") {
  const CaseDocument doc = CaseDocument::fromString(yaml, "case.yaml");
  hopsim::RunOptions o;
  o.quiet = true;
  o.outputDir = out.string();
  o.restart = restart;
  return hopsim::md::runMd(hopsim::io::md::parseMdCase(doc), o, doc.toJson());
}

void checkSameAtoms(const hopsim::md::ParticleState& a, const hopsim::md::ParticleState& b) {
  REQUIRE(a.size() > 0);
  REQUIRE(a.size() == b.size());
  CHECK(a.step == b.step);
  CHECK((a.id == b.id));
  CHECK((a.x == b.x));
  CHECK((a.y == b.y));
  CHECK((a.z == b.z));
  CHECK((a.vx == b.vx));
  CHECK((a.vy == b.vy));
  CHECK((a.vz == b.vz));
}

// The steps in a thermo.csv, in file order.
std::vector<long long> csvSteps(const fs::path& p) {
  std::vector<long long> steps;
  std::istringstream in(fileText(p));
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) steps.push_back(std::stoll(line.substr(0, line.find(','))));
  return steps;
}

std::vector<long long> checkpointSteps(const fs::path& dir) {
  std::vector<long long> steps;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("checkpoint_", 0) == 0 && name.find(".tmp-") == std::string::npos)
      steps.push_back(std::stoll(name.substr(11)));
  }
  std::sort(steps.begin(), steps.end());
  return steps;
}

// The steps of the frames of a trajectory.
std::vector<long long> frameSteps(const fs::path& h5) {
  std::vector<long long> steps;
  const long long frames = hopsim::io::md::readH5mdFrame(h5.string()).frames;
  for (long long k = 0; k < frames; ++k) steps.push_back(hopsim::io::md::readH5mdFrame(h5.string(), k).state.step);
  return steps;
}

}  // namespace

TEST_CASE("an MD run continued from a checkpoint equals the uninterrupted run bitwise, for each thermostat",
          "[integration][md][checkpoint]") {
  const std::string integrator = GENERATE(std::string("{type: nve, dt: 0.005}"),
                                          std::string("{type: langevin, dt: 0.005, temperature: 1.2, damping: 0.5, "
                                                      "seed: 11}"),
                                          std::string("{type: nose_hoover, dt: 0.005, temperature: 1.2, tau: 0.5}"));
  INFO(integrator);
  ScratchDir dir("md_checkpoint_continue");
  const fs::path whole = dir.path() / "whole", parts = dir.path() / "parts";
  const auto a = run(ljCase(integrator, 100), whole);
  REQUIRE(a.ok);
  REQUIRE(a.stats.neighborBuilds >= 5);  // the checkpoint falls between list builds, as a rule
  CHECK(checkpointSteps(whole) == std::vector<long long>{50, 100});  // the last two kept

  REQUIRE(run(ljCase(integrator, 50), parts).ok);
  const auto b = run(ljCase(integrator, 100), parts, parts.string());
  REQUIRE(b.ok);
  REQUIRE(b.thermo.front().step == 60);  // the checkpoint's own row came from the first half
  checkSameAtoms(a.final, b.final);
  CHECK(fileText(whole / "thermo.csv") == fileText(parts / "thermo.csv"));
  std::vector<long long> expected;
  for (long long s = 0; s <= 100; s += 10) expected.push_back(s);
  CHECK(csvSteps(parts / "thermo.csv") == expected);
  CHECK(frameSteps(parts / "trajectory.h5") == std::vector<long long>{0, 50, 100});
  CHECK(fileText(whole / "trajectory.xmf") == fileText(parts / "trajectory.xmf"));
  const nlohmann::json j = nlohmann::json::parse(fileText(parts / "run.json"));
  CHECK(j["restarted_from_step"] == 50);
  CHECK(j["last_step"] == 100);
  CHECK_FALSE(fs::exists(parts / "thermo.csv.part"));
  CHECK_FALSE(fs::exists(parts / "trajectory.h5.part"));
}

TEST_CASE("single precision MD continues bitwise from a checkpoint", "[integration][md][checkpoint]") {
  ScratchDir dir("md_checkpoint_single");
  const fs::path whole = dir.path() / "whole", parts = dir.path() / "parts";
  const std::string nve = "{type: nve, dt: 0.005}";
  const auto a = run(ljCase(nve, 100, "single"), whole);
  REQUIRE(run(ljCase(nve, 50, "single"), parts).ok);
  const auto b = run(ljCase(nve, 100, "single"), parts, parts.string());
  checkSameAtoms(a.final, b.final);
  CHECK(fileText(whole / "thermo.csv") == fileText(parts / "thermo.csv"));
}

TEST_CASE("an MD restart sets aside a trajectory HDF5 cannot reopen and starts a new one", "[integration][md][checkpoint]") {
  ScratchDir dir("md_checkpoint_bad_trajectory");
  const std::string nve = "{type: nve, dt: 0.005}";
  REQUIRE(run(ljCase(nve, 50), dir.path()).ok);
  // What a kill in the middle of an HDF5 write can leave.
  fs::remove(dir.path() / "trajectory.h5");
  std::ofstream(dir.path() / "trajectory.h5.part") << "not HDF5";
  const auto b = run(ljCase(nve, 100), dir.path(), dir.path().string());
  REQUIRE(b.ok);
  CHECK(fileText(dir.path() / "trajectory.unreadable-50.h5") == "not HDF5");
  CHECK(frameSteps(dir.path() / "trajectory.h5") == std::vector<long long>{100});
  CHECK(csvSteps(dir.path() / "thermo.csv").back() == 100);
}

TEST_CASE("MD run.json carries the build, host and device provenance", "[integration][md]") {
  ScratchDir dir("md_run_json");
  REQUIRE(run(ljCase("{type: nve, dt: 0.005}", 10), dir.path()).ok);
  const nlohmann::json j = nlohmann::json::parse(fileText(dir.path() / "run.json"));
  CHECK(j["build"]["git_commit"].is_string());
  CHECK(j["build"]["version"].is_string());
  CHECK(j["build"]["compiler"].is_string());
  CHECK(j["host"]["hostname"].is_string());
  CHECK(j["host"]["cpu_model"].is_string());
  CHECK(j["devices"].is_array());
}

namespace {

std::string source(const std::string& rel) { return std::string(HOPSIM_SOURCE_DIR) + "/" + rel; }

// lj_liquid.yaml made small (256 atoms) and cheap to stop anywhere: thermo every 5 steps, a checkpoint every 50.
std::string liquid(const fs::path& out, long long steps, const std::string& more = "") {
  return "run " + source("inputs/md/lj_liquid.yaml") +
         " --set 'system.lattice.cells=[4,4,4]' --set thermo.every=5 --set output.every=100"
         " --set 'output.formats=[h5md]' --set output.checkpoint.every=50 --set device.backend=cpu --set run.steps=" +
         std::to_string(steps) + " --output " + out.string() + more;
}

CommandResult runQuiet(const std::string& args) { return runHopsim(args + " --quiet"); }

// The atoms of a checkpoint (rank 0's part) as blocks, to compare bitwise.
std::vector<std::vector<std::byte>> atomsOf(const fs::path& dir, long long step) {
  const auto part =
      hopsim::io::readCheckpointPart(hopsim::io::checkpointPartFile(hopsim::io::checkpointFolder(dir, step), 0));
  std::vector<std::vector<std::byte>> blocks;
  for (const char* name : {"x", "y", "z", "vx", "vy", "vz", "fx", "fy", "fz", "id", "sums"})
    blocks.push_back(part.block(name));
  return blocks;
}

}  // namespace

TEST_CASE("an MD run killed with SIGKILL continues from its last checkpoint to the uninterrupted state",
          "[integration][md][checkpoint][fault]") {
  ScratchDir dir("md_checkpoint_kill");
  const fs::path killed = dir.path() / "killed", whole = dir.path() / "whole";
  fs::create_directories(dir.path());
  // Killed once a few checkpoints are written: the kill falls anywhere in a step, a row, a frame or a checkpoint.
  Child child(liquid(killed, 2000000000) + " --quiet", dir.path() / "log");
  REQUIRE(waitFor([&] {
    return fs::exists(killed) && !checkpointSteps(killed).empty() && checkpointSteps(killed).back() >= 150;
  }));
  child.signal(SIGKILL);
  REQUIRE(child.wait() == -SIGKILL);
  const std::vector<long long> kept = checkpointSteps(killed);
  REQUIRE(!kept.empty());
  // Two kept, or three when the kill fell between a new one's rename into place and the oldest's out; each whole.
  CHECK(kept.size() <= 3);
  for (const long long step : kept) CHECK_NOTHROW(atomsOf(killed, step));

  const long long end = kept.back() + 100;
  REQUIRE(runQuiet(liquid(whole, end)).code == 0);
  const CommandResult r = runQuiet(liquid(killed, end, " --restart " + killed.string()));
  INFO(r.output);
  REQUIRE(r.code == 0);
  CHECK((atomsOf(whole, end) == atomsOf(killed, end)));
  CHECK(fileText(whole / "thermo.csv") == fileText(killed / "thermo.csv"));
  CHECK_FALSE(fs::exists(killed / "thermo.csv.part"));
  CHECK_FALSE(fs::exists(killed / "hopsim.lock"));
  // The trajectory goes on to the end (frames kept up to the checkpoint; a file HDF5 could not reopen set aside).
  CHECK(hopsim::io::md::readH5mdFrame((killed / "trajectory.h5").string()).state.step == end);
}

TEST_CASE("SIGUSR1 checkpoints an MD run and exits 75, and the run continues from it bitwise",
          "[integration][md][checkpoint][signals]") {
  ScratchDir dir("md_checkpoint_usr1");
  const fs::path stopped = dir.path() / "stopped", whole = dir.path() / "whole";
  fs::create_directories(dir.path());
  // Without output.checkpoint: SIGUSR1 checkpoints all the same.
  const std::string endless = "run " + source("inputs/md/lj_liquid.yaml") +
                              " --set 'system.lattice.cells=[4,4,4]' --set thermo.every=5 --set output.every=100"
                              " --set 'output.formats=[h5md]' --set device.backend=cpu --output ";
  Child child(endless + stopped.string() + " --set run.steps=2000000000", dir.path() / "log");
  const auto rows = [&] {
    const std::string csv = fileText(stopped / "thermo.csv.part");
    return std::count(csv.begin(), csv.end(), '\n');
  };
  REQUIRE(waitFor([&] { return rows() >= 20; }));
  child.signal(SIGUSR1);
  const int code = child.wait();
  INFO(child.log());
  REQUIRE(code == 75);
  CHECK(child.log().find("continue with --restart") != std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(fileText(stopped / "run.json"));
  CHECK(j["status"] == "interrupted");
  const long long step = j["last_step"].get<long long>();
  REQUIRE(checkpointSteps(stopped) == std::vector<long long>{step});

  // Continued to a step that is no thermo step, with a checkpoint at the end to compare.
  const long long end = step + 103;
  const std::string tail =
      " --set run.steps=" + std::to_string(end) + " --set output.checkpoint.every=" + std::to_string(end) + " --quiet";
  REQUIRE(runHopsim(endless + whole.string() + tail).code == 0);
  const CommandResult r = runHopsim(endless + stopped.string() + tail + " --restart " + stopped.string());
  INFO(r.output);
  REQUIRE(r.code == 0);
  CHECK((atomsOf(whole, end) == atomsOf(stopped, end)));
  CHECK(fileText(whole / "thermo.csv") == fileText(stopped / "thermo.csv"));
  CHECK(fileText(whole / "trajectory.xmf") == fileText(stopped / "trajectory.xmf"));
}

TEST_CASE("SIGTERM stops an MD run that sets output.checkpoint with a checkpoint of its last step, exit 143",
          "[integration][md][checkpoint][signals]") {
  ScratchDir dir("md_checkpoint_term");
  const fs::path out = dir.path() / "out";
  fs::create_directories(dir.path());
  Child child(liquid(out, 2000000000) + " --set output.checkpoint.every=100000", dir.path() / "log");
  const auto rows = [&] {
    const std::string csv = fileText(out / "thermo.csv.part");
    return std::count(csv.begin(), csv.end(), '\n');
  };
  REQUIRE(waitFor([&] { return rows() >= 10; }));
  child.signal(SIGTERM);
  const int code = child.wait();
  INFO(child.log());
  CHECK(code == 143);
  const nlohmann::json j = nlohmann::json::parse(fileText(out / "run.json"));
  CHECK(j["signal"] == "SIGTERM");
  CHECK(checkpointSteps(out) == std::vector<long long>{j["last_step"].get<long long>()});
  CHECK(j["last_checkpoint"] == hopsim::io::checkpointFolder(out, j["last_step"].get<long long>()).string());
}

TEST_CASE("MD output.checkpoint.wall_minutes writes checkpoints by wall time, the last two kept",
          "[integration][md][checkpoint]") {
  ScratchDir dir("md_checkpoint_wall");
  std::string yaml = ljCase("{type: nve, dt: 0.005}", 600);
  yaml.replace(yaml.find("checkpoint: {every: 50}"), 23, "checkpoint: {wall_minutes: 0.00005}");
  // 3 ms between checkpoints: one at nearly every chunk of steps (chunks end at the thermo steps, every 10).
  REQUIRE(run(yaml, dir.path()).ok);
  const auto steps = checkpointSteps(dir.path());
  REQUIRE(!steps.empty());
  CHECK(steps.size() <= 2);
  for (long long s : steps) CHECK(s % 10 == 0);
}

TEST_CASE("an MD checkpoint that does not fit the case is refused with exit 2 and changes nothing",
          "[integration][md][checkpoint]") {
  ScratchDir dir("md_checkpoint_refused");
  const fs::path out = dir.path() / "out";
  REQUIRE(runQuiet(liquid(out, 100)).code == 0);
  const std::string before = fileText(out / "thermo.csv");

  struct Change {
    std::string set, says;
  };
  for (const Change& change : {Change{"--set 'system.lattice.cells=[4,4,5]'", "atom count (system) is 256, this run's is 320"},
                               Change{"--set system.lattice.density=0.8", "box"},
                               Change{"--set potential.cutoff=2.4", "potential"},
                               Change{"--set precision=single", "its precision is \"double\", this run's is \"single\""},
                               Change{"--set mass=2.0", "mass"}})
    checkRefused(liquid(out, 200, " " + change.set + " --restart " + out.string()),
                 {"does not fit this case", change.says});
  // An LBM checkpoint given to an MD run, and the other way round.
  const fs::path lbm = dir.path() / "lbm";
  REQUIRE(runQuiet("run " + source("inputs/lbm/cavity3d.yaml") +
                   " --set 'domain.cells=[6,6,6]' --set output.checkpoint.every=10 --set run.steps=10 --output " +
                   lbm.string())
              .code == 0);
  checkRefused(liquid(out, 200, " --restart " + lbm.string()), {"lattice Boltzmann"});
  checkRefused("run " + source("inputs/lbm/cavity3d.yaml") + " --set 'domain.cells=[6,6,6]' --set run.steps=20"
               " --output " + lbm.string() + " --restart " + out.string(),
               {"solver"});

  CHECK(fileText(out / "thermo.csv") == before);
  CHECK(checkpointSteps(out) == std::vector<long long>{50, 100});
  // output.checkpoint is checked like every other key.
  checkRefused(liquid(out, 200, " --set output.checkpoint.every=0"), {"output.checkpoint.every"});
}

TEST_CASE("the MD GPU memory estimate refuses a case that does not fit, naming what it needs",
          "[unit][md]") {
  const CaseDocument doc = CaseDocument::fromString(ljCase("{type: nve, dt: 0.005}", 10), "case.yaml");
  const hopsim::md::MdCase c = hopsim::io::md::parseMdCase(doc);
  const double atoms = hopsim::md::atomsOnDevice(c, {1, 1, 1});
  CHECK(atoms == 256);
  const double need = hopsim::md::deviceBytes(c, atoms);
  // At least positions, velocities, forces and a 96-entry list per atom; at most a few kB per atom.
  CHECK(need > 256 * (96 * 4 + 9 * 8));
  CHECK(need < 256 * 4096.0);
  CHECK_NOTHROW(hopsim::md::checkDeviceMemory(c, atoms, 1, std::size_t(1) << 30));
  CHECK_NOTHROW(hopsim::md::checkDeviceMemory(c, atoms, 1, std::nullopt));
  try {
    hopsim::md::checkDeviceMemory(c, atoms, 2, static_cast<std::size_t>(need));
    FAIL("a case needing twice the free memory was accepted");
  } catch (const hopsim::InputError& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find("needs") != std::string::npos);
    CHECK(what.find("GiB of GPU memory") != std::string::npos);
    CHECK(what.find("available") != std::string::npos);
    CHECK(what.find("2 ranks on one GPU") != std::string::npos);
  }
  // A decomposed rank holds its share plus the ghosts of its widened sub-box.
  const double share = hopsim::md::atomsOnDevice(c, {2, 1, 1});
  CHECK(share > 128);
  CHECK(share < 256 * 5);  // a box this small is mostly ghosts
  // 16.4M atoms do not fit in 1 GiB.
  const hopsim::md::MdCase big = hopsim::io::md::parseMdCase(CaseDocument::fromString(
      "solver: md\nsystem: {lattice: {type: fcc, density: 0.8442, cells: [160, 160, 160]}}\n"
      "potential: {type: lj, cutoff: 2.5}\nintegrator: {type: nve, dt: 0.005}\nrun: {steps: 1}\n", "big.yaml"));
  CHECK_THROWS_AS(hopsim::md::checkDeviceMemory(big, hopsim::md::atomsOnDevice(big, {1, 1, 1}), 1,
                                                std::size_t(1) << 30),
                  hopsim::InputError);
}

TEST_CASE("a CPU MD engine restored from its saved state reports the same sums and continues bitwise", "[unit][md]") {
  for (const char* precision : {"single", "mixed", "double"}) {
    INFO(precision);
    const hopsim::md::MdCase c = hopsim::io::md::parseMdCase(CaseDocument::fromString(
        ljCase("{type: nose_hoover, dt: 0.005, temperature: 1.2, tau: 0.5}", 60, precision), "case.yaml"));
    const hopsim::md::ParticleState start = hopsim::md::initialState(c);
    auto whole = hopsim::md::makeCpuEngine(hopsim::md::engineConfig(c));
    whole->initialize(start);
    whole->advance(30, 0);
    hopsim::md::EngineState state;
    whole->saveState(state);
    auto restored = hopsim::md::makeCpuEngine(hopsim::md::engineConfig(c));
    restored->restoreState(state);
    const hopsim::md::RawThermo a = whole->thermo(), b = restored->thermo();
    CHECK(a.potential == b.potential);
    CHECK(a.virial == b.virial);
    CHECK(a.twoKinetic == b.twoKinetic);
    CHECK(b.finite);
    whole->advance(30, 30);
    restored->advance(30, 30);
    hopsim::md::ParticleState x, y;
    whole->download(x);
    restored->download(y);
    x.step = y.step = 60;
    checkSameAtoms(x, y);
    CHECK(whole->thermo().virial == restored->thermo().virial);
  }
}
