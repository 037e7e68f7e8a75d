// HOPSIM_HD marks physics functions that CPU loops and CUDA kernels share.
#pragma once

#if defined(__CUDACC__)
#define HOPSIM_HD __host__ __device__ __forceinline__
#else
#define HOPSIM_HD inline
#endif
