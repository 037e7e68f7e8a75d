// PTX of the Hopper (sm_90) asynchronous copies shared by the LBM cluster kernels and the MD cell force kernel: the
// bulk copies of the tensor memory accelerator (TMA) and the mbarrier they complete on. Bodies are compiled for
// sm_90 and newer only; on older targets they do nothing (the kernels that call them are launched on sm_90 only).
#pragma once

#include <cuda.h>

#include <cstdint>

namespace hopsim {

namespace ptx {

__device__ __forceinline__ std::uint32_t smemAddress(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbarrierInit(std::uint64_t* bar, std::uint32_t arrivals) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smemAddress(bar)), "r"(arrivals) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}

__device__ __forceinline__ void mbarrierArriveExpectTx(std::uint64_t* bar, std::uint32_t bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smemAddress(bar)), "r"(bytes)
               : "memory");
#endif
}

__device__ __forceinline__ bool mbarrierTryWait(std::uint64_t* bar, std::uint32_t parity) {
  std::uint32_t done = 1;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(done)
      : "r"(smemAddress(bar)), "r"(parity)
      : "memory");
#endif
  return done != 0;
}

// `bytes` (a multiple of 16, both addresses 16-byte aligned) from global memory into this block's shared memory, one
// 1-D bulk copy by the TMA; completes `bytes` on the mbarrier.
__device__ __forceinline__ void bulkLoad(void* dst, const void* src, std::uint32_t bytes, std::uint64_t* bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   smemAddress(dst)),
               "l"(reinterpret_cast<std::uint64_t>(src)), "r"(bytes), "r"(smemAddress(bar))
               : "memory");
#endif
}

// One 4-D box of the tensor map into this block's shared memory; completes `bytes` on the mbarrier.
__device__ __forceinline__ void tensorLoad4d(void* dst, const CUtensorMap* map, int c0, int c1, int c2, int c3,
                                             std::uint64_t* bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], "
      "[%6];" ::"r"(smemAddress(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(smemAddress(bar))
      : "memory");
#endif
}

__device__ __forceinline__ void prefetchTensorMap(const CUtensorMap* map) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<std::uint64_t>(map)) : "memory");
#endif
}

}  // namespace ptx

}  // namespace hopsim
