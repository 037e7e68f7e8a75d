// A lattice Boltzmann simulation in memory: the case turned into cell flags, initial fields and a backend state.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kernels/lbm/LbmBackend.h"
#include "core/Decomposition.h"
#include "core/Mpi.h"
#include "core/DevicePlan.h"
#include "core/lbm/LbmCase.h"

namespace hopsim::lbm {

// The part of a case's domain one rank holds: owned cells [first, first + count) in global coordinates, a ghost
// layer one cell deep beyond each face shared with another rank, and that rank.
struct LbmPartition {
  std::array<long long, 3> first{0, 0, 0}, count{1, 1, 1};
  std::array<int, 6> ghost{0, 0, 0, 0, 0, 0};
  std::array<int, 6> neighbor{mpi::kNoRank, mpi::kNoRank, mpi::kNoRank, mpi::kNoRank, mpi::kNoRank, mpi::kNoRank};

  long long ownedCells() const { return count[0] * count[1] * count[2]; }
};

// The whole domain as one part (one rank).
LbmPartition wholeDomain(const LbmCase& c);
// This rank's part of the domain on a process grid, with ghost layers `ghostDepth` cells deep beyond the faces it
// shares with other ranks (1; the Hopper temporal kernel's k steps per launch need k).
LbmPartition partitionOf(const LbmCase& c, const Decomposition& d, int ghostDepth = 1);

// Cell flags of a case: fluid, or obstacle k (a cell is inside a shape when its centre is); the whole domain.
std::vector<std::uint8_t> buildFlags(const LbmCase& c);

// The backend-neutral setup of a case (domain and face parameters, flags, initial fields) for one part of it:
// the box of owned and ghost cells, evaluated at global coordinates (wrapped on periodic axes). Mesh obstacles are
// voxelised on CUDA device `meshGpu` where it is >= 0 (runs on the cuda backend), else on the CPU; both give the
// same flags.
LbmSetup buildSetup(const LbmCase& c, const LbmPartition& part, int meshGpu = -1);
inline LbmSetup buildSetup(const LbmCase& c) { return buildSetup(c, wholeDomain(c)); }

// A lattice Boltzmann simulation over the ranks of `comm`: one rank holds the whole domain; several split it on a
// Cartesian process grid (device.ranks, or MPI_Dims_create) and exchange ghost planes before every step. Fields
// are gathered on rank 0; observables and forces are reduced over all ranks. `backend` and `kernels` stand in for
// the case's device.backend and device.kernels (as the command line's do); the device plan is settled once, here.
class LbmSimulation {
 public:
  LbmSimulation(const LbmCase& c, Backend backend, KernelVariant kernels = KernelVariant::Auto,
                const mpi::Comm& comm = mpi::Comm::self());

  void advance(long long steps, bool forcesOnLastStep = false);
  // Returns when the steps queued by advance() are done (a GPU backend queues them and returns at once).
  void finish() { backend_->finish(); }
  long long step() const { return step_; }
  // What a checkpoint holds of this rank: its backend's populations (LbmBackend::savePopulations, ghost layers
  // included) at step(). restoreState puts them back with their step, and the run continues bitwise.
  void saveState(std::vector<std::byte>& populations) { backend_->savePopulations(populations); }
  void restoreState(long long step, std::span<const std::byte> populations) {
    backend_->loadPopulations(populations);
    step_ = step;
  }
  const LbmCase& config() const { return case_; }
  LbmBackend& backend() { return *backend_; }
  Backend backendKind() const { return plan_.backend; }
  // Backend, GPU, kernels, bulk update and halo transport as settled for this run.
  const DevicePlan& devicePlan() const { return plan_; }

  // Density and velocity (3 per cell, x fastest) of the whole domain, on rank 0 (other ranks get empty vectors).
  // Collective: every rank calls it.
  void fields(std::vector<double>& density, std::vector<double>& velocity);
  // Cell flags of the whole domain as numbers (0 fluid, 2 + k obstacle k), on rank 0; collective.
  void flagField(std::vector<double>& flags);
  // This rank's owned cells only (partition().count of them, x fastest), without gathering: what each rank writes
  // of a decomposed run. Not collective.
  void localFields(std::vector<double>& density, std::vector<double>& velocity);
  void localFlagField(std::vector<double>& flags) const;
  // The owned cells of any rank of comm() (first and count; ghost and neighbor left at their defaults), from the
  // process grid without communicating; the whole domain for a run on one rank.
  LbmPartition ownedPartOf(int rank) const;
  // Output fields of this rank's owned cells without stopping the steps (LbmBackend::startFieldCopy): take the
  // current state into slot 0 or 1 and return; fieldCopy(slot) waits for them (callable from the writer thread) and
  // returns them, valid until the next startFieldCopy(slot). Not collective.
  void startFieldCopy(int slot) { backend_->startFieldCopy(slot); }
  HostFields fieldCopy(int slot) { return backend_->fieldCopy(slot); }
  Observables observables();
  // Observables without a synchronisation per sample: queue the current state's (sampleObservables), then read the
  // samples queued since the last read in order, reduced over the ranks (collective; one reduction for the batch).
  // At most observableRingCapacity() samples between two reads.
  void sampleObservables() { backend_->sampleObservables(); }
  // Whether advanceSampled() samples within its last step (one rank only; LbmBackend::samplesInStep), which then
  // belongs to the update's time rather than to the observables'.
  bool samplesInStep() const { return !decomposed() && backend_->samplesInStep(); }
  // advance(), then sampleObservables().
  void advanceSampled(long long steps, bool forcesOnLastStep);
  std::vector<Observables> readObservables();
  int observableRingCapacity() const { return backend_->observableRingCapacity(); }
  // Forces alike (LbmBackend::sampleForces): the last force step's, summed over the ranks when read (collective).
  void sampleForces() { backend_->sampleForces(); }
  std::vector<std::vector<std::array<double, 3>>> readForces();
  std::vector<std::array<double, 3>> forces();
  long long cellCount() const;
  long long fluidCellCount() const { return fluidCells_; }

  // Decomposed runs: the process grid, this rank's part, and the seconds spent exchanging halos so far.
  bool decomposed() const { return decomposition_.has_value(); }
  const Decomposition* decomposition() const { return decomposition_ ? &*decomposition_ : nullptr; }
  const LbmPartition& partition() const { return part_; }
  const mpi::Comm& comm() const { return comm_; }
  double haloSeconds() const { return haloSeconds_; }
  // HOPSIM_LBM_SKIP_HALO=1: decomposed steps without the exchange, to measure what it costs (results are wrong).
  bool haloSkipped() const { return plan_.overrides.skipHalo && decomposed(); }
  // Exchanges the ghost planes with the neighbouring ranks (advance() does it after every step).
  void exchangeHalo();
  // How the planes travel (staged or ipc; see device.halo), and why not ipc when auto could not use it.
  HaloTransport haloTransport() const { return plan_.halo; }
  // The path the planes take, in words, for the run log and bench JSON.
  std::string haloPath() const;

 private:
  // Rank 0 assembles every rank's owned block of `components` values per cell into the whole-domain array.
  std::vector<double> gatherOwned(const std::vector<double>& local, int components) const;
  void chooseHaloTransport(HaloTransport wanted);
  void exchangeAxisDirect(int lo, int hi);

  LbmCase case_;
  DevicePlan plan_;
  mpi::Comm comm_;
  std::optional<Decomposition> decomposition_;
  LbmPartition part_;
  std::vector<std::uint8_t> ownedFlags_;
  long long fluidCells_ = 0;
  std::unique_ptr<LbmBackend> backend_;
  long long step_ = 0;
  double haloSeconds_ = 0;
  std::string transportNote_;
  long long exchanges_ = 0;
};

}  // namespace hopsim::lbm
