// The overlapped field output of a decomposed run (issue 22): each rank's writer thread writes its piece, the main
// threads name the step in the series together; one file written collectively stays on the main thread. The files
// are the synchronous path's, byte for byte, and a piece that fails on the writer thread ends the run on every
// rank, the series listing only the steps whose every piece was written.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "CatchCompat.h"
#include "MpiScratch.h"
#include "core/Mpi.h"
#include "core/RunOptions.h"
#include "io/CaseReader.h"
#include "io/FieldWriter.h"
#include "solvers/lbm/LbmRun.h"

namespace fs = std::filesystem;
namespace mpi = hopsim::mpi;

namespace {

std::string caseText(const char* hdf5) {
  return fmt::format(
      "solver: lbm\nlattice: D2Q9\nprecision: single\ndomain: {{cells: [40, 24], periodic: [x]}}\n"
      "fluid: {{viscosity: 0.05}}\nbody_force: [1e-5, 0]\nboundaries:\n  y-: {{type: wall}}\n"
      "  y+: {{type: moving_wall, velocity: [0.04, 0]}}\nrun: {{steps: 60}}\ndevice: {{backend: cpu}}\n"
      "output: {{every: 10, fields: [density, velocity, flags], hdf5: {}, observables: {{every: 2}}}}\n",
      hdf5);
}

int runInto(const std::string& yaml, const fs::path& out, bool sync) {
  hopsim::RunOptions options;
  options.outputDir = out.string();
  options.quiet = true;
  options.syncOutput = sync;
  return hopsim::lbm::runCase(hopsim::io::CaseDocument::fromString(yaml, "case.yaml"), options);
}

std::string bytesOf(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<fs::path> filesUnder(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    // run.json and hopsim.log hold times, view.py the folder it was written into.
    if (e.is_regular_file() && e.path().filename() != "run.json" && e.path().filename() != "hopsim.log" &&
        e.path().filename() != "view.py")
      out.push_back(fs::relative(e.path(), dir));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("a decomposed run's overlapped field output writes the synchronous path's files", "[mpi][lbm][output]") {
  std::vector<const char*> layouts{"per-rank"};
  if (hopsim::io::CollectiveFieldSeriesWriter::available()) layouts.push_back("collective");
  for (const char* layout : layouts) {
    INFO(layout << " on " << mpi::size() << " ranks");
    const fs::path dir = sharedScratch(std::string("async_") + layout);
    CHECK(runInto(caseText(layout), dir / "thread", false) == 0);
    CHECK(runInto(caseText(layout), dir / "sync", true) == 0);
    mpi::barrier();
    if (mpi::isRoot()) {
      const auto files = filesUnder(dir / "thread");
      CHECK(files == filesUnder(dir / "sync"));
      CHECK(files.size() >= 8);
      for (const auto& f : files) {
        INFO(f);
        CHECK(bytesOf(dir / "thread" / f) == bytesOf(dir / "sync" / f));
      }
      fs::remove_all(dir);
    }
    mpi::barrier();
  }
}

TEST_CASE("a piece that fails on a rank's writer thread ends the run on every rank, the series whole",
          "[mpi][lbm][output]") {
  const fs::path dir = sharedScratch("async_failure");
  ::setenv("HOPSIM_INJECT_FIELD_WRITE_FAILURE", "30", 1);
  bool threw = false;
  try {
    runInto(caseText("per-rank"), dir, false);
  } catch (const std::exception& e) {
    threw = true;
    INFO(e.what());
    CHECK(std::string(e.what()).find("fields_000000030") != std::string::npos);
  }
  ::unsetenv("HOPSIM_INJECT_FIELD_WRITE_FAILURE");
  CHECK(threw);
  mpi::barrier();
  if (mpi::isRoot()) {
    const std::string series = bytesOf(dir / "fields.xmf");
    for (long long step : {0, 10, 20}) CHECK(series.find(fmt::format("step_{}\"", step)) != std::string::npos);
    for (long long step : {30, 40}) CHECK(series.find(fmt::format("step_{}\"", step)) == std::string::npos);
    for (const auto& f : filesUnder(dir)) {
      INFO(f);
      CHECK(f.string().find(".tmp") == std::string::npos);
    }
    fs::remove_all(dir);
  }
  mpi::barrier();
}
