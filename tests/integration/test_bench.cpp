// Benchmark provenance and comparison as a user meets them: the commit in run.json, `hopsim bench --suite` on the
// CPU at the tiny scale, and `hopsim compare` on its output and on crafted files.
#include <fmt/format.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "CatchCompat.h"
#include "ScratchDir.h"

namespace fs = std::filesystem;

namespace {

struct Result {
  int code;
  std::string output;  // stdout, and stderr where asked for
};

Result shell(const std::string& cmd) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  REQUIRE(pipe);
  std::string out;
  std::array<char, 4096> buf;
  while (std::fgets(buf.data(), buf.size(), pipe.get())) out += buf.data();
  const int status = pclose(pipe.release());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

Result runHopsim(const std::string& args) { return shell(std::string(HOPSIM_BINARY) + " " + args + " 2>&1"); }

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

nlohmann::json readJson(const fs::path& p) {
  std::ifstream in(p);
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

}  // namespace

TEST_CASE("run.json records the commit of the source tree the binary was built from", "[integration][bench]") {
  const std::string source = HOPSIM_SOURCE_DIR;
  // A source tarball (or a tree inside another repository) has no commit of its own: nothing to check here.
  const Result top = shell("git -C '" + source + "' rev-parse --show-toplevel 2>/dev/null");
  if (top.code != 0 || fs::weakly_canonical(trimmed(top.output)) != fs::weakly_canonical(source)) {
    std::printf("%s is not a git checkout: the commit check is skipped\n", source.c_str());
    return;
  }
  const std::string head = trimmed(shell("git -C '" + source + "' rev-parse HEAD").output);
  REQUIRE(head.size() == 40);
  const bool dirty = !shell("git -C '" + source + "' status --porcelain --untracked-files=no").output.empty();

  ScratchDir dir("run_json_commit");
  const Result r = runHopsim("run " + source + "/inputs/lbm/poiseuille2d.yaml --set run.steps=2 --backend cpu " +
                             "--quiet --output " + dir.path().string());
  INFO(r.output);
  REQUIRE(r.code == 0);
  const nlohmann::json run = readJson(dir.path() / "run.json");
  // The build records the tree as it was built; the test runs right after the build, on the same tree.
  CHECK(run["build"]["git_commit"] == head + (dirty ? "-dirty" : ""));
  CHECK(run["build"]["build_type"].get<std::string>().size() > 0);
  CHECK(run["build"]["cuda_architectures"].is_string());
}
