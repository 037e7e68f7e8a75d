// The backend seam of the MD solver: a CPU or CUDA engine that owns the particles while they are advanced.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/DeviceSpec.h"
#include "core/md/MdCase.h"
#include "core/md/ParticleState.h"

namespace hopsim::md {

// Sums over all particles at the current positions; the LAMMPS conventions are applied by Thermo.
struct RawThermo {
  double potential = 0;  // sum of pair energies (each pair once)
  double twoKinetic = 0; // sum m v^2
  double virial = 0;     // sum over pairs of r_ij . f_ij
  bool finite = true;    // false: NaN or infinite energy, virial or force seen
};

// Seconds per phase since the engine was made. NaN means "not measured apart": the CUDA engine runs force and
// integration inside one graph per step, and the list builds the steps call for inside those graphs too, unless
// EngineConfig::timePhases asks it to time them.
struct EngineStats {
  long long neighborBuilds = 0;
  double neighborSeconds = 0, forceSeconds = 0, integrateSeconds = 0, otherSeconds = 0;
  double maxNeighbors = 0, meanNeighbors = 0;
  long long migratedAtoms = 0;  // decomposed runs: atoms this rank handed to a neighbour
  int forceThreadsPerAtom = 0;  // CUDA engines: threads per atom in the force kernel (the last evaluation's)
  // Decomposed runs: host time in the per-step control allreduce and the ghost refresh (a rebuild's traffic counts
  // under neighbour), and the atoms this rank owns now.
  double commSeconds = 0;
  long long ownedAtoms = 0;
  // Decomposed GPU runs: the parts of the rebuild and of the ghost refresh (in every mode: each part ends at a
  // synchronisation the engine makes anyway), to see which one to move or overlap.
  struct DomainPhases {
    // Under neighbour: owned atoms to the host; wrap + migration (its MPI and the check allreduce); bin sort and
    // permutation; borders (ghost selection and their MPI); staging and upload of atoms and ghosts; the list build
    // on the GPU (CUDA events).
    double download = 0, migrate = 0, sort = 0, borders = 0, upload = 0, list = 0;
    // Under comm: remote swaps' GPU pack + copy to the host (ends in a stream synchronisation, so it also waits for
    // the work queued before it); their MPI; queuing their upload + unpack; queuing the self swaps' GPU copies.
    double pack = 0, mpi = 0, unpack = 0, self = 0;
    long long refreshes = 0;  // ghost refreshes between rebuilds
    // Remote swaps between rebuilds GPU to GPU (each rank packs into its neighbour's mapped inbox, CUDA IPC; MPI
    // carries a one-byte token) rather than through pinned host memory and MPI.
    bool peerGhosts = false;
  } domain;
};

// What an engine needs to continue bitwise from where it stands, for checkpoints (solvers/md/MdCheckpoint.h): this
// rank's atoms in the engine's own order (the order of its pair sums), their positions at the last neighbour-list
// build (they decide the next rebuild, and a list built again from them is the same list), the forces of the last
// evaluation (the next step's first kick reads them), the sums thermo() reports, and the Nose-Hoover variables.
// Values are held as doubles: exact for float and double storage alike.
struct EngineState {
  Box box;
  double mass = 1;
  std::size_t atomsInAll = 0;  // over every rank
  std::vector<double> x, y, z, x0, y0, z0, vx, vy, vz, fx, fy, fz;
  std::vector<long long> id;
  double potential = 0, virial = 0, twoKinetic = 0;  // this rank's sums from the last evaluation
  double nhXi = 0, nhTwoKinetic = 0;  // Nose-Hoover friction, and the run's sum m v^2 its next half-step reads
  std::size_t size() const { return x.size(); }
};

// A trajectory frame in host memory, in the engine's order (ids say who is who) and its storage precision, as
// MdEngine::frameCopy() returns it: valid until the next startFrameCopy() of the same slot.
struct HostFrame {
  std::size_t n = 0;
  int valueBytes = 8;                    // 4: positions and velocities are floats, 8: doubles
  std::array<const void*, 3> x{}, v{};   // positions (in [0, L)) and velocities, one array per axis
  const long long* id = nullptr;
  Box box;
  double mass = 1;
};

struct EngineConfig {
  Precision precision = Precision::Double;
  LjSettings lj;
  double skin = 0.3;
  IntegratorSettings integrator;
  bool timePhases = false;  // synchronise between phases to time them (GPU: costs overlap)
  // CUDA engines: threads that sum one atom's neighbour list (1, 2, 4, ..., 32); 0: chosen from the atom count
  // (forceGroupFor in kernels/md/cuda/MdKernels.cuh). The forces differ with it in the order of their sums only.
  int forceThreadsPerAtom = 0;
  // CUDA single-rank engine: list entries reserved per atom at first (0: 96); it grows when a build overflows it. A
  // test makes it short so that the list grows inside the step graphs.
  int initialListStride = 0;
  // Decomposed CUDA engine: rebuild on the host (download, migrate, sort, borders, upload) instead of on the GPU.
  // Both give the same atoms in the same slots; tests compare them, the bench measures what the GPU's saves.
  bool rebuildOnHost = false;
  // Decomposed CUDA engine: how remote ghost positions travel between rebuilds (device.halo): auto takes CUDA IPC
  // where every neighbour is on this node and mapping succeeds, else staged (pinned host memory and MPI).
  HaloTransport ghosts = HaloTransport::Auto;
  // CUDA single-rank engine: Portable, the neighbour-list kernels; Hopper, forces straight from cells in thread
  // block clusters, no list (kernels/md/hopper/CellForces.cu; sm_90 and newer, a box of >= 3 cells of cutoff + skin
  // per axis). Never Auto here: the planner decides (solvers/md/MdSimulation.cpp).
  KernelVariant kernels = KernelVariant::Portable;
  // Hopper path: atoms per brick held in shared memory (0: chosen from the mean density); the rest of a brick is
  // read from global memory. A test makes it small to cover that path.
  int cellTileAtoms = 0;
};

class MdEngine {
 public:
  virtual ~MdEngine() = default;
  // Takes the particles (reordered freely inside), builds the neighbour list and computes forces and energies.
  virtual void initialize(const ParticleState& s) = 0;
  // Advances `steps` steps; the step counter after the last is `firstStep + steps` (keys the Langevin noise).
  // Energies and virial are accumulated on the last step only (they cost a little in the force loop).
  virtual void advance(long long steps, long long firstStep) = 0;
  // Sums at the current state: energies from the last force evaluation, kinetic energy now.
  virtual RawThermo thermo() = 0;
  // Copies particles back (in the engine's current order; ids say who is who).
  virtual void download(ParticleState& s) = 0;
  // Forces at the current positions (for tests), in the order of download().
  virtual void forces(std::vector<double>& fx, std::vector<double>& fy, std::vector<double>& fz) = 0;
  virtual EngineStats stats() const = 0;
  // This rank's part of the state (collective in a decomposed run: every rank calls it).
  virtual void saveState(EngineState& state) = 0;
  // In place of initialize(): takes up a state that saveState() of an engine of the same kind, precision and ranks
  // left, so that the next advance() continues as the engine that saved it would have (collective).
  virtual void restoreState(const EngineState& state) = 0;
  virtual std::string backendName() const = 0;   // "cpu (2 OpenMP threads)", "cuda (NVIDIA H200)"

  // Thermo without a host synchronisation per sample (issue 22): sampleThermo() queues the sums thermo() would
  // return now, readThermo() returns the samples queued since the last read, in order, and forgets them. At most
  // thermoRingCapacity() samples between two reads. The CUDA engine copies the sums into a device-side ring and
  // reads the batch back with one synchronisation; this default takes thermo() at once (the CPU engines, which
  // have nothing to wait for, and the decomposed ones, whose thermo() reduces over the ranks: the reduction stays
  // where the run loop calls it, the same step on every rank).
  virtual void sampleThermo() { sampled_.push_back(thermo()); }
  virtual std::vector<RawThermo> readThermo() { return std::exchange(sampled_, {}); }
  virtual int thermoRingCapacity() const { return 64; }

  // A trajectory frame without stopping the steps: startFrameCopy() takes the current particles into host slot 0
  // or 1 and returns; frameCopy() waits for them (callable from the output writer thread, once the caller has seen
  // startFrameCopy return) and returns them. The CUDA engine copies on a stream of its own into pinned memory; this
  // default downloads at once (collective in a decomposed run, like download(): the main thread calls
  // startFrameCopy, the writer thread only frameCopy).
  virtual void startFrameCopy(int slot) { download(frameSlots_[slot & 1]); }
  virtual HostFrame frameCopy(int slot) {
    const ParticleState& s = frameSlots_[slot & 1];
    HostFrame f;
    f.n = s.size();
    f.valueBytes = 8;
    f.x = {s.x.data(), s.y.data(), s.z.data()};
    f.v = {s.vx.data(), s.vy.data(), s.vz.data()};
    f.id = s.id.data();
    f.box = s.box;
    f.mass = s.mass;
    return f;
  }

 private:
  std::vector<RawThermo> sampled_;
  ParticleState frameSlots_[2];
};

std::unique_ptr<MdEngine> makeCpuEngine(const EngineConfig& config);
// Throws std::runtime_error when hopsim was built without CUDA or no GPU is present.
std::unique_ptr<MdEngine> makeCudaEngine(const EngineConfig& config, int gpu);

}  // namespace hopsim::md
