// Atomic file commits: a failed rename names its own cause and leaves no temporary file behind.
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "CatchCompat.h"
#include "ScratchDir.h"
#include "io/AtomicFile.h"

namespace {

// The message commitFile throws, or "" when it does not throw.
std::string commitMessage(const std::filesystem::path& tmp, const std::filesystem::path& finalPath) {
  try {
    hopsim::io::commitFile(tmp, finalPath);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

bool endsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

void writeText(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

}  // namespace

TEST_CASE("commitFile reports why the rename failed", "[unit][atomic_file]") {
  ScratchDir dir("atomic_commit");
  std::filesystem::create_directories(dir.path());
  const auto tmp = dir.path() / "run.json.tmp-1";

  SECTION("the target's folder does not exist") {
    writeText(tmp, "{}");
    const std::string msg = commitMessage(tmp, dir.path() / "missing" / "run.json");
    CHECK(msg.find("cannot move") == 0);
    CHECK(endsWith(msg, ": No such file or directory"));
    CHECK(!std::filesystem::exists(tmp));
  }

  SECTION("the target's folder is a file") {
    writeText(tmp, "{}");
    writeText(dir.path() / "plain", "not a folder");
    const std::string msg = commitMessage(tmp, dir.path() / "plain" / "run.json");
    CHECK(endsWith(msg, ": Not a directory"));
    CHECK(!std::filesystem::exists(tmp));
  }

  SECTION("a successful commit leaves the content in place") {
    writeText(tmp, "{\"ok\": true}");
    CHECK(commitMessage(tmp, dir.path() / "run.json").empty());
    std::ifstream in(dir.path() / "run.json");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(text == "{\"ok\": true}");
    CHECK(!std::filesystem::exists(tmp));
  }
}
