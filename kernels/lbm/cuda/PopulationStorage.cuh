// How a shifted population f~ = f - w is kept in memory: as the arithmetic type itself, or as FP16 scaled by a
// power of two (FP32 arithmetic, half the bytes).
#pragma once

#include <cuda_fp16.h>

#include "core/lbm/LbmTypes.h"
#include "kernels/common/HostDevice.h"

namespace hopsim::lbm {

// S: stored type; Arith: the type the physics runs in.
template <class S>
struct PopulationStorage {
  using Arith = S;
  static constexpr Precision precision = sizeof(S) == 4 ? Precision::Single : Precision::Double;
  HOPSIM_HD static Arith read(const S* p) { return *p; }
  HOPSIM_HD static void write(S* p, Arith v) { *p = v; }
};

// FP16 storage, scaled by kHalfStorageScale (core/lbm/LbmTypes.h), as the cpu backend stores it.
template <>
struct PopulationStorage<__half> {
  using Arith = float;
  static constexpr Precision precision = Precision::Half;
  static constexpr float kScale = kHalfStorageScale;
  static constexpr float kInvScale = 1.0f / kHalfStorageScale;
  // decode/encode: the one conversion each way, shared by read/write and the two-cells-per-thread bulk kernel
  // (HalfPairUpdate.cuh), which moves the stored values as __half2 pairs; results are bitwise the same.
  HOPSIM_HD static float decode(__half h) { return __half2float(h) * kInvScale; }
  HOPSIM_HD static __half encode(float v) { return __float2half_rn(v * kScale); }
  HOPSIM_HD static float read(const __half* p) { return decode(*p); }
  HOPSIM_HD static void write(__half* p, float v) { *p = encode(v); }
};

}  // namespace hopsim::lbm
