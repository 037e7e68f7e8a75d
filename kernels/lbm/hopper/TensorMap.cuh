// Host side of the TMA tile loads: a tiled tensor map over a population array, made by the driver's
// cuTensorMapEncodeTiled, reached through the runtime (cudaGetDriverEntryPointByVersion) so that hopsim needs no
// direct link against a particular driver API version.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernels/common/CudaCheck.h"

namespace hopsim::lbm::hopper {

inline PFN_cuTensorMapEncodeTiled_v12000 tensorMapEncoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    HOPSIM_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || !fn)
      throw std::runtime_error("the CUDA driver offers no cuTensorMapEncodeTiled (needs a CUDA 12 driver or newer)");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  }();
  return encode;
}

// Why a population array of this shape cannot be a TMA tensor, or an empty string when it can: the byte strides
// of the y, z and direction dimensions must be multiples of 16 (and below 2^40).
inline std::string tensorMapRefusal(const int n[3], int q, std::size_t elementBytes) {
  const std::uint64_t s1 = static_cast<std::uint64_t>(n[0]) * elementBytes;
  const std::uint64_t s2 = s1 * static_cast<std::uint64_t>(n[1]);
  const std::uint64_t s3 = s2 * static_cast<std::uint64_t>(n[2]);
  if (s1 % 16 || s2 % 16 || s3 % 16)
    return "the x extent times " + std::to_string(elementBytes) + " bytes is not a multiple of 16 (TMA strides)";
  if (s3 >= (1ull << 40) || q > 256)
    return "the lattice is too large for a TMA tensor";
  return {};
}

// The population array [q][n2][n1][n0] of elementBytes-sized values as a 4-D tensor (x fastest), read in boxes of
// box[0] x box[1] x box[2] cells x all q directions; out-of-range parts of a box read as zero.
inline CUtensorMap populationTensorMap(const void* base, const int n[3], int q, std::size_t elementBytes,
                                       const int box[3]) {
  CUtensorMap map{};
  const CUtensorMapDataType type = elementBytes == 2   ? CU_TENSOR_MAP_DATA_TYPE_UINT16
                                   : elementBytes == 4 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
                                                       : CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
  const cuuint64_t dims[4] = {static_cast<cuuint64_t>(n[0]), static_cast<cuuint64_t>(n[1]),
                              static_cast<cuuint64_t>(n[2]), static_cast<cuuint64_t>(q)};
  const cuuint64_t s1 = static_cast<cuuint64_t>(n[0]) * elementBytes;
  const cuuint64_t strides[3] = {s1, s1 * n[1], s1 * n[1] * n[2]};
  const cuuint32_t boxDim[4] = {static_cast<cuuint32_t>(box[0]), static_cast<cuuint32_t>(box[1]),
                                static_cast<cuuint32_t>(box[2]), static_cast<cuuint32_t>(q)};
  const cuuint32_t elementStrides[4] = {1, 1, 1, 1};
  const CUresult r = tensorMapEncoder()(&map, type, 4, const_cast<void*>(base), dims, strides, boxDim, elementStrides,
                                        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                        CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw std::runtime_error("cuTensorMapEncodeTiled failed (CUresult " + std::to_string(static_cast<int>(r)) +
                             ") for a " + std::to_string(n[0]) + "x" + std::to_string(n[1]) + "x" +
                             std::to_string(n[2]) + "x" + std::to_string(q) + " population tensor");
  return map;
}

}  // namespace hopsim::lbm::hopper
