// The run log through the binary: hopsim.log in the output directory with the terminal's messages, each with its
// time and level; --quiet and --verbose; a restart appends; a run that fails after the log opened says why in it.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "CatchCompat.h"
#include "CommandRun.h"
#include "ScratchDir.h"

namespace fs = std::filesystem;

namespace {

std::string source(const std::string& rel) { return std::string(HOPSIM_SOURCE_DIR) + "/" + rel; }

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::vector<std::string> logLines(const fs::path& dir) {
  std::ifstream in(dir / "hopsim.log");
  std::stringstream s;
  s << in.rdbuf();
  return lines(s.str());
}

// The first line of `all` that contains `text`, or "".
std::string lineWith(const std::vector<std::string>& all, const std::string& text) {
  for (const auto& l : all)
    if (l.find(text) != std::string::npos) return l;
  return {};
}

long long count(const std::vector<std::string>& all, const std::string& text) {
  return std::count_if(all.begin(), all.end(), [&](const std::string& l) { return l.find(text) != std::string::npos; });
}

// "[2026-12-01 22:51:03.123 +00:00] [info] " and the message.
const std::regex kLogLine(
    R"(^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3} [+-]\d{2}:\d{2}\] \[(debug|info|warning|error)\] .*)");

// A small lid-driven cavity into `out`, 20 steps, fields every 10.
std::string cavity(const fs::path& out, const std::string& extra = "") {
  return "run " + source("inputs/lbm/cavity2d_re100.yaml") +
         " --set 'domain.cells=[24,24]' --set run.steps=20 --set output.every=10 --output " + out.string() + extra;
}

}  // namespace

TEST_CASE("an LBM run writes hopsim.log: the terminal's lines with time and level", "[integration][log]") {
  ScratchDir dir("log_lbm");
  const fs::path out = dir.path() / "out";
  const CommandResult r = runHopsim(cavity(out));
  INFO(r.output);
  REQUIRE(r.code == 0);
  const std::vector<std::string> log = logLines(out);
  REQUIRE_FALSE(log.empty());
  for (const auto& l : log) {
    INFO(l);
    CHECK(std::regex_match(l, kLogLine));
  }
  // The parameters, the summary and its phase times, as on the terminal (where the lines carry no prefix).
  CHECK(lineWith(log, "] [info] hopsim lbm: ").find("cavity2d_re100.yaml") != std::string::npos);
  CHECK_FALSE(lineWith(log, "] [info] done: 20 steps in ").empty());
  CHECK_FALSE(lineWith(log, "] [info]   collide+stream+boundaries ").empty());
  CHECK_FALSE(lineWith(log, "] [info] output in ").empty());
  const std::vector<std::string> terminal = lines(r.output);
  CHECK(std::any_of(terminal.begin(), terminal.end(),
                    [](const std::string& l) { return l.rfind("done: 20 steps", 0) == 0; }));
  // One process: no rank prefixes; no debug lines without --verbose.
  CHECK(count(log, "[rank ") == 0);
  CHECK(count(log, "] [debug] ") == 0);
}

TEST_CASE("an MD run writes hopsim.log with its thermo table and summary", "[integration][log]") {
  ScratchDir dir("log_md");
  const fs::path out = dir.path() / "out";
  const CommandResult r =
      runHopsim("run " + source("inputs/md/lj_liquid.yaml") + " --set 'system.lattice.cells=[4,4,4]' --set run.steps=20"
                " --set 'output.formats=[h5md]' --output " + out.string());
  INFO(r.output);
  REQUIRE(r.code == 0);
  const std::vector<std::string> log = logLines(out);
  CHECK_FALSE(lineWith(log, "] [info] hopsim md: 256 atoms").empty());
  CHECK(std::regex_match(lineWith(log, "etotal"), std::regex(R"(.*\] \[info\] +step +time +temp .*)")));
  CHECK(std::regex_match(lineWith(log, "] [info]         20 "), kLogLine));  // the thermo row of step 20
  CHECK_FALSE(lineWith(log, "] [info] loop time ").empty());
}

TEST_CASE("--quiet leaves warnings and errors on the terminal; the log has every info line", "[integration][log]") {
  ScratchDir dir("log_quiet");
  const fs::path out = dir.path() / "out";
  // A lid at Mach 0.12: a warning (above 0.1).
  const CommandResult r = runHopsim(cavity(out, " --set 'boundaries.y+.velocity=[0.07, 0]' --quiet"));
  INFO(r.output);
  REQUIRE(r.code == 0);
  CHECK(r.output.find("hopsim lbm:") == std::string::npos);
  CHECK(r.output.find("done:") == std::string::npos);
  CHECK(r.output.find("warning: lattice Mach number") != std::string::npos);
  const std::vector<std::string> log = logLines(out);
  CHECK_FALSE(lineWith(log, "] [info] hopsim lbm: ").empty());
  CHECK_FALSE(lineWith(log, "] [info] done: 20 steps").empty());
  CHECK(lineWith(log, "] [warning] ").find("warning: lattice Mach number") != std::string::npos);
}

TEST_CASE("--verbose adds debug lines on the terminal and in the log", "[integration][log]") {
  ScratchDir dir("log_verbose");
  const fs::path out = dir.path() / "out";
  const CommandResult r = runHopsim(cavity(out, " --verbose"));
  INFO(r.output);
  REQUIRE(r.code == 0);
  CHECK(r.output.find("fields of step 10 taken for output") != std::string::npos);
  const std::vector<std::string> log = logLines(out);
  CHECK_FALSE(lineWith(log, "] [debug] fields of step 10 taken for output").empty());
  CHECK_FALSE(lineWith(log, "] [info] done: 20 steps").empty());
  CHECK(runHopsim(cavity(out, " --quiet --verbose")).code == 2);  // one or the other
}

TEST_CASE("a restart appends to the log; a new run starts it afresh", "[integration][log]") {
  ScratchDir dir("log_restart");
  const fs::path out = dir.path() / "out";
  const std::string checkpoints = " --set output.checkpoint.every=10 --quiet";
  REQUIRE(runHopsim(cavity(out, checkpoints)).code == 0);
  CHECK(count(logLines(out), "] [info] checkpoint ") == 2);
  const CommandResult r = runHopsim(cavity(out, checkpoints + " --set run.steps=30 --restart " + out.string()));
  INFO(r.output);
  REQUIRE(r.code == 0);
  std::vector<std::string> log = logLines(out);
  CHECK(count(log, "] [info] hopsim lbm: ") == 2);
  CHECK(count(log, "] [info] done: ") == 2);
  CHECK_FALSE(lineWith(log, "] [info]   restart        from ").empty());
  // A restart that is refused says why in the log it appended to, as on stderr.
  const CommandResult refused = runHopsim(
      cavity(out, checkpoints + " --set run.steps=40 --set 'domain.cells=[30,24]' --restart " + out.string()));
  CHECK(refused.code == 2);
  log = logLines(out);
  CHECK(count(log, "] [info] hopsim lbm: ") == 3);
  CHECK(lineWith(log, "] [error] the run stopped: ").find("does not fit this case") != std::string::npos);

  REQUIRE(runHopsim(cavity(out, " --quiet")).code == 0);
  log = logLines(out);
  CHECK(count(log, "] [info] hopsim lbm: ") == 1);
  CHECK(count(log, "] [error] ") == 0);
}
