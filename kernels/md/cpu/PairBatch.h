// One atom's neighbours on the CPU as vector loops over contiguous buffers: the CPU engines' pair arithmetic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/common/CpuFeatures.h"
#include "kernels/md/LjForce.h"

namespace hopsim::md {

// A thread's buffers for the pairs of one atom, `stride` (at least the longest neighbour list) per quantity: per
// neighbour k, the force on the atom (x, y, z) and the pair's energy and virial.
template <class P>
struct PairBuffers {
  explicit PairBuffers(std::size_t stride)
      : storage(5 * stride), x(storage.data()), y(x + stride), z(y + stride), energy(z + stride),
        virial(energy + stride) {}
  PairBuffers(const PairBuffers&) = delete;
  PairBuffers& operator=(const PairBuffers&) = delete;

  std::vector<P> storage;  // the five arrays below
  P* const x;
  P* const y;
  P* const z;
  P* const energy;
  P* const virial;
};

// The pairs of the atom at (xi, yi, zi) with its neighbours nb[0..m) in two passes, so that the arithmetic runs as a
// vector loop: the separations gathered, then the pair forces (branch-free: a pair beyond the cutoff adds zeros; a
// NaN separation, which only a run that has already blown up has, gives NaN forces, which the engines check). Leaves
// in b, for each k: the force on the atom from nb[k] in x(), y(), z(), and with Energy its energy and virial.
template <bool Energy, class S, class P>
[[gnu::always_inline]] inline void pairBatchLoops(S xi, S yi, S zi, const S* x, const S* y, const S* z,
                                                  const std::int32_t* nb, int m, const LjCoefficients<P>& c,
                                                  PairBuffers<P>& b) {
  P* __restrict bx = b.x;
  P* __restrict by = b.y;
  P* __restrict bz = b.z;
  P* __restrict be = b.energy;
  P* __restrict bw = b.virial;
  for (int k = 0; k < m; ++k) {
    const std::int32_t j = nb[k];
    bx[k] = P(xi - x[j]), by[k] = P(yi - y[j]), bz[k] = P(zi - z[j]);
  }
#pragma omp simd
  for (int k = 0; k < m; ++k) {
    const P dx = bx[k], dy = by[k], dz = bz[k];
    const P r2 = dx * dx + dy * dy + dz * dz;
    // All arithmetic unconditional, then weighed by 1 or 0: GCC vectorises that, not a select of computed values
    // (which it will not if-convert while floating-point operations may trap).
    const P keep = r2 < c.cutoffSq ? P(1) : P(0);
    const P f = ljForceOverR(r2, c) * keep;
    bx[k] = dx * f, by[k] = dy * f, bz[k] = dz * f;
    if constexpr (Energy) {
      be[k] = ljEnergy(r2, c) * keep;
      bw[k] = r2 * f;
    }
  }
}

#if HOPSIM_CPU_AVX2_VARIANT
// pairBatchLoops() compiled for AVX2 and FMA, for a build that targets the x86-64 baseline (packages) on a CPU that
// has them: twice the lanes per vector (docs/performance.md, "The MD pair loop in AVX2"). The engines ask no
// bitwise agreement of their pair arithmetic, so the compiler may contract it into FMAs here.
template <bool Energy, class S, class P>
[[gnu::target("avx2,fma")]] void pairBatchAvx2(S xi, S yi, S zi, const S* x, const S* y, const S* z,
                                               const std::int32_t* nb, int m, const LjCoefficients<P>& c,
                                               PairBuffers<P>& b) {
  pairBatchLoops<Energy>(xi, yi, zi, x, y, z, nb, m, c, b);
}
#endif

template <bool Energy, class S, class P>
inline void pairBatch(S xi, S yi, S zi, const S* x, const S* y, const S* z, const std::int32_t* nb, int m,
                      const LjCoefficients<P>& c, PairBuffers<P>& b) {
#if HOPSIM_CPU_AVX2_VARIANT
  if (hasAvx2Fma()) return pairBatchAvx2<Energy>(xi, yi, zi, x, y, z, nb, m, c, b);
#endif
  pairBatchLoops<Energy>(xi, yi, zi, x, y, z, nb, m, c, b);
}

}  // namespace hopsim::md
