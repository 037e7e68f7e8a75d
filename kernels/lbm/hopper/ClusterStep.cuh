// The Hopper (sm_90) bulk step of the LBM: thread block clusters that share their tiles of populations through
// distributed shared memory (DSMEM), tiles loaded by the tensor memory accelerator (TMA) or by plain loads.
//
// What it does (two lattices, one time step per launch, k = 1):
//   - a block owns a tile of Tile::x * Tile::y * Tile::z = 32 x 8 x 1 cells, one thread per cell; a cluster of C
//     blocks (1 x cy x cz tiles, C = 2, 4, 8 or 16) owns a brick of 32 x 8cy x cz cells;
//   - each block copies the Q post-collision populations of its own cells from the source lattice into shared
//     memory, [i][cell] (one 4-D TMA box 32 x 8 x 1 x Q completing on an mbarrier, or Q coalesced plain loads);
//   - cluster.sync(); then every bulk cell pulls population i from x - c_i: from its own tile (shared memory),
//     from a neighbouring block's tile in the same cluster (cluster.map_shared_rank, DSMEM), or from global
//     memory when x - c_i lies outside the cluster's brick or across a periodic wrap;
//   - the same collide() as the portable kernel (CellUpdate.cuh) on the same inputs, the same stores: the
//     result is bitwise the portable kernel's. Boundary cells (next to faces or solids) are not touched here:
//     the portable boundaryStepKernel does them, so every lattice and boundary type works unchanged.
//
// Where the pulls of a D3Q19 cell come from in a large box (test_lbm_hopper_host.cpp's arithmetic): own tile 42.5%;
// DSMEM 25%, 37%, 43%, 46% and global memory (L2) 33%, 21%, 14%, 11% for clusters of 2, 4, 8 (1x1x8) and
// 16 (1x2x8) blocks.
//
// The floor and the prediction (H200, docs/performance.md). A D3Q19 FP32 step moves 152 B per cell (19 populations
// read, 19 written, 4 B each); at the measured copy bandwidth of ~3,950 GB/s that is 3950e9 / 152 = ~26,000 MLUPS.
// The portable kernel already measures 25,319 MLUPS (97.6% of copy): its neighbour re-reads hit L1/L2, so DRAM sees
// each population once. This k = 1 cluster kernel moves the same DRAM bytes, so it shares that floor: it can gain
// at most ~2.5% (the halo reads it takes from shared memory instead of L1/L2), and may lose as much or more to the
// two cluster barriers per block and the load-then-compute phases of each block (overlapped only across the ~4
// resident blocks per SM). Prediction: 24,000-25,500 MLUPS D3Q19 FP32 at 256^3, i.e. parity with portable, and
// no gain for FP16 storage either (the bytes in flight per SM are the same 19 x 2 B x 1024 threads as the
// portable kernel, which is what limits FP16 to ~61% of copy). What the cluster design is for comes next:
//   - temporal blocking, k steps per launch inside a cluster-resident brick with a halo of width k: DRAM bytes per
//     cell-step fall to ~(76 x halo read factor + 76) / k. A 16-block cluster holds ~16 x 200 KB of shared
//     memory; two population copies of FP32 D3Q19 (152 B per cell) fit ~21,000 cells, a 28^3 brick, so k = 2 updates
//     a 24^3 interior from a 28^3 read: (76 x 1.59 + 76) / 2 = ~98 B per cell-step, a floor of ~40,000 MLUPS,
//     predicted ~36,000 (1.4x) if the redundant halo updates and the in-brick barriers stay hidden;
//   - a persistent, pipelined TMA kernel (2-3 tile stages per block) to put more bytes in flight per SM than
//     registers allow, predicted to lift FP16 storage from 61% towards ~90% of copy (~47,000 MLUPS).
// Temporal blocking became its own kernel (TemporalStep.cuh: columns marching along z, levels in shared memory,
// optionally shared across a cluster over DSMEM); the measurements that decide between them are in
// docs/performance.md ("Temporal blocking"). The pipelined TMA kernel is not done.
#pragma once

#include <cooperative_groups.h>
#include <cuda.h>

#include <cstddef>
#include <cstdint>

#include "kernels/common/HopperPtx.cuh"
#include "kernels/lbm/cuda/LbmKernels.cuh"
#include "kernels/lbm/hopper/ClusterGeometry.h"
#include "kernels/lbm/hopper/HopperSupport.h"

namespace hopsim::lbm::hopper {

// Shared memory of the tile (Q populations of Tile::cells cells, stored type) and the alignment TMA wants.
constexpr std::size_t kTileAlign = 128;
template <class L, class S>
constexpr std::size_t tileBytes() {
  return static_cast<std::size_t>(L::Q) * Tile::cells * sizeof(S);
}
template <class L, class S>
constexpr std::size_t clusterSmemBytes() {
  return tileBytes<L, S>() + kTileAlign;  // slack to align the tile by hand
}

// The lattices and storage types the cluster kernel is built for (HopperSupport.h, which the planner asks).
template <class L, class S>
constexpr bool clusterKernelBuilt() {
  return hopperKernelsBuilt(L::kind, PopulationStorage<S>::precision);
}

// How a block fills its tile: Tma = one cp.async.bulk.tensor of a 32 x 8 x 1 x Q box (the tensor map describes the
// source lattice as [Q][nz][ny][nx]); otherwise Q coalesced loads per thread.
//
// Launch: blocks of (Tile::x, Tile::y, Tile::z) threads, grid (ceil(nx/32), ny tiles rounded up to the cluster's
// cy, nz rounded up to cz), cluster dimension (1, cy, cz) as a launch attribute, clusterSmemBytes() of dynamic
// shared memory. Blocks and threads past the domain take part in the barriers and do nothing else.
template <class L, class S, class Index, bool Tma, int Terms>
__global__ void __launch_bounds__(Tile::cells, bulkMinBlocks<L, typename PopulationStorage<S>::Arith>())
    clusterStepKernel(const __grid_constant__ DomainParams<typename PopulationStorage<S>::Arith> p,
                      const __grid_constant__ CUtensorMap map, const std::uint8_t* __restrict__ cls,
                      const S* __restrict__ src, S* __restrict__ dst) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  using Store = PopulationStorage<S>;
  using T = typename Store::Arith;
  const cg::cluster_group cluster = cg::this_cluster();

  extern __shared__ unsigned char smemRaw[];
  __shared__ std::uint64_t tileLoaded;
  // The same offset in every block of the cluster, so map_shared_rank of our tile is the neighbour's tile.
  S* const tile = reinterpret_cast<S*>(
      smemRaw + ((kTileAlign - (ptx::smemAddress(smemRaw) & (kTileAlign - 1))) & (kTileAlign - 1)));

  const int lx = static_cast<int>(threadIdx.x), ly = static_cast<int>(threadIdx.y), lz = static_cast<int>(threadIdx.z);
  const int t = (lz * Tile::y + ly) * Tile::x + lx;
  const int x = static_cast<int>(blockIdx.x) * Tile::x + lx;
  const int y = static_cast<int>(blockIdx.y) * Tile::y + ly;
  const int z = static_cast<int>(blockIdx.z) * Tile::z + lz;
  const bool inside = x < p.n[0] && y < p.n[1] && z < p.n[2];
  const Index n = static_cast<Index>(p.cells);
  const Index self = inside ? (static_cast<Index>(z) * static_cast<Index>(p.n[1]) + static_cast<Index>(y)) *
                                      static_cast<Index>(p.n[0]) +
                                  static_cast<Index>(x)
                            : Index(0);

  // 1. This block's tile of the source lattice into shared memory. Blocks wholly past the domain (padding to whole
  // clusters) load nothing: no cell pulls from them.
  const bool tileInDomain =
      static_cast<int>(blockIdx.y) * Tile::y < p.n[1] && static_cast<int>(blockIdx.z) * Tile::z < p.n[2];
  if constexpr (Tma) {
    if (t == 0 && tileInDomain) {
      ptx::prefetchTensorMap(&map);
      ptx::mbarrierInit(&tileLoaded, 1);
    }
    __syncthreads();  // the barrier is initialised before anyone waits on it
    if (t == 0 && tileInDomain) {
      ptx::mbarrierArriveExpectTx(&tileLoaded, static_cast<std::uint32_t>(tileBytes<L, S>()));
      ptx::tensorLoad4d(tile, &map, static_cast<int>(blockIdx.x) * Tile::x, static_cast<int>(blockIdx.y) * Tile::y,
                        static_cast<int>(blockIdx.z) * Tile::z, 0, &tileLoaded);
    }
  } else {
    if (inside) {
HOPSIM_UNROLL
      for (int i = 0; i < L::Q; ++i) tile[i * Tile::cells + t] = src[static_cast<Index>(i) * n + self];
    }
  }
  const bool bulk = inside && cls[self] == kCellBulk;  // issued while the tile is in flight
  if constexpr (Tma) {
    if (tileInDomain)
      while (!ptx::mbarrierTryWait(&tileLoaded, 0)) {
      }
  }
  cluster.sync();  // every tile of the cluster is loaded (and every block of the cluster is running)

  // 2. Pull: own tile, a neighbour's tile over DSMEM, or global memory outside the brick / across a wrap.
  T f[L::Q];
  if (bulk) {
    const auto c = CellCursor<Index>::make(p, x, y, z);
    const dim3 cbDim = cluster.block_index(), cdDim = cluster.dim_blocks();
    const unsigned cb[3] = {cbDim.x, cbDim.y, cbDim.z}, cd[3] = {cdDim.x, cdDim.y, cdDim.z};
HOPSIM_UNROLL
    for (int i = 0; i < L::Q; ++i) {
      const PullSource from = pullSource<L>(i, p.n, x, y, z, lx, ly, lz, cb, cd);
      if (from.from == PullFrom::Own)
        f[i] = Store::read(tile + i * Tile::cells + from.local);
      else if (from.from == PullFrom::Cluster)
        f[i] = Store::read(cluster.map_shared_rank(tile + i * Tile::cells + from.local, from.rank));
      else
        f[i] = Store::read(src + (static_cast<Index>(i) * n + static_cast<Index>(c.self + c.template offset<L>(i, -1))));
    }
  }
  cluster.barrier_arrive();  // this block has read what it needs of the other tiles

  // 3. Collide and store, exactly as updateBulkCell does.
  if (bulk) {
    T rho, u[3];
    collideWith<L, Terms>(f, p.collision, rho, u);
HOPSIM_UNROLL
    for (int i = 0; i < L::Q; ++i) Store::write(dst + (static_cast<Index>(i) * n + self), f[i]);
  }
  cluster.barrier_wait();  // the tile stays alive until every block of the cluster is done reading it
#endif
}

}  // namespace hopsim::lbm::hopper
