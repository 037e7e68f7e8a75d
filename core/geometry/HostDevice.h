// HOPSIM_GEOMETRY_HD marks the geometry functions that the CPU voxeliser and the CUDA one share, so that both run
// the same arithmetic (core/ cannot include kernels/common/HostDevice.h: the layers point down).
#pragma once

#if defined(__CUDACC__)
#define HOPSIM_GEOMETRY_HD __host__ __device__ inline
#else
#define HOPSIM_GEOMETRY_HD inline
#endif
