// The backend-neutral face of a lattice Boltzmann state: what the solver asks of CPU and GPU implementations.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/lbm/BoundaryParams.h"
#include "core/lbm/LbmTypes.h"
#include "core/DevicePlan.h"

namespace hopsim::lbm {

struct Observables {
  double mass = 0;           // sum of rho over fluid cells
  double kineticEnergy = 0;  // sum of rho u^2 / 2 over fluid cells
  double maxSpeed = 0;
  // Sum of |curl u|^2 / 2 over fluid cells (kernels/lbm/Vorticity.h); NaN where the setup did not ask for it
  // (LbmSetup::enstrophy) or the backend cannot know every neighbour's velocity (a decomposed box whose ghost layers
  // carry only the populations that stream inwards).
  double enstrophy = 0;
};

// A snapshot of the owned cells' density and velocity (3 per cell), x fastest, in host memory the backend owns: in
// its arithmetic type (single: floats, else doubles), as the files of a single-precision case hold them.
struct HostFields {
  const void* density = nullptr;
  const void* velocity = nullptr;
  long long cells = 0;
  bool single = false;
};

// Size of the message that carries a halo inbox handle between ranks (a CUDA IPC handle and the inbox size).
inline constexpr std::size_t kHaloHandleBytes = 128;

// The links of fluid cells into obstacles with interpolated bounce-back (obstacles[].boundary: interpolated): the
// cells of the box that have any, by increasing index, and Q wall distances for each: q[Q k + i] in (0, 1] is where
// link i of cells[k], from the cell's centre towards the solid cell upstream (x - c_i), crosses the obstacle's
// surface, as a fraction of the link; 0 where link i bounces half-way or ends in no such obstacle.
struct CurvedLinks {
  std::vector<long long> cells;
  std::vector<double> q;
};

// Everything a backend needs to build its state; plain data, no case-file types beyond the enums.
struct LbmSetup {
  LatticeKind lattice;
  Precision precision;
  DomainParams<double> domain;       // converted to the backend's arithmetic type
  std::vector<std::uint8_t> flags;   // one per cell, x fastest
  std::vector<double> density;       // initial rho per cell
  std::vector<double> velocity;      // initial u, 3 per cell
  int obstacles = 0;
  StreamingLayout layout = StreamingLayout::Auto;  // Auto: the backend's default (the planner's, on the GPU)
  // Decomposed runs with inlet/outlet faces or quadratic obstacles: ghost planes carry every population.
  bool haloAllPopulations = false;
  CurvedLinks curved{};             // interpolated bounce-back
  bool enstrophy = false;           // observables(): the enstrophy too (LbmCase's output.enstrophy), else NaN
  // The CPU backend: at most one OpenMP thread per this many cells of the box (0: every thread). A small box's step
  // is shorter than the threads' fork and barriers, which on a loaded machine wait for a core each:
  // lbm.offlattice2d (2 x 42 cells) took 145 s on two threads beside a compile and 1.7 s on one.
  long long cellsPerThread = 16384;
};

// Whether the setup has a velocity inlet or a pressure outlet face.
inline bool hasOpenFaces(const LbmSetup& s) {
  for (int f = 0; f < 6; ++f)
    if (s.domain.isOpen(f)) return true;
  return false;
}

// The inlet and outlet faces whose ghost values the CUDA face pass can hand to the bulk kernel through the opposite
// face's cells (a bit per face, as CellCursor::outside; 0: none). A face cell's link across its face alone pulls,
// through the cursor's wrap, the slot of the cell on the opposite face that holds a population leaving the box there
// (no update of the box reads it: a bounce reads a cell's own slots only where its link crosses a wall, and the
// interpolated links read populations that point into the box). wrapOpenGhosts() writes the ghost value there once
// the face pass has stored it, so that gather()'s rule for such a link (ghostFromFacePass(): the stored value where
// the face cell is fluid) is one bulk load, and inlet and outlet cells become bulk or wall cells (classifyCell()).
// Where it holds: one rank; both faces of one axis inlets or outlets, no other open face (a link across two open
// faces keeps gather()); every cell on those two planes fluid and none with interpolated links, so that every ghost
// value such a link reads is the stored one. (The planner asks it too: the temporal kernel runs such faces only.)
inline unsigned openWrapFaces(const LbmSetup& s) {
  const DomainParams<double>& p = s.domain;
  if (p.hasGhosts()) return 0;
  int axis = -1;
  for (int a = 0; a < 3; ++a) {
    if (!p.isOpen(2 * a) && !p.isOpen(2 * a + 1)) continue;
    if (axis >= 0 || !p.isOpen(2 * a) || !p.isOpen(2 * a + 1)) return 0;
    axis = a;
  }
  if (axis < 0 || p.n[axis] < 2) return 0;  // one cell long: the two planes would be one
  const int t1 = axis == 0 ? 1 : 0, t2 = axis == 2 ? 1 : 2;
  for (const int plane : {0, p.n[axis] - 1})
    for (int b = 0; b < p.n[t2]; ++b)
      for (int a = 0; a < p.n[t1]; ++a) {
        int at[3];
        at[axis] = plane;
        at[t1] = a;
        at[t2] = b;
        if (s.flags[static_cast<std::size_t>(p.index(at[0], at[1], at[2]))] != kFluid) return 0;
      }
  const long long nxy = static_cast<long long>(p.n[0]) * p.n[1];
  for (const long long cell : s.curved.cells) {
    const long long at[3] = {cell % p.n[0], (cell / p.n[0]) % p.n[1], cell / nxy};
    if (at[axis] == 0 || at[axis] == p.n[axis] - 1) return 0;
  }
  return 3u << (2 * axis);
}

// Why the CUDA backend's in-place layout cannot run this setup exactly, or empty where it can: inlet and outlet
// ghost nodes read the full population set of a neighbouring cell, and interpolated bounce-back a population of the
// cell downstream, while that cell updates it in place. (The cpu backend runs inlets and outlets in place, its
// ghost nodes reading the face cells' values kept by the step before: cpu::cpuTwoLatticeReason().)
inline std::string inPlaceRefusal(const LbmSetup& s) {
  if (hasOpenFaces(s)) return "inlet and outlet faces need two lattices";
  if (!s.curved.cells.empty()) return "interpolated bounce-back needs two lattices";
  return {};
}

class LbmBackend {
 public:
  virtual ~LbmBackend() = default;
  virtual std::string name() const = 0;        // e.g. "cpu", "cuda/portable"
  virtual std::string description() const = 0; // threads, device, layout: for the log and run.json
  // Advances `steps` time steps; with forces, obstacle forces are computed in the last of them.
  virtual void advance(long long steps, bool forcesOnLastStep) = 0;
  // Density and velocity (3 per cell) of the owned cells' current state, x fastest (without decomposition: every
  // cell); solid cells read rho = 1, u = 0.
  virtual void macroscopic(std::vector<double>& density, std::vector<double>& velocity) = 0;
  // Sums and maximum over the owned cells.
  virtual Observables observables() = 0;

  // Field snapshots for output that overlaps the steps (issue 22), in kFieldSlots host slots that the caller uses in
  // turn. startFieldCopy(slot) takes the current state's fields into `slot` and may return before they are there
  // (the CUDA backend computes them on the device and copies them into pinned host memory on a stream of its own;
  // the steps queued after it do not wait for the copy); fieldCopy(slot) waits until they are and returns them. The
  // slot's memory stays valid and unchanged until the next startFieldCopy(slot). fieldCopy may be called from
  // another thread than the one advancing the state (the output writer's), and only reads the slot. The default
  // (test doubles) takes macroscopic() into double slots.
  static constexpr int kFieldSlots = 2;
  virtual void startFieldCopy(int slot) {
    FieldSlot& s = fieldSlots_.at(static_cast<std::size_t>(slot));
    macroscopic(s.density, s.velocity);
  }
  virtual HostFields fieldCopy(int slot) {
    const FieldSlot& s = fieldSlots_.at(static_cast<std::size_t>(slot));
    return {s.density.data(), s.velocity.data(), static_cast<long long>(s.density.size()), false};
  }

  // Observables without a host synchronisation per sample: sampleObservables() queues the reduction of the current
  // state (the CUDA backend into a device-side ring of observableRingCapacity() samples), readObservables() returns
  // the samples queued since the last read, in order, with one synchronisation. The values are those observables()
  // gives for the same states, bitwise. Read before the ring is full. The default computes each sample at once.
  virtual void sampleObservables() { samples_.push_back(observables()); }
  virtual std::vector<Observables> readObservables() {
    std::vector<Observables> out;
    out.swap(samples_);
    return out;
  }
  // advance(), then sampleObservables() of the state it leaves. Where samplesInStep(), the last step computes the
  // sample itself, sparing the pass over the state that sampleObservables() makes (the CUDA backend: a variant of
  // its bulk kernel sums the observables as it stores the populations); the sample's values are the same bitwise.
  virtual bool samplesInStep() const { return false; }
  virtual void advanceSampled(long long steps, bool forcesOnLastStep) {
    advance(steps, forcesOnLastStep);
    sampleObservables();
  }
  // Obstacle forces alike: sampleForces() queues those of the last step that computed forces (advance() with
  // forcesOnLastStep), readForces() returns the samples queued since the last read, in order, each as
  // obstacleForces() would have returned it. Read before either ring is full.
  virtual void sampleForces() { forceSamples_.push_back(obstacleForces()); }
  virtual std::vector<std::vector<std::array<double, 3>>> readForces() {
    std::vector<std::vector<std::array<double, 3>>> out;
    out.swap(forceSamples_);
    return out;
  }
  // Samples each ring holds (observables, forces).
  virtual int observableRingCapacity() const { return 1 << 20; }
  // Force on each obstacle from the last step that computed forces.
  virtual std::vector<std::array<double, 3>> obstacleForces() = 0;
  // Bytes of population data one cell update reads and writes (for bandwidth figures).
  virtual double bytesPerCellUpdate() const = 0;
  // The population layout in use ("two-lattice" or "in-place").
  virtual std::string layout() const { return toString(StreamingLayout::TwoLattice); }
  // Seconds that `steps` steps without forces take, measured so that only the steps count: GPU backends time them
  // with device events; the default is the host clock around advance(), which returns when the work is done.
  virtual double timeSteps(long long steps) {
    const auto t0 = std::chrono::steady_clock::now();
    advance(steps, false);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  // Waits until the work queued by advance() and unpackHalo() is done (GPU backends; the CPU's is done on return).
  virtual void finish() {}

  // The raw population state, for checkpoints. savePopulations gives every population of the backend's box (owned
  // and ghost cells) in a layout of the backend's own, which populationLayout() names (backend, lattice, storage,
  // arrangement); loadPopulations takes back exactly what savePopulations gave, from a backend of the same layout
  // and box, and continues from it bitwise. It throws std::invalid_argument when the size is not that of this box.
  // The defaults are for backends that cannot (test doubles): they refuse.
  virtual std::string populationLayout() const { return name() + " (no checkpoints)"; }
  virtual void savePopulations(std::vector<std::byte>& /*out*/) { throw noCheckpoint(); }
  virtual void loadPopulations(std::span<const std::byte> /*in*/) { throw noCheckpoint(); }

  // One step of a decomposed run, the owned cells next to the ghost layers first, so that a halo exchange called
  // right after it can overlap the update of the rest (GPU backends run the two parts on two streams). The default
  // is a plain step.
  virtual void advanceShellFirst(bool forcesOnThisStep) { advance(1, forcesOnThisStep); }

  // Steps that one halo exchange serves in a decomposed run. 1: advanceShellFirst() and an exchange every step.
  // k > 1 (ghost layers k cells deep, the Hopper temporal kernel): advance() of up to k steps, then an exchange of
  // the k-deep layers; the step does not overlap the exchange.
  virtual int stepsPerExchange() const { return 1; }

  // Halo exchange of a decomposed run (domain.ghost set; see kernels/lbm/Halo.h for what crosses a face). The
  // buffers belong to the backend (pinned host memory on a GPU) so that MPI sends and receives them in place.
  // packHalo(face) fills and returns the outgoing data of `face`; the neighbour's data for the ghost plane beyond
  // `face` go into haloInbox(face), and unpackHalo(face) stores them there before the next step.
  virtual std::span<const std::byte> packHalo(int /*face*/) { throw noHalo(); }
  virtual std::span<std::byte> haloInbox(int /*face*/) { throw noHalo(); }
  virtual void unpackHalo(int /*face*/) { throw noHalo(); }

  // The direct transport between GPUs of one node (HaloTransport::Ipc): a rank's pack kernel writes its planes
  // straight into the device inboxes of its neighbours, mapped into its process. Each inbox has two slots, used by
  // alternate exchanges, so a neighbour may write the next exchange's planes while this rank still unpacks the last.
  virtual bool peerHalo() const { return false; }
  // The handle (kHaloHandleBytes) by which the rank beyond `face` maps this rank's inbox of `face`.
  virtual std::vector<std::byte> exportHaloInbox(int /*face*/) { throw noHalo(); }
  // Maps the inbox that this rank's `face` plane goes to (the neighbour's opposite face), from its handle.
  virtual void mapPeerInbox(int /*face*/, std::span<const std::byte> /*handle*/) { throw noHalo(); }
  // Enqueues the pack of `face`'s plane into slot `slot` of the mapped neighbour inbox (after the shell, as
  // packHalo); waitHaloPacks() returns when the packs enqueued so far have landed.
  virtual void packHaloToPeer(int /*face*/, int /*slot*/) { throw noHalo(); }
  virtual void waitHaloPacks() { throw noHalo(); }
  // Enqueues the unpack of slot `slot` of the inbox of `face` into the ghost layer (like unpackHalo).
  virtual void unpackHaloSlot(int /*face*/, int /*slot*/) { throw noHalo(); }

 private:
  std::runtime_error noCheckpoint() const {
    return std::runtime_error(name() + " backend cannot save or load its populations");
  }
  std::runtime_error noHalo() const { return std::runtime_error(name() + " backend cannot run a decomposed domain"); }

  struct FieldSlot {
    std::vector<double> density, velocity;
  };
  std::array<FieldSlot, kFieldSlots> fieldSlots_;
  std::vector<Observables> samples_;
  std::vector<std::vector<std::array<double, 3>>> forceSamples_;
};

std::unique_ptr<LbmBackend> makeCpuBackend(const LbmSetup& setup);

// The CUDA backend for a device plan whose LBM kernels are settled (solvers/lbm/LbmKernelPlanner.h): plan.gpu,
// plan.kernels and plan.lbm; throws when hopsim was built without CUDA.
std::unique_ptr<LbmBackend> makeCudaBackend(const LbmSetup& setup, const DevicePlan& plan);

// Convert the setup's double-precision domain to arithmetic type T.
template <class T>
DomainParams<T> convertDomain(const DomainParams<double>& d) {
  DomainParams<T> out;
  for (int a = 0; a < 3; ++a) {
    out.n[a] = d.n[a];
    out.periodic[a] = d.periodic[a];
    out.origin[a] = d.origin[a];
    out.global[a] = d.global[a];
    out.ghost[2 * a] = d.ghost[2 * a];
    out.ghost[2 * a + 1] = d.ghost[2 * a + 1];
    out.collision.force[a] = static_cast<T>(d.collision.force[a]);
  }
  out.cells = d.cells;
  out.collision.omega = static_cast<T>(d.collision.omega);
  out.collision.omegaMinus = static_cast<T>(d.collision.omegaMinus);
  out.collision.trt = d.collision.trt;
  out.collision.smagorinsky = d.collision.smagorinsky;
  out.collision.smagorinskyC = static_cast<T>(d.collision.smagorinskyC);
  out.collision.trtMagic = static_cast<T>(d.collision.trtMagic);
  out.collision.regularized = d.collision.regularized;
  for (int f = 0; f < 6; ++f) {
    out.face[f].type = d.face[f].type;
    out.face[f].parabolic = d.face[f].parabolic;
    out.face[f].rho = static_cast<T>(d.face[f].rho);
    for (int a = 0; a < 3; ++a) out.face[f].u[a] = static_cast<T>(d.face[f].u[a]);
  }
  return out;
}

}  // namespace hopsim::lbm
