// The CUDA kernels of the portable LBM backend: thin thread-to-cell wrappers around CellUpdate.cuh.
//
// Launch geometry: blocks of (bx, by) threads along x and y, one block row of z planes per blockIdx.z, so a
// thread finds its cell without a division and consecutive threads touch consecutive cells (coalesced).
#pragma once

#include "kernels/lbm/cuda/CellUpdate.cuh"
#include "kernels/lbm/cuda/HalfPairKernel.cuh"  // FP16 two-lattice bulk step, two cells per thread
#include "kernels/lbm/cuda/L2Prefetch.cuh"
#include "kernels/lbm/Vorticity.h"

namespace hopsim::lbm {

constexpr int kMaxBlockThreads = 256;
static_assert(kMaxBlockThreads == kHalfPairMaxBlockThreads);

constexpr int kBoundaryBlockThreads = 128;

// What the boundary kernel needs besides the population access, passed as a __grid_constant__ parameter: gather()
// takes the domain by reference and indexes its faces at run time, which would otherwise copy it to local memory.
template <class T>
struct BoundaryArgs {
  DomainParams<T> p;
  const std::uint8_t* flags;  // fluid / obstacle k, one byte per cell
  const BoundaryCell* cells;  // the fluid cells that are not bulk
  long long count;
  double* forces;             // 3 per obstacle, or null when this step computes no forces
  OpenFaceMoments<T> open;    // the inlet and outlet face cells' moments of this step, or null values
  const T* q = nullptr;       // curvedStepKernel: Q wall distances per listed cell (LbmSetup::curved)
};

template <class T>
__device__ __forceinline__ bool cellOfThread(const DomainParams<T>& p, int zOffset, int& x, int& y, int& z) {
  x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  z = static_cast<int>(blockIdx.z) + zOffset;
  return x < p.n[0] && y < p.n[1];
}

// Resident blocks of kMaxBlockThreads asked of the compiler for the bulk kernel, i.e. a register cap of
// 65536 / (256 x blocks): 64 registers (50% occupancy) for FP32/FP16 D2Q9 and D3Q19, 80 for D3Q27, 128 for double
// D2Q9/D3Q19; none for double D3Q27 (128 spilled 150-230 bytes). ptxas (nvcc 13.0) then reports no spills except
// 8-16 bytes in the FP32/FP16 D3Q27 in-place odd step.
template <class L, class T>
constexpr int bulkMinBlocks() {
  if constexpr (sizeof(T) == 8) return L::Q > 19 ? 1 : 2;
  else return L::Q > 19 ? 3 : 4;
}

// The hot kernel: every bulk cell of the box and, with two lattices where `wallFlags` is given (the cell flags),
// the wall cells too (other cells return at once; the boundary kernel does them), the cells of the wrapped inlet
// and outlet planes then making their stores through keepFaceCell() where `keep` names their axis (32-bit indices
// only: with 64-bit ones the call's code raised the plain kernel's spills from 16 to 36 bytes in a first form).
// Terms = collisionTerms(p.collision), chosen at launch (see collide()).
// Prefetch: the variant whose blocks first ask L2 for later blocks' reads (two lattices, KernelPlan::prefetchWaves;
// L2Prefetch.cuh); a variant of its own so that the kernel without it runs no test of it (~6 instructions a warp).
template <class L, class Index, int Terms, bool Prefetch = false, class Access, class T>
__global__ void __launch_bounds__(kMaxBlockThreads, bulkMinBlocks<L, T>())
    bulkStepKernel(const __grid_constant__ DomainParams<T> p, const std::uint8_t* __restrict__ cls, const Access access,
                   const std::uint8_t* __restrict__ wallFlags, const __grid_constant__ OpenFaceMoments<T> keep) {
  if constexpr (Prefetch) {
    static_assert(IsTwoLattice<Access>::value, "the L2 prefetch is built for two lattices");
    prefetchBlockAhead(p, access, cls);
  }
  int x, y, z;
  if (!cellOfThread(p, 0, x, y, z)) return;
  const auto c = CellCursor<Index>::make(p, x, y, z);
  const std::uint8_t k = cls[c.self];
  if constexpr (IsTwoLattice<Access>::value) {
    if (wallFlags) {
      if (k == kCellBulk || isWallCell(k)) {
        if constexpr (sizeof(Index) == 4)
          updateCellWithWalls<L, Terms, false, NoSink, true>(p, wallFlags, access, c, k, {}, {}, keep);
        else
          updateCellWithWalls<L, Terms>(p, wallFlags, access, c, k);
      }
      return;
    }
  }
  if (k != kCellBulk) return;
  updateBulkCell<L, Terms>(p, access, c);
}

// The bulk kernel's pass with two lattices over the bulk, wall and boundary cells: the inlet and outlet face cells
// too, whose ghost links read the face cells' moments of the step `open` (openMomentsKernel, launched before it).
// A kernel of its own so that the bulk kernels' code does not change; compiled for FP32 storage on 3-D lattices,
// and run only when asked (KernelPlan::openInBulk: it measured slower than the boundary kernel beside the bulk one).
template <class L, class Index, int Terms, class Access, class T>
__global__ void __launch_bounds__(kMaxBlockThreads, bulkMinBlocks<L, T>())
    bulkFacesKernel(const __grid_constant__ DomainParams<T> p, const std::uint8_t* __restrict__ cls,
                    const Access access, const std::uint8_t* __restrict__ flags,
                    const __grid_constant__ OpenFaceMoments<T> open) {
  int x, y, z;
  if (!cellOfThread(p, 0, x, y, z)) return;
  const auto c = CellCursor<Index>::make(p, x, y, z);
  const std::uint8_t k = cls[c.self];
  if (k == kCellBulk || isWallCell(k) || k == kCellBoundary)
    updateCellWithWalls<L, Terms, true>(p, flags, access, c, k, open);
}

// The list kernels below (boundary, curved, face moments) take one listed cell per thread, or, launched with fewer
// blocks than that (CudaLbm::listBlocks, KernelPlan::sideBlocks), every (blocks x threads)-th cell from their first.
__device__ __forceinline__ long long firstListed() {
  return static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ long long listStride() { return static_cast<long long>(gridDim.x) * blockDim.x; }

// The fluid cells next to a face or a solid cell, from a list (64-bit indices: few cells, one instantiation).
template <class L, class Access, class T>
__global__ void __launch_bounds__(kBoundaryBlockThreads)
    boundaryStepKernel(const __grid_constant__ BoundaryArgs<T> args, const Access access) {
  for (long long k = firstListed(); k < args.count; k += listStride()) {
    const BoundaryCell b = args.cells[k];
    const auto c = CellCursor<unsigned long long>::make(args.p, b.x, b.y, b.z);
    updateBoundaryCell<L>(args.p, args.flags, access, c, args.forces, args.open);
  }
}

// The fluid cells with links into obstacles with interpolated bounce-back, from a list whose k-th cell has the wall
// distances q[Q k .. Q k + Q) (two lattices only).
template <class L, class Access, class T>
__global__ void __launch_bounds__(kBoundaryBlockThreads)
    curvedStepKernel(const __grid_constant__ BoundaryArgs<T> args, const Access access) {
  for (long long k = firstListed(); k < args.count; k += listStride()) {
    const BoundaryCell b = args.cells[k];
    const auto c = CellCursor<unsigned long long>::make(args.p, b.x, b.y, b.z);
    updateBoundaryCell<L, true>(args.p, args.flags, access, c, args.forces, args.open, args.q + L::Q * k);
  }
}

// The moments of the inlet and outlet face cells that this step's ghost nodes read (storeOpenMoments), before the
// boundary kernel of the same step.
template <class L, class S, class T>
__global__ void __launch_bounds__(kBoundaryBlockThreads)
    openMomentsKernel(const __grid_constant__ DomainParams<T> p, const std::uint8_t* __restrict__ flags,
                      const TwoLatticeStep<L, S, unsigned long long> access,
                      const __grid_constant__ OpenFaceMoments<T> open) {
  for (long long k = firstListed(); k < open.slots; k += listStride()) storeOpenMoments<L>(p, flags, access, open, k);
}

// After openMomentsKernel: every slot's ghost values into the opposite face's cells (wrapOpenGhosts(); where
// `open.displaced`, what their slots held kept there).
template <class L, class S, class T>
__global__ void __launch_bounds__(kBoundaryBlockThreads)
    wrapGhostsKernel(const __grid_constant__ DomainParams<T> p, const __grid_constant__ OpenFaceMoments<T> open, S* src,
                     unsigned long long n) {
  for (long long k = firstListed(); k < open.slots; k += listStride()) wrapOpenGhosts<L>(p, open, src, n, k);
}

// Before the state is read as populations: the displaced populations of the wrapped faces' cells put back
// (restoreDisplaced()).
template <class L, class S, class T>
__global__ void __launch_bounds__(kBoundaryBlockThreads)
    restoreDisplacedKernel(const __grid_constant__ DomainParams<T> p, const __grid_constant__ OpenFaceMoments<T> open,
                           S* f, unsigned long long n) {
  for (long long k = firstListed(); k < open.slots; k += listStride()) restoreDisplaced<L>(p, open, f, n, k);
}

template <class L, class Index, class T>
__global__ void __launch_bounds__(kMaxBlockThreads)
    classifyKernel(const __grid_constant__ DomainParams<T> p, const std::uint8_t* flags, std::uint8_t* cls,
                   unsigned wrapped) {
  int x, y, z;
  if (!cellOfThread(p, 0, x, y, z)) return;
  const auto c = CellCursor<Index>::make(p, x, y, z);
  cls[c.self] = classifyCell<L>(p, flags, c, wrapped);
}

// Initial equilibrium for the z planes [zOffset, zOffset + gridDim.z); rho and u (3 per cell) start at zOffset.
template <class L, class Index, class View, class T>
__global__ void __launch_bounds__(kMaxBlockThreads)
    initKernel(const __grid_constant__ DomainParams<T> p, const View view, int zOffset, const T* rho, const T* u) {
  int x, y, z;
  if (!cellOfThread(p, zOffset, x, y, z)) return;
  const auto c = CellCursor<Index>::make(p, x, y, z);
  const Index local = c.self - static_cast<Index>(zOffset) * static_cast<Index>(p.n[0]) * static_cast<Index>(p.n[1]);
  const T u0[3] = {u[3 * local], u[3 * local + 1], u[3 * local + 2]};
  initCell<L>(p, view, c, rho[local], u0);
}

// Density and velocity of the owned cells (solid cells: 1 and 0) into rho and u (3 per cell), packed: the owned
// block x fastest, ghost layers left out, so that the host copies one contiguous block per field.
template <class L, class Index, class View, class T>
__global__ void __launch_bounds__(kMaxBlockThreads)
    fieldsKernel(const __grid_constant__ DomainParams<T> p, const View view, const std::uint8_t* flags, T* rho, T* u) {
  int x, y, z;
  if (!cellOfThread(p, 0, x, y, z) || !p.owns(x, y, z)) return;
  const auto c = CellCursor<Index>::make(p, x, y, z);
  T drho = T(0), r = T(1), v[3] = {T(0), T(0), T(0)};
  if (flags[c.self] == kFluid) cellMoments<L>(p, view, c, drho, r, v);
  const long long mx = p.ownHi(0) - p.ownLo(0), my = p.ownHi(1) - p.ownLo(1);
  const long long o = ((z - p.ownLo(2)) * my + (y - p.ownLo(1))) * mx + (x - p.ownLo(0));
  rho[o] = r;
  u[3 * o] = v[0];
  u[3 * o + 1] = v[1];
  u[3 * o + 2] = v[2];
}

// The observables folded over cells: sum (rho - 1), sum rho u^2/2, max u^2 (the square of the speed: its root is
// taken once, on the host; the root of the largest square is the largest root, bitwise, the root being correctly
// rounded and monotonic), fluid cells, sum |curl u|^2 / 2. Index kMaxObservable is a maximum, the others sums.
constexpr int kObservables = 5;
constexpr int kMaxObservable = 2;
constexpr int kFluidCellsObservable = 3;
constexpr int kEnstrophyObservable = 4;

// Folds b into a, observable k: the maximum by fmax, the others by addition; V is float or double.
template <class V>
__device__ __forceinline__ V foldObservable(int k, V a, V b) {
  if constexpr (std::is_same_v<V, float>) return k == kMaxObservable ? fmaxf(a, b) : a + b;
  else return k == kMaxObservable ? fmax(a, b) : a + b;
}

// Observable k of lanes [0, 2 x first) of the warp folded into lane 0 by shuffles, in a fixed order.
template <class V>
__device__ __forceinline__ V foldWarp(int k, V w, int first = 16) {
  for (int offset = first; offset > 0; offset /= 2)
    w = foldObservable(k, w, __shfl_down_sync(0xffffffffu, w, offset));
  return w;
}

// Folds the threads' observables `v` over the block, in a fixed order (deterministic), into partials[kObservables x
// block]: each warp by shuffles in the values' type V, then warp 0 over the warps' results in `scratch` (shared memory,
// kObservables x warps, doubles), with one barrier; warp 0's folds take three steps (8 warps at most: 0 is neutral for
// the lanes beyond, so the steps of 16 and 8 lanes would change nothing), the block's other warps having left. Cells
// are summed in their arithmetic type (a single-precision run's warps in float: half the shuffles of doubles and no
// conversions per cell; a warp's sum carries five roundings of 2^-24 of its magnitudes' sum at most), blocks and the
// grid in double. Blocks of whole warps (the kernels' blocks have 64, 128 or 256 threads); every thread of the block
// calls it. Cells: v holds the thread's cell's values; the fluid cells are counted from `fluid` by the barrier itself,
// not shuffled, and the enstrophy is folded only where `enstrophy` (0 otherwise). Otherwise v holds partials, all five
// folded (`fluid` and `enstrophy` unused).
template <bool Cells, class V>
__device__ inline void reduceBlockObservables(V v[kObservables], bool fluid, bool enstrophy, double* scratch,
                                              double* partials) {
  const int t = static_cast<int>(threadIdx.y * blockDim.x + threadIdx.x);
  const int warps = static_cast<int>(blockDim.x * blockDim.y) / 32;
  const int lane = t % 32, warp = t / 32;
  const long long block = (static_cast<long long>(blockIdx.z) * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  bool folded[kObservables];
#pragma unroll
  for (int k = 0; k < kObservables; ++k)
    folded[k] = !Cells || (k != kFluidCellsObservable && (k != kEnstrophyObservable || enstrophy));
#pragma unroll
  for (int k = 0; k < kObservables; ++k) {
    if (!folded[k]) continue;
    v[k] = foldWarp(k, v[k]);
    if (lane == 0) scratch[k * warps + warp] = double(v[k]);
  }
  const int fluidCells = __syncthreads_count(fluid);
  if (warp != 0) return;
  double w[kObservables];
#pragma unroll
  for (int k = 0; k < kObservables; ++k)
    if (folded[k]) w[k] = foldWarp(k, lane < warps ? scratch[k * warps + lane] : 0.0, kMaxBlockThreads / 64);
  if (lane != 0) return;
#pragma unroll
  for (int k = 0; k < kObservables; ++k) partials[kObservables * block + k] = folded[k] ? w[k] : 0.0;
  if (Cells) partials[kObservables * block + kFluidCellsObservable] = fluidCells;
}

// |curl u|^2 / 2 at the fluid cell `c` with velocity u (Vorticity.h), from the moments of its axis neighbours that
// are fluid (`flags`: every cell of the box, ghost cells included), each computed here from its populations: the
// sample reads them again instead of keeping a velocity field the size of the lattice.
template <class L, class Index, class View, class T>
__device__ double cellHalfVorticitySquared(const DomainParams<T>& p, const View& view, const std::uint8_t* flags,
                                           const CellCursor<Index>& c, const T u[3]) {
  double g[3][3] = {};
  for (int a = 0; a < L::D; ++a) {
    T side[2][3];
    bool there[2];
    for (int s = 0; s < 2; ++s) {
      there[s] = !(c.outside & (1u << (2 * a + s)));
      if (!there[s]) continue;
      int q[3] = {c.pos[0], c.pos[1], c.pos[2]};
      q[a] = s ? (q[a] + 1 < p.n[a] ? q[a] + 1 : 0) : (q[a] > 0 ? q[a] - 1 : p.n[a] - 1);
      const auto nb = CellCursor<Index>::make(p, q[0], q[1], q[2]);
      there[s] = flags[nb.self] == kFluid;
      if (!there[s]) continue;
      T drho, rho;
      cellMoments<L>(p, view, nb, drho, rho, side[s]);
    }
    axisGradient(a, u, there[0] ? side[0] : nullptr, there[1] ? side[1] : nullptr, g);
  }
  return halfVorticitySquared(g);
}

// One fluid cell's sums and maximum, v[0..2], from its density deviation drho, density rho = 1 + drho and
// velocity.
template <class T>
__device__ __forceinline__ void cellObservables(T drho, T rho, const T u[3], T v[kObservables]) {
  const T u2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  v[0] = drho;
  v[1] = T(0.5) * rho * u2;
  v[2] = u2;
}

// One fluid cell's sums and maximum, v[0..2], from its stored post-collision populations f as the state holds them
// (read back); u: its velocity. The observables kernel sums through here.
template <class L, class T>
__device__ __forceinline__ void cellObservables(const DomainParams<T>& p, const T (&f)[L::Q], T u[3],
                                                T v[kObservables]) {
  // The moments as moments<L>() sums them, but without its products by the zero velocity components (they add
  // +-0: the same sums but for the sign of an exact zero, which u^2 does not see) and with +-f for the others; the
  // loops unrolled, the branches are on constants. Summing rho - 1 keeps the mass balance accurate to round-off of
  // the deviations, not of 1 (as the CPU does).
  T drho = T(0), j[3] = {T(0), T(0), T(0)};
HOPSIM_UNROLL
  for (int i = 0; i < L::Q; ++i) {
    drho += f[i];
HOPSIM_UNROLL
    for (int a = 0; a < 3; ++a) {
      if (L::c(i, a) > 0) j[a] += f[i];
      else if (L::c(i, a) < 0) j[a] -= f[i];
    }
  }
  const T rho = T(1) + drho;
  const T inv = T(1) / rho;
  const T* F = p.collision.force;
  u[0] = (j[0] - T(0.5) * F[0]) * inv;
  u[1] = (j[1] - T(0.5) * F[1]) * inv;
  u[2] = (j[2] - T(0.5) * F[2]) * inv;
  cellObservables(drho, rho, u, v);
}

// cellObservables() of the cell `c` of the state `view` (its populations read back).
template <class L, class Index, class View, class T>
__device__ __forceinline__ void storedCellObservables(const DomainParams<T>& p, const View& view,
                                                      const CellCursor<Index>& c, T u[3], T v[kObservables]) {
  T f[L::Q];
HOPSIM_UNROLL
  for (int i = 0; i < L::Q; ++i) f[i] = view.read(i, c);
  cellObservables<L>(p, f, u, v);
}

// Per-block partial sums of the observables of the current state (reduceBlockObservables). `ownedFlags` marks the
// owned fluid cells, `flags` every fluid cell of the box; `vorticity` false (the enstrophy cannot be known) leaves
// the enstrophy 0.
template <class L, class Index, class View, class T>
__global__ void __launch_bounds__(kMaxBlockThreads)
    observablesKernel(const __grid_constant__ DomainParams<T> p, const View view, const std::uint8_t* ownedFlags,
                      const std::uint8_t* flags, bool vorticity, double* partials) {
  __shared__ double scratch[kObservables * kMaxBlockThreads / 32];
  T v[kObservables] = {0, 0, 0, 0, 0};
  bool fluid = false;
  int x, y, z;
  if (cellOfThread(p, 0, x, y, z)) {
    const auto c = CellCursor<Index>::make(p, x, y, z);
    fluid = ownedFlags[c.self] == kFluid;
    if (fluid) {
      T u[3];
      storedCellObservables<L>(p, view, c, u, v);
      if (vorticity) v[kEnstrophyObservable] = T(cellHalfVorticitySquared<L>(p, view, flags, c, u));
    }
  }
  reduceBlockObservables<true>(v, fluid, vorticity, scratch, partials);
}

// The sampled step's sink (updateBulkCell, updateCellWithWalls): a cell's observables from the density and
// velocity its collision computed. Equal in exact arithmetic to the moments of the post-collision populations that
// the observables kernel reads back (the collision conserves the mass and adds F to the momentum, u = (j - F/2) /
// rho of the stored populations), and to round-off with FP32 storage, the one the sampled step is compiled for (with
// FP16 storage the stored populations would differ by their rounding); the mass to the rounding of 1 + drho
// (2^-24 per cell, without bias). The moments recomputed from the populations cost the sampled step instructions
// after its stores (docs/performance.md, issue 22).
template <class T>
struct ObservablesSink {
  T* v;  // kObservables
  __device__ __forceinline__ void operator()(T rho, const T* u) const { cellObservables(rho - T(1), rho, u, v); }
};

// bulkStepKernel with two lattices, and the sample of the state the step leaves (CudaLbm::advanceSampled): the
// per-block partials of observablesKernel over the same grid, without its pass over the populations. The cells
// this kernel updates are summed from their collisions' density and velocity once their stores are issued
// (ObservablesSink); the other owned fluid cells (the boundary and curved cells of the step, whose kernels ran before
// this one) are read back from the new state. The same cells in the same threads and the same fold: the partials of
// observablesKernel after the step to round-off (the enstrophy apart, which needs the neighbours and is sampled by
// observablesKernel). A kernel of its own: sums in the plain kernel cost its steps registers and 2-5% even where
// they never ran (docs/performance.md). FP32 storage only (PortableBulk): the storage type is the arithmetic type.
template <class L, class Index, int Terms, class S, class T>
__global__ void __launch_bounds__(kMaxBlockThreads, bulkMinBlocks<L, T>())
    bulkSampleKernel(const __grid_constant__ DomainParams<T> p, const std::uint8_t* __restrict__ cls,
                     const TwoLatticeStep<L, S, Index> access, const std::uint8_t* __restrict__ wallFlags,
                     const std::uint8_t* __restrict__ ownedFlags, double* partials) {
  static_assert(std::is_same_v<S, T>, "the sampled step sums the collisions' moments: storage in the arithmetic type");
  __shared__ double scratch[kObservables * kMaxBlockThreads / 32];
  T v[kObservables] = {0, 0, 0, 0, 0};
  bool fluid = false;
  int x, y, z;
  if (cellOfThread(p, 0, x, y, z)) {
    const auto c = CellCursor<Index>::make(p, x, y, z);
    const std::uint8_t k = cls[c.self];
    const ObservablesSink<T> sink{v};
    fluid = true;
    if (wallFlags && (k == kCellBulk || isWallCell(k))) {
      updateCellWithWalls<L, Terms, false>(p, wallFlags, access, c, k, {}, sink);
    } else if (!wallFlags && k == kCellBulk) {
      updateBulkCell<L, Terms>(p, access, c, sink);
    } else {
      fluid = ownedFlags[c.self] == kFluid;
      if (fluid) {
        T u[3];
        storedCellObservables<L>(p, StateView<L, S, Index>{access.dst, access.n, -1}, c, u, v);
      }
    }
  }
  reduceBlockObservables<true>(v, fluid, false, scratch, partials);
}

// Partials folded by one block of foldPartialsKernel's first level (foldObservables): a sample of a 256^3 box
// (65,536 blocks of partials) folds in 128 blocks, then one: 6.9 us on the H200, against 13 us in 16 blocks of
// 4,096 (docs/performance.md). (One block over all of them was a latency-bound loop: 0.05 ms of a sample's 0.42 ms.)
constexpr long long kPartialsPerFold = 512;

// Block (b, s) folds partials [b x per, (b + 1) x per) of the `count` of sample s (threads stride over them in a
// fixed order, then reduceBlockObservables) into out[kObservables x (s x gridDim.x + b)]: the samples' partials
// follow each other, `count` each, and so do their results. Internal linkage: every lattice's translation unit has
// its own copy.
static __global__ void __launch_bounds__(kMaxBlockThreads)
    foldPartialsKernel(const double* partials, long long count, long long per, double* out) {
  __shared__ double scratch[kObservables * kMaxBlockThreads / 32];
  partials += static_cast<long long>(blockIdx.y) * kObservables * count;
  const long long first = static_cast<long long>(blockIdx.x) * per;
  const long long last = first + per < count ? first + per : count;
  double v[kObservables] = {0, 0, 0, 0, 0};
  for (long long b = first + threadIdx.x; b < last; b += blockDim.x)
    for (int k = 0; k < kObservables; ++k) v[k] = foldObservable(k, v[k], partials[kObservables * b + k]);
  reduceBlockObservables<false>(v, false, false, scratch, out);
}

}  // namespace hopsim::lbm
