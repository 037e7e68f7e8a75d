// Benchmark provenance and comparison as a user meets them: the commit in run.json, `hopsim bench --suite` on the
// CPU at the tiny scale, and `hopsim compare` on its output and on crafted files.
#include <fmt/format.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "CatchCompat.h"
#include "CommandRun.h"
#include "solvers/common/BenchSchema.h"
#include "solvers/common/BenchSuite.h"
#include "ScratchDir.h"

namespace fs = std::filesystem;

namespace {

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

nlohmann::json readJson(const fs::path& p) {
  std::ifstream in(p);
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

std::string readText(const fs::path& p) {
  std::ifstream in(p);
  REQUIRE(in);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST_CASE("run.json records the commit of the source tree the binary was built from", "[integration][bench]") {
  const std::string source = HOPSIM_SOURCE_DIR;
  // A source tarball (or a tree inside another repository) has no commit of its own: nothing to check here.
  const CommandResult top = runCommand("git -C '" + source + "' rev-parse --show-toplevel 2>/dev/null");
  if (top.code != 0 || fs::weakly_canonical(trimmed(top.output)) != fs::weakly_canonical(source)) {
    std::printf("%s is not a git checkout: the commit check is skipped\n", source.c_str());
    return;
  }
  const std::string head = trimmed(runCommand("git -C '" + source + "' rev-parse HEAD").output);
  REQUIRE(head.size() == 40);
  const bool dirty = !runCommand("git -C '" + source + "' status --porcelain --untracked-files=no").output.empty();

  ScratchDir dir("run_json_commit");
  const CommandResult r = runHopsim("run " + source + "/inputs/lbm/poiseuille2d.yaml --set run.steps=2 --backend cpu " +
                             "--quiet --output " + dir.path().string());
  INFO(r.output);
  REQUIRE(r.code == 0);
  const nlohmann::json run = readJson(dir.path() / "run.json");
  // The build records the tree as it was built; the test runs right after the build, on the same tree.
  CHECK(run["build"]["git_commit"] == head + (dirty ? "-dirty" : ""));
  CHECK(run["build"]["build_type"].get<std::string>().size() > 0);
  const CommandResult version = runHopsim("--version");
  CHECK(version.output.find("(commit " + head + (dirty ? "-dirty" : "") + ", ") != std::string::npos);
  CHECK(run["build"]["cuda_architectures"].is_string());
  CHECK(run["build"]["cuda_device_optimized"] == static_cast<bool>(HOPSIM_CUDA_DEVICE_OPT));
}

TEST_CASE("the CPU suite at the tiny scale writes one valid bench document that compare reads", "[bench_suite]") {
  ScratchDir dir("bench_suite");
  CommandResult r = runHopsim("bench --suite standard --backend cpu --scale tiny --out " + dir.path().string());
  INFO(r.output);
  REQUIRE(r.code == 0);
  // Progress as it goes, then the file's path.
  CHECK(r.output.find("[1/7] lbm periodic D2Q9 single 64x64") != std::string::npos);
  CHECK(r.output.find("[7/7] md lj mixed 864 atoms") != std::string::npos);
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir.path())) files.push_back(entry.path());
  REQUIRE(files.size() == 1);
  CHECK(files[0].filename().string().rfind("suite-standard-cpu-", 0) == 0);
  CHECK(r.output.find(files[0].string()) != std::string::npos);

  const nlohmann::json doc = readJson(files[0]);
  std::string problems;
  for (const auto& p : hopsim::checkBenchDocument(doc)) problems += p + "\n";
  CHECK(problems == "");
  CHECK(doc["suite"]["name"] == "standard");
  CHECK(doc["suite"]["version"] == hopsim::kStandardSuiteVersion);
  CHECK(doc["suite"]["scale"] == "tiny");
  CHECK(doc["copy_bandwidth"]["memory"] == "host");
  REQUIRE(doc["runs"].size() == 7);
  // The cpu backend runs in place where it can: walls, a moving lid, the cylinder's inlet and outlet too.
  CHECK(doc["runs"][1]["id"] == "lbm/periodic/D3Q19/single/cpu/in-place/16x16x16");
  CHECK(doc["runs"][3]["id"] == "lbm/cavity3d/D3Q19/single/cpu/in-place/16x16x16");
  CHECK(doc["runs"][4]["id"] == "lbm/cylinder2d/D2Q9/single/cpu/in-place/300x62");
  CHECK(doc["runs"][6]["id"] == "md/lj/mixed/cpu/864");
  for (const auto& run : doc["runs"]) {
    INFO(run["id"]);
    CHECK(!run.contains("error"));
  }

  // Round trip: the file against a copy of itself matches every run at a speed ratio of 1.
  fs::copy_file(files[0], dir.path() / "again.json");
  r = runHopsim("compare " + files[0].string() + " " + (dir.path() / "again.json").string() + " --json " +
                (dir.path() / "comparison.json").string());
  INFO(r.output);
  REQUIRE(r.code == 0);
  CHECK(r.output.find("md/lj/mixed/cpu/864") != std::string::npos);
  const nlohmann::json comparison = readJson(dir.path() / "comparison.json");
  REQUIRE(comparison["runs"].size() == 7);
  for (const auto& run : comparison["runs"]) CHECK(run["ratios"][1]["speed"].get<double>() == Approx(1.0));
  CHECK(comparison["missing"].empty());

  // --baseline picks the file the others are divided by; CSV for programs.
  r = runHopsim("compare " + files[0].string() + " " + (dir.path() / "again.json").string() +
                " --baseline again --format json");
  REQUIRE(r.code == 0);
  CHECK(nlohmann::json::parse(r.output)["baseline"] == 1);
  r = runHopsim("compare " + files[0].string() + " " + (dir.path() / "again.json").string() + " --format csv");
  REQUIRE(r.code == 0);
  CHECK(r.output.rfind("run," + files[0].stem().string() + " ms/step,", 0) == 0);
  CHECK(runHopsim("compare " + files[0].string() + " " + files[0].string() + " --baseline nowhere").code == 2);

  // --plot: matplotlib's chart, text kept as text in SVG, so the runs and axes can be looked for; a format it does
  // not draw is refused before anything is written.
  const fs::path chart = dir.path() / "chart.svg";
  r = runHopsim("compare " + files[0].string() + " " + (dir.path() / "again.json").string() + " --plot " +
                chart.string());
  INFO(r.output);
  REQUIRE(r.code == 0);
  REQUIRE(fs::exists(chart));
  const std::string svg = readText(chart);
  CHECK(svg.rfind("<?xml", 0) == 0);
  CHECK(svg.find("</svg>") != std::string::npos);
  CHECK(svg.find("md/lj/mixed/cpu/864") != std::string::npos);
  CHECK(svg.find("speed over baseline") != std::string::npos);
  CHECK(svg.find("copy bandwidth ratio (prediction)") != std::string::npos);
  r = runHopsim("compare " + files[0].string() + " " + (dir.path() / "again.json").string() + " --plot " +
                (dir.path() / "chart.txt").string());
  CHECK(r.code == 2);
  CHECK(r.output.find("must end in .svg, .png or .pdf") != std::string::npos);
  CHECK(!fs::exists(dir.path() / "chart.txt"));

  // One file is a projection's input, not a comparison's; a CPU measurement projects onto no GPU.
  r = runHopsim("compare " + files[0].string());
  CHECK(r.code == 2);
  CHECK(r.output.find("compare needs two or more bench files") != std::string::npos);
  r = runHopsim("compare " + files[0].string() + " --project h100-sxm");
  CHECK(r.code == 2);
  CHECK(r.output.find("measured on the cpu backend") != std::string::npos);
}

TEST_CASE("compare on the command line: bad, truncated and other-version files exit 2 naming the file",
          "[integration][bench]") {
  ScratchDir dir("compare_cli");
  fs::create_directories(dir.path());
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir.path() / name) << text;
    return (dir.path() / name).string();
  };
  const std::string truncated = write("truncated.json", "{\"schema\": \"hopsim-bench\", \"runs\": [");
  const std::string old = write("old.json", "{\"solver\": \"lbm\", \"runs\": []}");
  const std::string newer = write("newer.json", "{\"schema\": \"hopsim-bench\", \"schema_version\": \"2.0\"}");
  CommandResult r = runHopsim("compare " + truncated + " " + old);
  CHECK(r.code == 2);
  CHECK(r.output.find(truncated + ": not valid JSON: parse error at line 1, column 37") != std::string::npos);
  r = runHopsim("compare " + old + " " + newer);
  CHECK(r.code == 2);
  CHECK(r.output.find(old + ": not a usable bench document: schema: missing or not 'hopsim-bench'") !=
        std::string::npos);
  r = runHopsim("compare " + newer + " " + old);
  CHECK(r.code == 2);
  CHECK(r.output.find(newer + ": not a usable bench document: schema_version: 2.0 has another major version") !=
        std::string::npos);
  CHECK(runHopsim("compare " + truncated + " " + (dir.path() / "absent.json").string()).code == 2);
  CHECK(runHopsim(std::string("bench --suite standard ") + HOPSIM_SOURCE_DIR + "/inputs/lbm/cavity3d.yaml").code == 2);
  CHECK(runHopsim("bench --suite fastest").code == 2);
}
