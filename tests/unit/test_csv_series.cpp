// CSV series: rows reach the file as they are written, a failed write ends the series with the cause and no file
// under the final name.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "CatchCompat.h"
#include "ScratchDir.h"
#include "io/CsvSeries.h"

namespace {

std::string readText(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("a CSV series holds every finished row in its .part file and moves it into place at the end",
          "[unit][csv]") {
  ScratchDir dir("csv_rows");
  std::filesystem::create_directories(dir.path());
  hopsim::io::CsvSeries s(dir.path() / "t.csv", {"step", "x"});
  s.row({hopsim::io::CsvSeries::cell(10LL), hopsim::io::CsvSeries::cell(0.1)});
  // Without flushing: a run killed now keeps the row.
  CHECK(readText(dir.path() / "t.csv.part") == "step,x\n10,0.10000000000000001\n");
  CHECK_FALSE(std::filesystem::exists(dir.path() / "t.csv"));
  s.finish();
  CHECK(readText(dir.path() / "t.csv") == "step,x\n10,0.10000000000000001\n");
  CHECK_FALSE(std::filesystem::exists(dir.path() / "t.csv.part"));
}

TEST_CASE("a CSV series gives its last row, a continued one the last row it kept", "[unit][csv]") {
  ScratchDir dir("csv_last_row");
  std::filesystem::create_directories(dir.path());
  using hopsim::io::CsvSeries;
  {
    CsvSeries s(dir.path() / "t.csv", {"step", "x"});
    CHECK(s.lastRow().empty());
    for (long long step : {0LL, 10LL, 20LL}) s.row({CsvSeries::cell(step), CsvSeries::cell(0.5 * step)});
    CHECK(s.lastRow() == std::vector<std::string>{"20", "10"});
    s.finish();
  }
  CsvSeries continued(dir.path() / "t.csv", {"step", "x"}, 15);
  CHECK(continued.lastRow() == std::vector<std::string>{"10", "5"});
  CHECK(CsvSeries(dir.path() / "u.csv", {"step", "x"}, 15).lastRow().empty());
}

TEST_CASE("a CSV series on a full disk fails with the cause and leaves no file", "[unit][csv]") {
  if (!std::filesystem::exists("/dev/full")) {
    WARN("no /dev/full here: nothing to check");
    return;
  }
  ScratchDir dir("csv_full");
  std::filesystem::create_directories(dir.path());
  // /dev/full takes the open and fails every write with ENOSPC: a full disk, unprivileged.
  std::filesystem::create_symlink("/dev/full", dir.path() / "t.csv.part");
  std::string message;
  try {
    hopsim::io::CsvSeries s(dir.path() / "t.csv", {"step", "x"});
    s.finish();
  } catch (const std::runtime_error& e) {
    message = e.what();
  }
  CHECK(message.find("t.csv failed: No space left on device") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "t.csv"));
  CHECK_FALSE(std::filesystem::exists(std::filesystem::symlink_status(dir.path() / "t.csv.part")));
}
