// HOPSIM_HD marks physics functions that CPU loops and CUDA kernels share.
#pragma once

#if defined(__CUDACC__)
#define HOPSIM_HD __host__ __device__ __forceinline__
#else
#define HOPSIM_HD inline __attribute__((always_inline))
#endif

// HOPSIM_HD_NOINLINE marks shared functions of a rare path that a kernel calls rather than inlines, so that its
// registers do not count against the common path's (a call only spills in the lanes that make it).
#if defined(__CUDACC__)
#define HOPSIM_HD_NOINLINE __host__ __device__ __noinline__
#else
#define HOPSIM_HD_NOINLINE __attribute__((noinline))
#endif

// Unrolls the next loop on both compilers; physics loops over lattice directions rely on it.
#if defined(__CUDACC__)
#define HOPSIM_UNROLL _Pragma("unroll")
#else
#define HOPSIM_UNROLL _Pragma("GCC unroll 32")
#endif
