// The MD run loop: picks a backend, advances the engine on the thermo/output schedule, writes thermo.csv, the H5MD
// trajectory (+ XDMF), VTK and run.json, and stops cleanly on NaN energies or infinite forces.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/Decomposition.h"
#include "core/DevicePlan.h"
#include "core/Mpi.h"
#include "core/RunOptions.h"
#include "core/md/MdCase.h"
#include "kernels/md/MdEngine.h"
#include "solvers/md/Thermo.h"

namespace hopsim::md {

struct MdRunResult {
  std::vector<ThermoRow> thermo;
  bool ok = true;
  std::string failure;        // why the run stopped early
  int stopSignal = 0;         // SIGINT, SIGTERM or SIGUSR1 that stopped the run early (ok stays true), else 0
  bool checkpointed = false;  // stopped by a signal with a checkpoint of lastStep written (--restart continues it)
  long long lastStep = 0;     // the last step reached with finite energies
  EngineStats stats;
  double seconds = 0;         // wall time of the time loop
  std::string backend;
  DevicePlan plan;
  ParticleState final;        // particles at the last good step, in id order
};

// The ranks a run spreads over. It is decomposed in space when comm has more than one rank, or when `decompose`
// asks for it on one (the rank then trades ghosts with itself: tests check the decomposed engine that way).
struct MdRanks {
  mpi::Comm comm = mpi::Comm::world();
  bool decompose = false;
  bool decomposed() const { return decompose || comm.size() > 1; }
};

// The device of a run, settled once (solvers/common/DevicePlanner.h): --backend over device.backend, auto = cuda
// where a GPU is seen; device.gpu, else in a decomposed run the node rank's share of the node's GPUs; `kernels:
// hopper` (the cell force path, kernels/md/hopper/CellForces.h) refused with the reason where it cannot run (a
// decomposed run, a GPU without clusters, a box under 3 x (cutoff + skin)); auto takes portable. Every rank calls it.
DevicePlan planMdDevice(const MdCase& c, const RunOptions& options, const MdRanks& ranks);
// The case's box over the ranks of comm (device.ranks, sub-boxes at least cutoff + skin wide); every rank calls it.
Decomposition decompose(const MdCase& c, const mpi::Comm& comm);
// Throws std::runtime_error for the cuda backend without CUDA or a GPU, std::invalid_argument when the ranks do not
// fit the box (device.ranks, or sub-boxes narrower than cutoff + skin).
std::unique_ptr<MdEngine> makeEngine(const MdCase& c, const DevicePlan& plan, bool timePhases = false,
                                     const MdRanks& ranks = {});
EngineConfig engineConfig(const MdCase& c);

// caseJson (optional) goes into run.json and checkpoints. options.restart continues from a checkpoint
// (output.checkpoint, SIGUSR1) instead of the case's initial state, appending to its series; run.steps count from
// the step the checkpointed run began at. onThermo is called for each thermo row as it is produced. Every rank of
// ranks.comm calls it; rank 0 alone prints and writes files, every rank gets the thermo rows, and `final` is
// filled on rank 0 only in a decomposed run.
MdRunResult runMd(const MdCase& c, const RunOptions& options, const MdRanks& ranks,
                  const nlohmann::json& caseJson = nullptr, const std::function<void(const ThermoRow&)>& onThermo = {});
MdRunResult runMd(const MdCase& c, const RunOptions& options, const nlohmann::json& caseJson = nullptr,
                  const std::function<void(const ThermoRow&)>& onThermo = {});

// Reorders particles by id (engines keep them sorted by cell).
void sortById(ParticleState& s);

}  // namespace hopsim::md
