// The run log of a decomposed run: rank 0's lines and, with --verbose, every rank's own, each line naming its rank.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>

#include "CatchCompat.h"
#include "MpiScratch.h"
#include "core/Mpi.h"
#include "core/RunOptions.h"
#include "io/CaseReader.h"
#include "solvers/lbm/LbmRun.h"

namespace fs = std::filesystem;
namespace mpi = hopsim::mpi;

TEST_CASE("under MPI each line of hopsim.log names its rank; --verbose adds each rank's block", "[mpi][log]") {
  const fs::path dir = sharedScratch("log");
  const auto doc = hopsim::io::CaseDocument::fromString(
      "solver: lbm\nlattice: D2Q9\ndomain: {cells: [16, 16], periodic: [x, y]}\nfluid: {viscosity: 0.05}\n"
      "body_force: [1e-5, 0]\nrun: {steps: 10}\noutput: {every: 0, formats: [hdf5]}\ndevice: {backend: cpu}\n",
      "case.yaml");
  hopsim::RunOptions options;
  options.outputDir = dir.string();
  options.verbose = true;
  CHECK(hopsim::lbm::runCase(doc, options) == 0);
  mpi::barrier();

  if (mpi::isRoot()) {
    std::ifstream in(dir / "hopsim.log");
    std::stringstream text;
    text << in.rdbuf();
    const std::string log = text.str();
    INFO(log);
    const int size = mpi::size();
    if (size == 1) {
      CHECK(log.find("] [info] done: 10 steps") != std::string::npos);
      CHECK(log.find("[rank ") == std::string::npos);
    } else {
      CHECK(log.find("] [rank 0] [info] done: 10 steps") != std::string::npos);
      std::istringstream lines(log);
      for (std::string line; std::getline(lines, line);) {
        INFO(line);
        CHECK(line.find("] [rank ") != std::string::npos);
      }
      // Only rank 0 speaks at info level; every rank's debug lines name its own block.
      for (int r = 0; r < size; ++r)
        CHECK(log.find(fmt::format("] [rank {}] [debug]   this rank      cells [", r)) != std::string::npos);
      CHECK(log.find("] [rank 1] [info] ") == std::string::npos);
    }
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  mpi::barrier();
}
