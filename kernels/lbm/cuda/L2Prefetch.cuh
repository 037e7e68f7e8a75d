// L2 prefetch for the portable bulk kernel, one cell per thread (KernelPlan::prefetchWaves; HOPSIM_LBM_PREFETCH_WAVES).
// Not in the FP16 pair kernel: inlined there, the prefetch's values cost it 16-24 bytes more of spill stack (ptxas,
// sm_90, 40-48 -> 64-72), and out of line every thread stored the call's 24 bytes of arguments.
//
// Why: the bulk kernel with FP16 storage on the 3-D cavity runs at 0.67 of the copy bandwidth where the FP32 one runs
// at 0.96-0.97 (docs/performance.md, "L2 prefetch ahead of the bulk kernel's blocks"): a thread keeps 19 two-byte
// loads in flight instead of 19 four-byte ones, its 61 registers allow no more threads, and ncu found it at neither
// limit (H200: 475 us a step for 1.27 GB, 0.68 of the copy bandwidth; 330 M warp instructions, about two thirds of
// the issue slots; 40% of the warps active) but waiting on its loads. A prefetch has no destination register: one
// thread can ask L2 for the whole footprint of blocks that start later, whose loads then wait on L2 instead of DRAM.
//
// Where to: blocks are dispatched in launch order, and one that ends is replaced by the next not yet started, so the
// block `ahead` = waves x (resident blocks) x (cells per block) cells further on starts about `waves` block lifetimes
// from now. Its reads are its cells' class bytes and, for each population i, the run of array i its cells pull from
// (the cells at -c_i). The host sets `ahead` (TwoLatticeStep::ahead, PortableBulk); 0 turns it off.
#pragma once

#include <cstdint>

#include "kernels/lbm/BoundaryParams.h"
#include "kernels/lbm/cuda/StreamingAccess.cuh"

namespace hopsim::lbm {

// Asks L2 for `bytes` bytes (a multiple of 16) from `at` rounded down to 16 bytes: one bulk prefetch on sm_90 (its
// alignment), a line at a time on sm_80. A hint: nothing waits for it and it changes no value; the bytes must lie in
// global memory.
__device__ __forceinline__ void prefetchL2(const void* at, unsigned bytes) {
#if __CUDA_ARCH__ >= 900
  const std::uint64_t from = __cvta_generic_to_global(at) & ~std::uint64_t(15);
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(from), "r"(bytes));
#else
  for (unsigned o = 0; o < bytes; o += 128) asm volatile("prefetch.L2 [%0];" ::"l"(static_cast<const char*>(at) + o));
#endif
}

// Blocks that share one prefetch: the first of every kPrefetchGroup blocks in launch order asks for all of theirs.
// A block's cells are one run of consecutive cells (a row segment, or whole rows where the block is wider than the
// box), so consecutive blocks make one run too and a prefetch per population covers the group: the issue cost (~265
// uniform-datapath instructions for the 20 runs of D3Q19, SASS for sm_90) is shared by 8 blocks, ~1% of their
// instructions instead of ~10%.
constexpr int kPrefetchGroup = 8;

// Called by every thread of the bulk kernel's block (its Prefetch variant); thread (0, 0) of the first block of each
// group asks L2 for what the group's blocks `a.ahead` cells further on will read. A group's run is taken as
// kPrefetchGroup x bx x by cells from the block's first (blocks that end short of a row's end, or are wider than the
// box, make it reach a little beyond the group: the next blocks' data). One range check for all its runs (the pulls
// reach a plane, a row and a cell either way; the rounding to 16 bytes adds at most 32 bytes): a group whose runs
// would not all lie inside the arrays is left out, which only the first and last planes' worth of blocks can be.
template <class L, class S, class Index, class T>
__device__ __forceinline__ void prefetchBlockAhead(const DomainParams<T>& p, const TwoLatticeStep<L, S, Index>& a,
                                                   const std::uint8_t* cls) {
  if (a.ahead == 0 || threadIdx.x != 0 || threadIdx.y != 0) return;
  if ((blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z)) % kPrefetchGroup != 0) return;
  const long long nx = p.n[0], plane = nx * p.n[1], cells = static_cast<long long>(a.n);
  const long long first = static_cast<long long>(blockIdx.x) * blockDim.x +
                          nx * (static_cast<long long>(blockIdx.y) * blockDim.y) + plane * blockIdx.z +
                          static_cast<long long>(a.ahead);
  const long long width = static_cast<long long>(kPrefetchGroup) * blockDim.x * blockDim.y;
  const long long reach = plane + nx + 1 + 32;
  if (first < reach || first + width + reach > cells) return;
  prefetchL2(cls + first, static_cast<unsigned>(width + 31) & ~15u);
  const unsigned bytes = (static_cast<unsigned>(width * sizeof(S)) + 31) & ~15u;  // the run and its rounding
  const S* const at = a.src + first;
HOPSIM_UNROLL
  for (int i = 0; i < L::Q; ++i)
    prefetchL2(at + (static_cast<long long>(i) * cells - L::c(i, 0) - nx * L::c(i, 1) - plane * L::c(i, 2)), bytes);
}

}  // namespace hopsim::lbm
