// The GPU half of one rank's decomposed MD engine (solvers/md/CudaDomainMdEngine.cpp is the MPI half, CUDA code in
// kernels/md/cuda/CudaDomainMdDevice.cu): owned atoms and ghost positions in device memory, the neighbour list over the
// rank's region, forces, integration, and the packing of ghost positions for the exchange. No MPI here: every call
// works on this rank's GPU only.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
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
  // For the rebuild on the device: the box, this rank's grid coordinates, and per axis the faces of every grid
  // coordinate (Decomposition::face(axis, c), c = 0 .. dims), which decide who owns an atom.
  std::array<double, 3> box{};
  std::array<int, 3> coords{};
  std::array<std::vector<double>, 3> faces;
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
  // The owned positions the list was built from (the displacement test's reference; checkpoints save them).
  virtual void reference(std::vector<S>& x0, std::vector<S>& y0, std::vector<S>& z0) = 0;
  virtual std::size_t ownedCount() const = 0;

  // The rebuild where the atoms are, without the host copy that load() needs: the engine calls these in this order
  // and carries the messages between ranks. Each does what DomainAtoms.h and AtomExchange do on the host, in the
  // same order and arithmetic, so that both rebuilds leave the same atoms in the same slots.
  // Owned positions wrapped into the box (wrapOnce); ghosts dropped.
  virtual void wrapOwned() = 0;
  // Migration along one swap: the owned atoms whose owner coordinate along `axis` is `target` (not this rank's; -1:
  // none) leave, as x y z vx vy vz id (doubles) per atom; the others close up in order. Synchronises.
  virtual std::span<const double> takeLeaving(int axis, int target) = 0;
  // Atoms received from a neighbour (7 doubles each, as takeLeaving() gives them), appended to the owned atoms.
  virtual void appendArrivals(std::span<const double> atoms) = 0;
  // Owned atoms outside this rank's sub-box (moved further than one neighbour). Synchronises.
  virtual long long misplaced() = 0;
  // Owned atoms reordered by the host sorter's cells (bins of at least the interaction range over the region),
  // stable: CpuNeighborList::sortOrder's order.
  virtual void sortOwned() = 0;
  // Borders, one axis at a time (swaps 2 axis, towards the lower neighbour, and 2 axis + 1, the upper): every atom so
  // far (owned and earlier axes' ghosts) below `lo` goes lower, at or above `hi` upper; a swap whose `sends` is
  // false sends nothing. Synchronises (the counts). Then, per swap in order, placeGhosts() reserves the `count`
  // ghost slots its answer fills after the atoms so far, and copyGhosts() (a swap to this rank itself, count = what
  // it sends) or packGhosts() / ghostInbox() / unpackGhosts() fill them.
  virtual void selectBorders(int axis, double lo, double hi, const std::array<bool, 2>& sends,
                             const std::array<S, 2>& shifts) = 0;
  virtual std::size_t sendCount(std::size_t swap) const = 0;
  virtual void placeGhosts(std::size_t swap, std::size_t count) = 0;
  // The end of the rebuild: the owned positions become the displacement test's reference, the list is built.
  // `meanwhile` (if any) runs on the host once the build is queued, before waiting for it: host work of the rebuild
  // that needs neither the list nor the GPU (the ghost inboxes' mapping) overlaps the build.
  virtual void finishRebuild(const std::function<void()>& meanwhile) = 0;
  // Forces on the owned atoms, x y z per atom.
  virtual std::vector<double> forces() = 0;

  // Forces on the owned atoms from the current positions; energy and virial (half pair sums) when `energy`.
  virtual void computeForces(bool energy) = 0;
  // The Langevin step counter of the next secondHalf(); each secondHalf() advances it by one.
  virtual void setStep(long long step) = 0;
  // Kick with the current forces after scaling velocities by `scale` (Nose-Hoover; 1 otherwise), drift, displacement
  // test. Synchronises to read the flags. With GPU-to-GPU ghosts, the refresh of the first `prologue` swaps starts
  // here too, after the drift and before that synchronisation: self swaps copied, remote swaps packed into the
  // receiver's inbox slot `slot` (0 or 1, by step parity), ahead of knowing whether the step rebuilds instead (then
  // the copies are wasted); the caller unpacks them after the step's control allreduce (unpackGhostsFromInbox).
  virtual StepFlags firstHalf(double scale, std::size_t prologue, int slot) = 0;
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

  // The same refresh GPU to GPU, for ranks of one node (CUDA IPC). After each rebuild, for each remote swap, the
  // rank that receives it tells the sender where its ghosts go (exportInbox(), kInboxHandleBytes) and the sender maps
  // that place (mapPeerInbox(); `peer` names the receiving rank: one mapping per rank, reused while its buffer
  // stays). The inbox has two slots, used on alternate steps. Then each refresh: packGhostsToPeer() writes the
  // positions into the receiver's inbox slot and waits for the kernel (or firstHalf() queued that, for the first
  // swaps); the receiver, told so by MPI (a token, or the step's allreduce, which every rank enters after its
  // packs), unpacks from its own inbox slot (unpackGhostsFromInbox(), queued). Two slots make the allreduce enough:
  // a sender writes slot p at step n only after step n - 1's allreduce, which the receiver entered after its stream,
  // and so its unpack of slot p at step n - 2, had finished. peerGhosts(): whether this device can (the host
  // stand-in of the tests cannot).
  static constexpr std::size_t kInboxHandleBytes = 128;
  virtual bool peerGhosts() const = 0;
  virtual std::vector<std::byte> exportInbox(std::size_t swap) = 0;
  virtual void mapPeerInbox(std::size_t swap, int peer, std::span<const std::byte> handle) = 0;
  virtual void packGhostsToPeer(std::size_t swap, int slot) = 0;
  virtual void unpackGhostsFromInbox(std::size_t swap, int slot) = 0;

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
