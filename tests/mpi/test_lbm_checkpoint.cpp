// Checkpoint and restart of a decomposed LBM run (hopsim run under mpiexec): every rank writes its own part of a
// checkpoint, and a run continued from one on the same ranks ends in the uninterrupted run's state bitwise, each
// rank's populations (ghost layers included) and the series rank 0 writes.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <string>

#include "CatchCompat.h"
#include "FileText.h"
#include "HaveGpu.h"
#include "MpiScratch.h"
#include "core/ExitCode.h"
#include "core/Mpi.h"
#include "core/RunOptions.h"
#include "io/CaseReader.h"
#include "io/Checkpoint.h"
#include "io/OutputLock.h"
#include "solvers/lbm/LbmRun.h"

namespace fs = std::filesystem;
namespace mpi = hopsim::mpi;

using hopsim::testing::fileText;

namespace {

int run(const std::string& caseText, long long steps, const fs::path& out, const std::string& restart = "") {
  const auto doc = hopsim::io::CaseDocument::fromString(caseText + fmt::format("run: {{steps: {}}}\n", steps),
                                                        "case.yaml");
  hopsim::RunOptions options;
  options.outputDir = out.string();
  options.quiet = true;
  options.restart = restart;
  return hopsim::lbm::runCase(doc, options);
}

// Runs `caseText` (with a checkpoint every 30 steps) for 60 steps in one go and as 30 steps, then 30 more continued
// from the checkpoint, in scratch folder `scratch`: both end in the same populations on every rank (ghost layers
// included) and, on rank 0, the same `files`.
void checkContinuation(const std::string& caseText, const std::string& scratch,
                       std::initializer_list<const char*> files) {
  const fs::path dir = sharedScratch(scratch);
  const fs::path whole = dir / "whole", parts = dir / "parts";
  REQUIRE(run(caseText, 60, whole) == 0);
  REQUIRE(run(caseText, 30, parts) == 0);
  REQUIRE(run(caseText, 60, parts, parts.string()) == 0);

  const auto mine = [&](const fs::path& out) {
    return hopsim::io::readCheckpoint(hopsim::io::checkpointFolder(out, 60), mpi::Comm::world());
  };
  const auto a = mine(whole), b = mine(parts);
  CHECK(a.description["ranks"] == mpi::size());
  CHECK(a.block("populations").size() > 0);
  CHECK((a.block("populations") == b.block("populations")));
  if (mpi::isRoot()) {
    for (const char* file : files) {
      INFO(file);
      CHECK(fileText(whole / file) == fileText(parts / file));
    }
  }
  mpi::barrier();
  if (mpi::isRoot()) fs::remove_all(dir);
}

}  // namespace

TEST_CASE("a decomposed LBM run continued from its checkpoint equals the uninterrupted run bitwise",
          "[mpi][checkpoint]") {
  const std::string caseText =
      "solver: lbm\nlattice: D2Q9\nprecision: double\ndomain: {cells: [30, 22], periodic: [x]}\n"
      "fluid: {viscosity: 0.05}\nbody_force: [1e-5, 0]\nboundaries:\n  y-: {type: wall}\n"
      "  y+: {type: moving_wall, velocity: [0.04, 0]}\n"
      "obstacles:\n  - {name: c, shape: circle, center: [14.3, 10.6], radius: 4}\n"
      "device: {backend: cpu}\n"
      "output: {every: 20, observables: {every: 5}, forces: {every: 5, reference: {velocity: 0.04, length: 8}},"
      " checkpoint: {every: 30}}\n";
  checkContinuation(caseText, "checkpoint", {"observables.csv", "forces.csv", "fields.xmf"});
}

TEST_CASE("an output directory in use refuses a decomposed run on every rank, in rank 0's words", "[mpi][lock]") {
  const fs::path dir = sharedScratch("lock");
  if (mpi::isRoot()) {
    fs::create_directories(dir);
    // PID 1 of this host: a live holder.
    std::ofstream(dir / hopsim::io::OutputLock::kFileName)
        << fmt::format(R"({{"host": "{}", "pid": 1, "started": "2026-12-01T00:00:00Z", "process_start": -1}})",
                       hopsim::io::OutputLock::thisProcess().host);
  }
  mpi::barrier();
  std::string message;
  try {
    run("solver: lbm\nlattice: D2Q9\ndomain: {cells: [16, 12], periodic: [x, y]}\nfluid: {viscosity: 0.05}\n"
        "device: {backend: cpu}\n",
        10, dir);
  } catch (const hopsim::InputError& e) {
    message = e.what();
  }
  CHECK(message.find("is in use by another hopsim run") != std::string::npos);
  CHECK(message.find("PID 1, started 2026-12-01T00:00:00Z") != std::string::npos);
  CHECK(mpi::Comm::world().broadcast(message) == message);
  mpi::barrier();
  if (mpi::isRoot()) {
    // The refused run wrote nothing beside the lock.
    CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
    fs::remove_all(dir);
  }
}

// The same on the Hopper temporal kernel split over ranks sharing the GPU (ghost layers 4 deep, filled from the
// checkpoint's owners on restart; 30 steps leave a remainder of single steps before the checkpoint).
TEST_CASE("a decomposed run on the Hopper temporal kernel continued from its checkpoint equals the uninterrupted run",
          "[mpi][checkpoint][gpu][hopper]") {
  if (!hopsim::testing::haveHopperGpu(mpi::isRoot())) return;
  const std::string caseText =
      "solver: lbm\nlattice: D2Q9\nprecision: single\ndomain: {cells: [64, 40], periodic: [x, y]}\n"
      "fluid: {viscosity: 0.02}\nbody_force: [1e-5, 2e-6]\ninitial: {taylor_green: {u0: 0.04}}\n"
      "device: {backend: cuda, kernels: hopper}\n"
      "output: {every: 20, observables: {every: 5}, checkpoint: {every: 30}}\n";
  checkContinuation(caseText, "checkpoint_hopper", {"observables.csv"});
}
