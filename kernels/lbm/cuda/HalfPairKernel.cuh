// The FP16-storage two-lattice bulk kernel with two cells per thread (the update itself: HalfPairUpdate.cuh), and
// its launch. Selected for Precision::Half with two lattices; HOPSIM_LBM_HALF_PAIRS=0 selects the one-cell
// bulkStepKernel instead (default 1), so both can be measured in one build. The in-place layout and the other
// storage types keep the one-cell kernel.
//
// Floor and prediction, D3Q19 at 256^3 on an H200 (issue 3; docs/performance.md, "Where the FP16 time goes"):
// - floor: 76 B per cell and step (19 two-byte loads + 19 two-byte stores) over the copy bandwidth: 3,950 GB/s /
//   76 B = ~52,000 MLUPS.
// - one cell per thread (measured, commit e125212): 32,075 MLUPS, 61% of copy. 64 registers, 1,024 resident
//   threads per SM x 19 x 2 B = ~38 KB of loads in flight per SM at most, against ~76 KB for the FP32 kernel
//   (same 64 registers, 4-byte values), which reaches 97.6%.
// - two cells per thread (this kernel; a prediction, not a measurement): the two cells' 38 values in 29 loads (a
//   4-byte __half2 for each of the 9 c_x = 0 populations, two 2-byte loads for each of the 10 others) and 19
//   4-byte stores per thread; 80 registers (ptxas, nvcc 13.0: 24 bytes of spill stores on sm_80, 36-40 on sm_90),
//   768 resident threads per SM x 76 B = ~58 KB in flight, 1.5x the one-cell kernel; the cursor, class byte and
//   store addresses are shared by two cells.
//   Prediction (not measured): ~39,000 MLUPS (75% of copy, +22%), likely range 36,000-43,000. The ncu counters in
//   docs/performance.md show the one-cell FP16 kernel issue-bound (sm__throughput 72.6%, dram 50.6%, 23.4 warp
//   instructions per cell), so the gain comes mainly from fewer instructions per cell: the sm_90 SASS of the pair
//   path has ~216 non-floating-point instructions per cell against ~363 for the one-cell kernel (static; address
//   arithmetic, loads, stores and cursor shared by two cells; the conversions and collide() are unchanged), i.e.
//   ~19% fewer instructions per cell in all -> 32,075 x 1.23 = ~39,500 at the same IPC. The 1.5x bytes in flight
//   help the memory side; the lower occupancy (768 instead of 1,024 threads) can cost some IPC.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "kernels/common/CudaCheck.h"
#include "kernels/lbm/cuda/HalfPairUpdate.cuh"

namespace hopsim::lbm {

// Largest block (the one-cell kernels' kMaxBlockThreads), and the resident blocks of that size asked of the compiler:
// the register cap is 65536 / (256 x blocks).
constexpr int kHalfPairMaxBlockThreads = 256;

// Registers (ptxas, nvcc 13.0, 32- and 64-bit indices): D3Q19 80 (3 blocks, 37.5% occupancy; spill stores 24 bytes on
// sm_80, 36-40 on sm_90; at 64 registers 130-230 bytes), D2Q9 55-64 (4 blocks, no spills), D3Q27 128 (2 blocks, no
// spills). A pair needs the one-cell update's registers plus ~10 for the waiting cell's values, packed two to a
// register.
template <class L>
constexpr int halfPairMinBlocks() {
  if constexpr (L::Q <= 9) return 4;
  else if constexpr (L::Q <= 19) return 3;
  else return 2;
}

// One thread per pair of cells (x, x + 1), x even; blocks of (bx, by) threads along x and y as in LbmKernels.cuh.
// Aligned: nx is even, so every pair starts at an even index (4-byte __half2 accesses; the population arrays must
// start 4-byte aligned, as cudaMalloc's do).
template <class L, bool Aligned, int Terms, class Index>
__global__ void __launch_bounds__(kHalfPairMaxBlockThreads, halfPairMinBlocks<L>())
    bulkPairStepKernel(const __grid_constant__ DomainParams<float> p, const std::uint8_t* __restrict__ cls,
                       const TwoLatticeStep<L, __half, Index> access, const std::uint8_t* __restrict__ wallFlags) {
  const int x = 2 * static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= p.n[0] || y >= p.n[1]) return;
  updateBulkPairOfThread<L, Aligned, Terms>(p, cls, access, x, y, static_cast<int>(blockIdx.z), wallFlags);
}

// The pair kernel's block: as many threads as the one-cell kernel's block (HOPSIM_LBM_BLOCK_THREADS), its x extent
// fitted to the pairs of a row (for nx = 256: 128 x 2 instead of 256 x 1, which would leave half the threads idle).
inline dim3 halfPairBlock(int nx, dim3 cellBlock) {
  const int threads = static_cast<int>(cellBlock.x * cellBlock.y);
  const int pairs = (nx + 1) / 2;
  int bx = 32;
  while (bx < threads && bx < pairs) bx *= 2;
  return dim3(bx, threads / bx, 1);
}

// Launches the bulk step through the pair kernel when it applies to this access (FP16, two lattices) and the plan
// asks for pairs (KernelPlan::halfPairs); returns false when the caller must launch the one-cell kernel.
// `wallFlags`: the cell flags where the wall cells are updated too, else null.
template <class L, class Access, class T>
bool launchBulkPairs(cudaStream_t st, const DomainParams<T>& p, const std::uint8_t* cls, const Access& access,
                     dim3 cellBlock, bool pairs, const std::uint8_t* wallFlags) {
  if constexpr (!IsHalfTwoLattice<Access>::value) {
    return false;
  } else {
    if (!pairs) return false;
    const dim3 block = halfPairBlock(p.n[0], cellBlock);
    const unsigned pairs = static_cast<unsigned>((p.n[0] + 1) / 2);
    const dim3 grid((pairs + block.x - 1) / block.x, (static_cast<unsigned>(p.n[1]) + block.y - 1) / block.y,
                    static_cast<unsigned>(p.n[2]));
    withCollisionTerms(p, [&]<int Terms>() {
      if (p.n[0] % 2 == 0) bulkPairStepKernel<L, true, Terms><<<grid, block, 0, st>>>(p, cls, access, wallFlags);
      else bulkPairStepKernel<L, false, Terms><<<grid, block, 0, st>>>(p, cls, access, wallFlags);
      HOPSIM_CUDA_CHECK_LAUNCH("bulkPairStepKernel");
    });
    return true;
  }
}

}  // namespace hopsim::lbm
