// The MD run loop: picks a backend, advances the engine on the thermo/output schedule, writes thermo.csv, the H5MD
// trajectory (+ XDMF), VTK and run.json, and stops cleanly on NaN energies or infinite forces.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/Decomposition.h"
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
  long long lastStep = 0;     // the last step reached with finite energies
  EngineStats stats;
  double seconds = 0;         // wall time of the time loop
  std::string backend;
  ParticleState final;        // particles at the last good step, in id order
};

// The ranks a run spreads over. It is decomposed in space when comm has more than one rank, or when `decompose`
// asks for it on one (the rank then trades ghosts with itself: tests check the decomposed engine that way).
struct MdRanks {
  mpi::Comm comm = mpi::Comm::world();
  bool decompose = false;
  bool decomposed() const { return decompose || comm.size() > 1; }
};

// The backend a case runs on: --backend, else the case's device.backend; auto = CUDA when built and a GPU is seen
// (decomposed or not: ranks share the node's GPUs).
Backend chooseBackend(const MdCase& c, const RunOptions& options);
// The case's box over the ranks of comm (device.ranks, sub-boxes at least cutoff + skin wide); every rank calls it.
Decomposition decompose(const MdCase& c, const mpi::Comm& comm);
// The GPU of this rank in a decomposed run: device.gpu when set, else its share of the node's GPUs.
int chooseGpu(const MdCase& c, const Decomposition& d);
// Throws std::runtime_error for the cuda backend without CUDA or a GPU, std::invalid_argument when the ranks do not
// fit the box (device.ranks, or sub-boxes narrower than cutoff + skin).
std::unique_ptr<MdEngine> makeEngine(const MdCase& c, const RunOptions& options, bool timePhases = false,
                                     const MdRanks& ranks = {});
EngineConfig engineConfig(const MdCase& c);

// caseJson (optional) goes into run.json. onThermo is called for each thermo row as it is produced. Every rank of
// ranks.comm calls it; rank 0 alone prints and writes files, every rank gets the thermo rows, and `final` is
// filled on rank 0 only in a decomposed run.
MdRunResult runMd(const MdCase& c, const RunOptions& options, const MdRanks& ranks,
                  const nlohmann::json& caseJson = nullptr, const std::function<void(const ThermoRow&)>& onThermo = {});
MdRunResult runMd(const MdCase& c, const RunOptions& options, const nlohmann::json& caseJson = nullptr,
                  const std::function<void(const ThermoRow&)>& onThermo = {});

// Reorders particles by id (engines keep them sorted by cell).
void sortById(ParticleState& s);

}  // namespace hopsim::md
