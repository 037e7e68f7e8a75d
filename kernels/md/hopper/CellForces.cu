// The Hopper MD force path (`device.kernels: hopper`, sm_90): LJ forces straight from cells, with no neighbour list,
// one thread block per brick of cells and a thread block cluster per 2 x 2 x 2 bricks (kernels/md/CellBricks.h).
//
// At a rebuild the engine sorts the atoms by cell key (CellBricks::keyOf, then its radix sort and gathers); a brick's
// atoms are then one contiguous run. Each step the force kernel:
// 1. loads its brick's pair positions into shared memory by one bulk copy of the tensor memory accelerator (TMA,
//    cp.async.bulk on an mbarrier), at most `capacity` atoms (the run's first; the rest stay in global memory);
// 2. waits for the whole cluster (every brick of it loaded);
// 3. for each of its atoms walks the 27 cells around the atom's cell and sums the pairs within the cutoff, reading a
//    neighbour cell's atoms from its own shared memory, from another block of the cluster through distributed
//    shared memory (DSMEM), or from global memory (cells of other clusters, or past a brick's capacity). Each atom
//    sums its own pairs: no atomics, every pair evaluated twice (as the portable full-list kernel does);
// 4. waits for the cluster again before it exits (its shared memory is read by the others until then).
// The periodic image is taken once per neighbour cell (axisNeighbour), not per pair.
//
// Candidates: 27 cells of >= (cutoff + skin)^3 hold ~27 x 19 = 510 atoms at the LJ benchmark density against ~75
// list entries (the portable kernel's), but the candidates come in runs from shared memory and no list is built or
// read (the list build was 2.96 of 7.9 ms per step at 16.4M atoms). Measured on an H200: 0.47x (1M atoms) and 0.57x
// (16.4M) the list kernels' whole step; the kernel issues 3.8x their instructions while moving 8-17x fewer bytes,
// and they were not bound by bytes (docs/performance.md, "A Hopper force path for MD"). `auto` keeps them.
#include "kernels/md/hopper/CellForces.h"

#include <cooperative_groups.h>
#include <cub/block/block_reduce.cuh>

#include <cstdint>

#include "kernels/common/CudaCheck.h"
#include "kernels/common/HopperPtx.cuh"
#include "kernels/md/cuda/PairVec.cuh"

namespace hopsim::md {

namespace {

constexpr int kThreads = 256;

// Registers left to ptxas (48 in float, 64 in double, a few spilled bytes): asking for 4 blocks per SM (56-63
// registers, no spills) measured 17% slower at 1M atoms (1.34 against 1.15 ms; fewer resident warps).
template <class P, class A, bool Energy>
__global__ void __launch_bounds__(kThreads)
    cellForceKernel(const CellForceTarget<P> t, const CellBricks g, const LjCoefficients<P> c, int capacity) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900  // launched on 9.0 and newer only
  using V = typename Vec4<P>::type;
  namespace cg = cooperative_groups;
  const cg::cluster_group cluster = cg::this_cluster();
  extern __shared__ __align__(32) unsigned char tileBytes[];
  __shared__ std::uint64_t tileLoaded;
  __shared__ int firstOf[kClusterBricks];  // the first atom of each brick of this cluster
  V* const tile = reinterpret_cast<V*>(tileBytes);
  const V* __restrict__ pos = static_cast<const V*>(t.pos);
  const int* __restrict__ cellStart = t.cellStart;

  const int brick = static_cast<int>(blockIdx.x);
  const int clusterFirst = brick - brick % kClusterBricks;
  const int first = __ldg(cellStart + static_cast<std::size_t>(brick) * kBrickCells);
  const int last = __ldg(cellStart + static_cast<std::size_t>(brick + 1) * kBrickCells);
  const int inTile = min(last - first, capacity);
  if (threadIdx.x < kClusterBricks)
    firstOf[threadIdx.x] = __ldg(cellStart + static_cast<std::size_t>(clusterFirst + threadIdx.x) * kBrickCells);
  if (threadIdx.x == 0 && inTile > 0) ptx::mbarrierInit(&tileLoaded, 1);
  __syncthreads();  // the barrier is initialised before anyone waits on it
  if (threadIdx.x == 0 && inTile > 0) {
    const auto bytes = static_cast<std::uint32_t>(inTile * sizeof(V));
    ptx::mbarrierArriveExpectTx(&tileLoaded, bytes);
    ptx::bulkLoad(tile, pos + first, bytes, &tileLoaded);
  }
  int b[3];
  g.brickCoords(brick, b);
  const P L[3] = {P(g.length[0]), P(g.length[1]), P(g.length[2])};
  if (inTile > 0)
    while (!ptx::mbarrierTryWait(&tileLoaded, 0)) {
    }
  cluster.sync();  // every brick of the cluster is in shared memory

  // One thread per atom of the brick, each walking the 27 cells around its own (a warp's 32 consecutive atoms share
  // one or two cells). One warp per cell instead, every lane reading the same neighbour atom, measured 1.6x slower:
  // the candidates' instructions bound the kernel, not their loads, and a cell's ~19 atoms leave a third of the lanes
  // idle (docs/performance.md, "A Hopper force path").
  A energy = 0, virial = 0;
  for (int i = first + static_cast<int>(threadIdx.x); i < last; i += kThreads) {
    const V pi = i - first < inTile ? tile[i - first] : pos[i];
    const int local = static_cast<int>(__ldg(t.keys + i) % kBrickCells);
    const int ci[3] = {b[0] * kBrick + local % kBrick, b[1] * kBrick + (local / kBrick) % kBrick,
                       b[2] * kBrick + local / (kBrick * kBrick)};
    PairSums<P, A> sum;
    for (int oz = -1; oz <= 1; ++oz) {
      const AxisNeighbour nz = axisNeighbour(ci[2], oz, g.cells[2]);
      const P hz = pi.z - P(nz.image) * L[2];
      for (int oy = -1; oy <= 1; ++oy) {
        const AxisNeighbour ny = axisNeighbour(ci[1], oy, g.cells[1]);
        const P hy = pi.y - P(ny.image) * L[1];
        for (int ox = -1; ox <= 1; ++ox) {
          const AxisNeighbour nx = axisNeighbour(ci[0], ox, g.cells[0]);
          const P hx = pi.x - P(nx.image) * L[0];
          const unsigned key = g.key(nx.cell, ny.cell, nz.cell);
          const int s = __ldg(cellStart + key), e = __ldg(cellStart + key + 1);
          // The cell's atoms from this block's tile, another block's over DSMEM, or global memory.
          const int owner = static_cast<int>(key / kBrickCells) - clusterFirst;
          const V* from = pos + s;
          if (owner == brick - clusterFirst) {
            if (e - first <= inTile) from = tile + (s - first);
          } else if (owner >= 0 && owner < kClusterBricks && e - firstOf[owner] <= capacity) {
            from = cluster.map_shared_rank(tile, owner) + (s - firstOf[owner]);
          }
#pragma unroll 4
          for (int k = s; k < e; ++k) {
            const V pj = from[k - s];
            if (k != i) addPair(P(hx - pj.x), P(hy - pj.y), P(hz - pj.z), c, Energy, sum);
          }
        }
      }
    }
    t.fx[i] = sum.fx, t.fy[i] = sum.fy, t.fz[i] = sum.fz;
    if (!isfinite(sum.fx) || !isfinite(sum.fy) || !isfinite(sum.fz)) *t.bad = 1;
    energy += sum.energy, virial += sum.virial;
  }
  cluster.sync();  // no block leaves while another may still read its tile

  if constexpr (Energy) {  // every pair was summed from both ends: half of each thread's sums
    using Reduce = cub::BlockReduce<double, kThreads>;
    __shared__ typename Reduce::TempStorage tmp;
    const double be = Reduce(tmp).Sum(0.5 * double(energy));
    __syncthreads();
    const double bw = Reduce(tmp).Sum(0.5 * double(virial));
    if (threadIdx.x == 0) {
      atomicAdd(t.potential, be);
      atomicAdd(t.virial, bw);
    }
  }
#endif
}

}  // namespace

template <class P, class A>
void prepareCellForces(int capacity) {
  const int bytes = static_cast<int>(cellTileBytes<P>(capacity));
  HOPSIM_CUDA_CHECK(cudaFuncSetAttribute(cellForceKernel<P, A, true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         bytes));
  HOPSIM_CUDA_CHECK(cudaFuncSetAttribute(cellForceKernel<P, A, false>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         bytes));
}

template <class P, class A>
void launchCellForces(const CellForceTarget<P>& t, const CellBricks& g, const LjCoefficients<P>& c, int capacity,
                      bool energy, cudaStream_t stream) {
  static_assert(sizeof(typename Vec4<P>::type) == 4 * sizeof(P));
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(static_cast<unsigned>(g.bricks()));
  cfg.blockDim = dim3(kThreads);
  cfg.dynamicSmemBytes = cellTileBytes<P>(capacity);
  cfg.stream = stream;
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = kClusterBricks;
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  if (energy)
    HOPSIM_CUDA_CHECK(cudaLaunchKernelEx(&cfg, cellForceKernel<P, A, true>, t, g, c, capacity));
  else
    HOPSIM_CUDA_CHECK(cudaLaunchKernelEx(&cfg, cellForceKernel<P, A, false>, t, g, c, capacity));
  HOPSIM_CUDA_CHECK_LAUNCH("cellForceKernel");
}

// The engine's precisions: single and mixed pair in float, double in double.
template void prepareCellForces<float, float>(int);
template void prepareCellForces<double, double>(int);
template void launchCellForces<float, float>(const CellForceTarget<float>&, const CellBricks&,
                                             const LjCoefficients<float>&, int, bool, cudaStream_t);
template void launchCellForces<double, double>(const CellForceTarget<double>&, const CellBricks&,
                                               const LjCoefficients<double>&, int, bool, cudaStream_t);

}  // namespace hopsim::md
