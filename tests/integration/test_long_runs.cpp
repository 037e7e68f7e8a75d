// Runs that do not simply finish, as the binary meets them: stopped by signals, sharing an output directory with
// another run or a stale lock, failing to write. Each test starts hopsim as a child process.
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
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "BackgroundRun.h"
#include "CatchCompat.h"
#include "CommandRun.h"
#include "ScratchDir.h"

namespace fs = std::filesystem;

namespace {

std::string source(const std::string& rel) { return std::string(HOPSIM_SOURCE_DIR) + "/" + rel; }

// An LBM run that would take hours, with an observables row every 20 steps.
std::string endlessLbm(const fs::path& out) {
  return "run " + source("inputs/lbm/poiseuille2d.yaml") +
         " --set run.steps=2000000000 --set output.observables.every=20 --output " + out.string();
}

std::vector<std::string> lines(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::string> out;
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

bool rowsIn(const fs::path& csvPart, std::size_t n) { return lines(csvPart).size() >= n + 1; }

// The files of an output directory whose names say "not finished": CSV .part files, temporaries, the lock.
std::vector<std::string> leftovers(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.find(".part") != std::string::npos || name.find(".tmp-") != std::string::npos || name == "hopsim.lock")
      out.push_back(name);
  }
  return out;
}

// observables.csv is whole: the header, then rows of five cells at steps 0, every, 2 every, ... with none missing,
// repeated or cut. Returns the number of rows.
std::size_t checkObservables(const fs::path& csv, long long every) {
  const auto rows = lines(csv);
  REQUIRE(!rows.empty());
  CHECK(rows[0] == "step,mass,kinetic_energy,max_speed,dissipation_rate");
  for (std::size_t k = 1; k < rows.size(); ++k) {
    INFO("row " << k << ": " << rows[k]);
    CHECK(std::count(rows[k].begin(), rows[k].end(), ',') == 4);
    CHECK(std::stoll(rows[k].substr(0, rows[k].find(','))) == static_cast<long long>(k - 1) * every);
  }
  return rows.size() - 1;
}

nlohmann::json runJson(const fs::path& dir) {
  std::ifstream in(dir / "run.json");
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

}  // namespace

TEST_CASE("SIGTERM and SIGUSR1 stop an LBM run with whole series, run.json interrupted and their exit codes",
          "[integration][signals]") {
  const int signal = GENERATE(SIGTERM, SIGUSR1);
  const int expected = signal == SIGTERM ? 143 : 75;
  const std::string name = signal == SIGTERM ? "SIGTERM" : "SIGUSR1";
  ScratchDir dir("sigterm_lbm");
  const fs::path out = dir.path() / "out";
  fs::create_directories(dir.path());
  Child run(endlessLbm(out), dir.path() / "log");
  REQUIRE(waitFor([&] { return rowsIn(out / "observables.csv.part", 3); }));
  run.signal(signal);
  const int code = run.wait();
  INFO(run.log());
  CHECK(code == expected);
  CHECK(run.log().find(name + " received, stopped at step") != std::string::npos);
  CHECK(leftovers(out).empty());
  CHECK(checkObservables(out / "observables.csv", 20) >= 3);
  const nlohmann::json j = runJson(out);
  CHECK(j["status"] == "interrupted");
  CHECK(j["signal"] == name);
  // The steps run.json reports are those the series reached: the last row is the last observables step before it.
  CHECK(j["steps"].get<long long>() >= (static_cast<long long>(lines(out / "observables.csv").size()) - 2) * 20);
}

TEST_CASE("SIGINT and SIGUSR1 stop an MD run with a whole thermo.csv and H5MD file, exit 130 and 75",
          "[integration][signals]") {
  // SIGUSR1 checkpoints the run (test_md_checkpoint.cpp continues one) and exits 75, on which a batch script
  // requeues it; SIGINT writes none here (no output.checkpoint).
  const int signal = GENERATE(SIGINT, SIGUSR1);
  ScratchDir dir("sigint_md");
  const fs::path out = dir.path() / "out";
  fs::create_directories(dir.path());
  Child run("run " + source("inputs/md/lj_liquid.yaml") +
                " --set 'system.lattice.cells=[4,4,4]' --set run.steps=2000000000 --set thermo.every=5"
                " --set output.every=1000 --set 'output.formats=[h5md]' --output " + out.string(),
            dir.path() / "log");
  REQUIRE(waitFor([&] { return rowsIn(out / "thermo.csv.part", 3); }));
  run.signal(signal);
  const int code = run.wait();
  INFO(run.log());
  CHECK(code == (signal == SIGINT ? 130 : 75));
  CHECK(leftovers(out).empty());
  CHECK(fs::exists(out / "run.json"));
  const auto rows = lines(out / "thermo.csv");
  REQUIRE(rows.size() >= 4);
  for (std::size_t k = 1; k < rows.size(); ++k)
    CHECK(std::stoll(rows[k].substr(0, rows[k].find(','))) == static_cast<long long>(k - 1) * 5);
  CHECK(fs::exists(out / "trajectory.h5"));
  CHECK(runJson(out)["status"] == "interrupted");
  CHECK(runJson(out)["signal"] == (signal == SIGINT ? "SIGINT" : "SIGUSR1"));
}

TEST_CASE("a second SIGINT ends a run at once and leaves no partial file and no lock", "[integration][signals]") {
  ScratchDir dir("sigint_twice");
  const fs::path out = dir.path() / "out";
  fs::create_directories(dir.path());
  Child run(endlessLbm(out), dir.path() / "log");
  REQUIRE(waitFor([&] { return rowsIn(out / "observables.csv.part", 3); }));
  run.signal(SIGINT);
  run.signal(SIGINT);
  const int code = run.wait();
  INFO(run.log());
  CHECK(code == 130);
  CHECK(leftovers(out).empty());
  // Whichever came first, the clean stop or the immediate exit, a series under its final name is whole.
  if (fs::exists(out / "observables.csv")) checkObservables(out / "observables.csv", 20);
}

TEST_CASE("a second run on an output directory in use is refused with exit 2 naming the first",
          "[integration][lock]") {
  ScratchDir dir("lock_two_runs");
  const fs::path out = dir.path() / "out";
  fs::create_directories(dir.path());
  Child first(endlessLbm(out), dir.path() / "log");
  REQUIRE(waitFor([&] { return rowsIn(out / "observables.csv.part", 3); }));

  const CommandResult second = runHopsim(endlessLbm(out) + " --set run.steps=100");
  CHECK(second.code == 2);
  CHECK(second.output.find("is in use by another hopsim run") != std::string::npos);
  CHECK(second.output.find("PID " + std::to_string(first.pid())) != std::string::npos);
  // The same for MD, which shares the directory rule.
  const CommandResult md = runHopsim("run " + source("inputs/md/lj_liquid.yaml") + " --set run.steps=10 --output " +
                           out.string());
  CHECK(md.code == 2);
  CHECK_FALSE(fs::exists(out / "thermo.csv.part"));

  // The first run went on undisturbed: its series has only its own rows, in order.
  first.signal(SIGTERM);
  CHECK(first.wait() == 143);
  CHECK(checkObservables(out / "observables.csv", 20) >= 3);
  CHECK(leftovers(out).empty());
}

TEST_CASE("a stale output lock is reported and taken over by the next run", "[integration][lock]") {
  ScratchDir dir("lock_stale_run");
  const fs::path out = dir.path() / "out";
  fs::create_directories(out);
  // A run killed with SIGKILL on this host: its PID is gone.
  long dead = 0;
  {
    Child killed(endlessLbm(out), dir.path() / "log");
    REQUIRE(waitFor([&] { return rowsIn(out / "observables.csv.part", 1); }));
    dead = killed.pid();
    killed.signal(SIGKILL);
    CHECK(killed.wait() == -SIGKILL);
  }
  REQUIRE(fs::exists(out / "hopsim.lock"));

  const CommandResult r = runHopsim(endlessLbm(out) + " --set run.steps=200");
  INFO(r.output);
  CHECK(r.code == 0);
  CHECK(r.output.find("taking over the stale lock") != std::string::npos);
  CHECK(r.output.find("PID " + std::to_string(dead)) != std::string::npos);
  CHECK_FALSE(fs::exists(out / "hopsim.lock"));
  CHECK_FALSE(fs::exists(out / "observables.csv.part"));
  CHECK(checkObservables(out / "observables.csv", 20) == 11);
  CHECK(runJson(out)["status"] == "completed");
}

TEST_CASE("a CSV write failure ends the run with the cause and no file under the final name",
          "[integration][write_failure]") {
  if (!fs::exists("/dev/full")) {
    WARN("no /dev/full here: nothing to check");
    return;
  }
  ScratchDir dir("write_failure");
  const fs::path out = dir.path() / "out";
  fs::create_directories(out);
  // Every write to observables.csv.part lands on /dev/full: a full disk, unprivileged and in any container.
  fs::create_symlink("/dev/full", out / "observables.csv.part");
  const CommandResult r = runHopsim(endlessLbm(out) + " --set run.steps=200");
  INFO(r.output);
  CHECK(r.code == 1);
  CHECK(r.output.find("observables.csv failed: No space left on device") != std::string::npos);
  CHECK_FALSE(fs::exists(out / "observables.csv"));
  CHECK_FALSE(fs::exists(out / "hopsim.lock"));
}
