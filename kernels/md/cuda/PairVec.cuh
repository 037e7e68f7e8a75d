// The vector type of the MD kernels' pair positions {x, y, z, unused}: float4, or a 32-byte aligned double4. Shared
// by the portable kernels (MdKernels.cuh) and the Hopper force path (kernels/md/hopper/CellForces.cu).
#pragma once

#include <cuda_runtime.h>

namespace hopsim::md {

template <class P> struct Vec4;
template <> struct Vec4<float> { using type = float4; };
#if CUDART_VERSION >= 13000
template <> struct Vec4<double> { using type = double4_32a; };  // CUDA 13 deprecates the ambiguous double4
#else
template <> struct Vec4<double> { using type = double4; };
#endif

}  // namespace hopsim::md
