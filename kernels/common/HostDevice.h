// HOPSIM_HD marks physics functions that CPU loops and CUDA kernels share.
#pragma once

#if defined(__CUDACC__)
#define HOPSIM_HD __host__ __device__ __forceinline__
#else
#define HOPSIM_HD inline __attribute__((always_inline))
#endif

// Unrolls the next loop on both compilers; physics loops over lattice directions rely on it.
#if defined(__CUDACC__)
#define HOPSIM_UNROLL _Pragma("unroll")
#else
#define HOPSIM_UNROLL _Pragma("GCC unroll 32")
#endif
