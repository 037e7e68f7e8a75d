// The GPU half of one rank's decomposed MD engine (solvers/md/CudaDomainMdEngine.cpp is the MPI half, CUDA code in
// kernels/md/cuda/CudaDomainMdDevice.cu): owned atoms and ghost positions in device memory, the neighbour list over the
// rank's region, forces, integration, and the packing of ghost positions for the exchange. No MPI here: every call
// works on this rank's GPU only.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/md/LocalAtoms.h"
#include "kernels/md/MdEngine.h"

namespace hopsim::md {

// One ghost message as the host exchange chose it at the last rebuild (AtomExchange::Swap without the MPI side).
template <class S>
struct GhostSwap {
  int axis = 0;
  S shift = 0;  // added to the coordinate along axis of what is sent
  const std::vector<std::int32_t>* indices = nullptr;  // local atoms (owned or earlier ghosts) sent
  std::size_t first = 0, count = 0;  // ghost slots the answer fills
  // Sent to this rank itself (it is alone along a periodic axis): count == indices->size(), and the device fills the
  // ghost slots from its own atoms, with no host copy and no MPI.
  bool self = false;
};

struct DomainDeviceConfig {
  EngineConfig engine;
  std::array<double, 3> lo{}, hi{};  // the rank's region: its sub-box widened by cutoff + skin on every side
  int gpu = 0;
};

// What the step needs to know from the GPU after the first half: both decide control flow, so the engine reduces
// them over the ranks before acting.
struct StepFlags {
  bool rebuild = false;  // an owned atom moved more than skin/2 since the last build (or is not finite)
  bool badForces = false;  // a force of the last evaluation was not finite
};

// S: storage of positions and velocities (the host atoms' type); the pair precision follows config.engine.precision.
template <class S>
class DomainMdDevice {
 public:
  virtual ~DomainMdDevice() = default;

  // The atoms' mass, known once the state arrives: sets the kick and the Langevin parameters. Before load().
  virtual void setMass(double mass) = 0;

  // A rebuild: replaces the owned atoms (positions, velocities, ids) and the ghost positions after them, keeps the
  // swaps' send lists for packGhosts(), takes the owned positions as the new reference of the displacement test and
  // builds the neighbour list (owned atoms against owned + ghosts, no periodic image). Self swaps' ghost positions
  // are computed on the device as copyGhosts() does (bitwise the host's: the same S addition), the others uploaded.
  // Synchronises.
  virtual void load(const LocalAtoms<S>& atoms, const std::vector<GhostSwap<S>>& swaps) = 0;
  // Owned atoms (positions as integrated, not wrapped), velocities and ids into `atoms` (ghosts dropped).
  virtual void download(LocalAtoms<S>& atoms) = 0;
  // Forces on the owned atoms, x y z per atom.
  virtual std::vector<double> forces() = 0;

  // Forces on the owned atoms from the current positions; energy and virial (half pair sums) when `energy`.
  virtual void computeForces(bool energy) = 0;
  // The Langevin step counter of the next secondHalf(); each secondHalf() advances it by one.
  virtual void setStep(long long step) = 0;
  // Kick with the current forces after scaling velocities by `scale` (Nose-Hoover; 1 otherwise), drift, displacement
  // test. Synchronises to read the flags.
  virtual StepFlags firstHalf(double scale) = 0;
  // Forces (energies when `energy`), Langevin forces, second kick, kinetic sum.
  virtual void secondHalf(bool energy) = 0;
  // Velocities (and the kinetic sum) times s: the Nose-Hoover half-step after the kick.
  virtual void scaleVelocities(double s) = 0;
  // Kinetic sum of the owned atoms at the current velocities, recomputed (initial state).
  virtual void measureKinetic() = 0;
  // Continuing from a checkpoint, after load() built the list from the owned atoms where they stood at the build
  // that made it: the owned atoms' positions now (owned x, y, z of `now`), the forces of the last evaluation (x y z
  // per atom, as forces() gives them) and this rank's sums (localSums()). The caller then refreshes the ghosts.
  virtual void restore(const LocalAtoms<S>& now, const std::vector<double>& forces, const RawThermo& sums) = 0;

  // Ghost refresh, swap by swap in order (later swaps send ghosts earlier ones filled): pack the positions the swap
  // sends (+ its shift) into pinned host memory, the caller exchanges them, unpack writes the received positions
  // into the swap's ghost slots. Packing synchronises; unpacking is queued before the next kernels.
  virtual std::span<const std::byte> packGhosts(std::size_t swap) = 0;
  virtual std::span<std::byte> ghostInbox(std::size_t swap) = 0;
  virtual void unpackGhosts(std::size_t swap) = 0;
  // A self swap's refresh: the positions it sends (+ its shift) straight into its ghost slots, queued in order with
  // the other swaps' unpacking.
  virtual void copyGhosts(std::size_t swap) = 0;

  // This rank's sums: energy and virial from the last energy evaluation, kinetic from the last kick (or scaling).
  virtual RawThermo localSums() = 0;
  // Force and integration seconds (NaN unless config.engine.timePhases), list build seconds on the GPU (the engine
  // reports them as domain.list), neighbour counts of the current list; the engine adds what the host measures.
  virtual EngineStats stats() const = 0;
  virtual std::string deviceName() const = 0;  // "NVIDIA H200, GPU 0"
};

// Throws std::runtime_error when hopsim was built without CUDA or the GPU is not there.
template <class S>
std::unique_ptr<DomainMdDevice<S>> makeDomainMdDevice(const DomainDeviceConfig& config);

}  // namespace hopsim::md
