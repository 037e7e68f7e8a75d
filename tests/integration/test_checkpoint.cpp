// Checkpoint and restart of LBM runs through the binary: a continued run equals an uninterrupted one bitwise
// (populations, series, field index), after a clean stop, a SIGUSR1 or a kill -9; checkpoints that do not fit the
// case are refused with exit 2 and change nothing.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "CatchCompat.h"
#include "FileText.h"
#include "CommandRun.h"
#include "ScratchDir.h"
#include "io/Checkpoint.h"

extern char** environ;

namespace fs = std::filesystem;

using hopsim::testing::fileText;

namespace {

std::string source(const std::string& rel) { return std::string(HOPSIM_SOURCE_DIR) + "/" + rel; }

CommandResult runQuiet(const std::string& args) { return runHopsim(args + " --quiet"); }

// The steps of the checkpoint folders in dir, ascending.
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

std::vector<std::byte> populations(const fs::path& dir, long long step) {
  return hopsim::io::readCheckpointPart(hopsim::io::checkpointPartFile(hopsim::io::checkpointFolder(dir, step), 0))
      .block("populations");
}

// The cylinder case, small: inlet, outlet, walls, an obstacle with forces; fields, observables and forces series.
std::string cylinder(const fs::path& out, long long steps, const std::string& more = "") {
  return "run " + source("inputs/lbm/cylinder2d.yaml") + " --set 'domain.cells=[80,30]'" +
         " --set 'obstacles=[{name: cyl, shape: circle, center: [20, 15.5], radius: 4}]'" +
         " --set output.every=100 --set output.observables.every=50 --set output.forces.every=25" +
         " --set output.checkpoint.every=100 --set run.steps=" + std::to_string(steps) + " --output " + out.string() +
         more;
}

// Checks that the run in `continued` ended in the state and files of the uninterrupted run in `whole` at `step`.
void checkSameRun(const fs::path& whole, const fs::path& continued, long long step) {
  const auto a = populations(whole, step), b = populations(continued, step);
  CHECK(a.size() > 0);
  CHECK((a == b));
  for (const char* file : {"observables.csv", "forces.csv", "fields.xmf"}) {
    INFO(file);
    if (fs::exists(whole / file) || fs::exists(continued / file)) CHECK(fileText(whole / file) == fileText(continued / file));
  }
  CHECK(fileText(whole / hopsim::io::checkpointFolder("", step).string() / "r00000.h5").size() > 0);
}

}  // namespace

TEST_CASE("an LBM run continued from a checkpoint equals the uninterrupted run bitwise", "[integration][checkpoint]") {
  ScratchDir dir("checkpoint_continue");
  const fs::path whole = dir.path() / "whole", parts = dir.path() / "parts";
  REQUIRE(runQuiet(cylinder(whole, 500)).code == 0);
  // The last two are kept.
  CHECK(checkpointSteps(whole) == std::vector<long long>{400, 500});

  REQUIRE(runQuiet(cylinder(parts, 200)).code == 0);
  const CommandResult r = runQuiet(cylinder(parts, 500, " --restart " + parts.string()));
  INFO(r.output);
  REQUIRE(r.code == 0);
  checkSameRun(whole, parts, 500);
  const nlohmann::json run = nlohmann::json::parse(fileText(parts / "run.json"));
  CHECK(run["restarted_from_step"] == 200);
  CHECK(run["steps"] == 500);
  // The field files of both halves are in the series ParaView opens.
  for (long long s : {0, 100, 200, 300, 400, 500})
    CHECK(fileText(parts / "fields.xmf").find(fmt::format("fields_{:09d}.h5", s)) != std::string::npos);
}

TEST_CASE("a run killed with SIGKILL continues from its last checkpoint to the uninterrupted state",
          "[integration][checkpoint][fault]") {
  ScratchDir dir("checkpoint_kill");
  const fs::path killed = dir.path() / "killed", whole = dir.path() / "whole";
  fs::create_directories(dir.path());
  // Started in the background, killed once a few checkpoints are written: the kill falls anywhere in a step, a
  // series row or a checkpoint being written.
  pid_t pid = 0;
  const std::string command = "exec " + std::string(HOPSIM_BINARY) + " " + cylinder(killed, 2000000000) +
                              " --quiet >" + (dir.path() / "log").string() + " 2>&1";
  const char* argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
  REQUIRE(posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ) == 0);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < until &&
         (!fs::exists(killed) || checkpointSteps(killed).empty() || checkpointSteps(killed).back() < 300))
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  REQUIRE(WIFSIGNALED(status));
  const std::vector<long long> kept = checkpointSteps(killed);
  REQUIRE(!kept.empty());
  // Two kept, or three when the kill fell between a new one's rename into place and the oldest's out; each whole.
  CHECK(kept.size() <= 3);
  for (const long long step : kept) CHECK_NOTHROW(populations(killed, step));
  CHECK(fs::exists(killed / "hopsim.lock"));  // stale now; the restart takes it over

  const long long end = kept.back() + 250;
  REQUIRE(runQuiet(cylinder(whole, end)).code == 0);
  const CommandResult r = runQuiet(cylinder(killed, end, " --restart " + killed.string()));
  INFO(r.output);
  REQUIRE(r.code == 0);
  // Both runs end at `end` with a checkpoint there only where `end` is a multiple of 100: compare the last common one.
  checkSameRun(whole, killed, (end / 100) * 100);
  CHECK_FALSE(fs::exists(killed / "observables.csv.part"));
  CHECK_FALSE(fs::exists(killed / "hopsim.lock"));
}

TEST_CASE("SIGUSR1 writes a checkpoint and exits 75, and the run continues from it bitwise",
          "[integration][checkpoint][signals]") {
  ScratchDir dir("checkpoint_usr1");
  const fs::path stopped = dir.path() / "stopped", whole = dir.path() / "whole";
  fs::create_directories(dir.path());
  // No output.checkpoint: SIGUSR1 checkpoints all the same.
  const std::string args = "run " + source("inputs/lbm/poiseuille2d.yaml") +
                           " --set output.observables.every=20 --set output.every=500 --output ";
  pid_t pid = 0;
  const std::string command = "exec " + std::string(HOPSIM_BINARY) + " " + args + stopped.string() +
                              " --set run.steps=2000000000 >" + (dir.path() / "log").string() + " 2>&1";
  const char* argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
  REQUIRE(posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ) == 0);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  const auto rows = [&] {
    const std::string csv = fileText(stopped / "observables.csv.part");
    return std::count(csv.begin(), csv.end(), '\n');
  };
  while (std::chrono::steady_clock::now() < until && rows() < 6)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ::kill(pid, SIGUSR1);
  int status = 0;
  ::waitpid(pid, &status, 0);
  INFO(fileText(dir.path() / "log"));
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 75);
  const nlohmann::json run = nlohmann::json::parse(fileText(stopped / "run.json"));
  CHECK(run["status"] == "interrupted");
  const long long step = run["steps"].get<long long>();
  CHECK(checkpointSteps(stopped) == std::vector<long long>{step});

  // Continue to a step that is no checkpoint step, with one written at the end to compare.
  const long long end = step + 731;  // odd: the arrays of a two-lattice backend swap roles
  const std::string tail = " --set run.steps=" + std::to_string(end) + " --set output.checkpoint.every=" +
                           std::to_string(end);
  REQUIRE(runQuiet(args + whole.string() + tail).code == 0);
  const CommandResult r = runQuiet(args + stopped.string() + tail + " --restart " + stopped.string());
  INFO(r.output);
  REQUIRE(r.code == 0);
  checkSameRun(whole, stopped, end);
}

TEST_CASE("a checkpoint that does not fit the case is refused with exit 2 and changes nothing",
          "[integration][checkpoint]") {
  ScratchDir dir("checkpoint_refused");
  const fs::path out = dir.path() / "out";
  REQUIRE(runQuiet(cylinder(out, 200)).code == 0);
  const std::string before = fileText(out / "observables.csv");

  struct Change {
    std::string set, says;
  };
  for (const Change& change : {Change{"--set 'domain.cells=[80,32]'", "domain.cells"},
                               Change{"--set precision=double", "precision"},
                               Change{"--set 'obstacles=[{name: cyl, shape: circle, center: [20, 15.5], radius: 5}]'",
                                      "obstacles"}})
    checkRefused(cylinder(out, 400, " " + change.set + " --restart " + out.string()),
                 {"does not fit this case", change.says});
  // Another lattice of the same grid (3D: D2Q9 is the only 2D lattice).
  const std::string cavity = "run " + source("inputs/lbm/cavity3d.yaml") +
                             " --set 'domain.cells=[6,6,6]' --set output.checkpoint.every=10 --output " +
                             (dir.path() / "cavity").string();
  REQUIRE(runQuiet(cavity + " --set run.steps=10").code == 0);
  checkRefused(cavity + " --set run.steps=20 --set lattice=D3Q27 --restart " + (dir.path() / "cavity").string(),
               {"its lattice is \"D3Q19\", this run's is \"D3Q27\""});

  // Not a checkpoint at all, and nothing to restart from.
  std::ofstream(dir.path() / "junk.h5") << "not HDF5";
  fs::create_directories(dir.path() / "checkpoint_000000000007");
  std::ofstream(dir.path() / "checkpoint_000000000007" / "r00000.h5") << "not HDF5";
  checkRefused(cylinder(out, 400, " --restart " + (dir.path() / "checkpoint_000000000007").string()),
               {"not an HDF5 file"});
  checkRefused(cylinder(out, 400, " --restart " + (dir.path() / "nothing").string()), {"no such checkpoint"});
  CHECK(fileText(out / "observables.csv") == before);
  CHECK(checkpointSteps(out) == std::vector<long long>{100, 200});

  // output.checkpoint is checked like every other key.
  checkRefused(cylinder(out, 400, " --set output.checkpoint.every=0"), {"output.checkpoint.every"});
  checkRefused(cylinder(out, 400, " --set output.checkpoint.evry=5"), {"evry"});
}

TEST_CASE("output.checkpoint.wall_minutes writes checkpoints by wall time, the last two kept",
          "[integration][checkpoint]") {
  ScratchDir dir("checkpoint_wall");
  const fs::path out = dir.path() / "out";
  // 0.0002 minutes: a checkpoint at nearly every chunk of steps (about 0.25 s of work each, ending at any step).
  const CommandResult r = runQuiet("run " + source("inputs/lbm/poiseuille2d.yaml") +
                             " --set run.steps=6000 --set output.checkpoint.wall_minutes=0.0002 --output " +
                             out.string());
  INFO(r.output);
  REQUIRE(r.code == 0);
  const auto steps = checkpointSteps(out);
  REQUIRE(!steps.empty());
  CHECK(steps.size() <= 2);
  const nlohmann::json run = nlohmann::json::parse(fileText(out / "run.json"));
  CHECK(run["last_checkpoint"] == hopsim::io::checkpointFolder(out, steps.back()).string());
}
