// The exact 2-D orientation as an inline function for host and device: geometry::orient2d (Orientation.h) calls
// it, and the CUDA voxeliser runs the same code, so both sides answer every sign test alike. A floating-point
// filter with a proven error bound answers almost every call; the rest are settled in exact expansion arithmetic
// (error-free sums and products, as in Shewchuk's adaptive predicates, without his intermediate stages).
#pragma once

#include <cmath>

#include "core/geometry/HostDevice.h"

namespace hopsim::geometry::exact {

// Library calls spelled once for both compilers: the device's are CUDA's intrinsics, the host's <cmath>. Each is
// exact (rounding to an integer, an absolute value, a fused multiply-add rounded once), so both give the same bits.
HOPSIM_GEOMETRY_HD double ceilOf(double x) {
#if defined(__CUDA_ARCH__)
  return ::ceil(x);
#else
  return std::ceil(x);
#endif
}
HOPSIM_GEOMETRY_HD double floorOf(double x) {
#if defined(__CUDA_ARCH__)
  return ::floor(x);
#else
  return std::floor(x);
#endif
}
HOPSIM_GEOMETRY_HD double absOf(double x) {
#if defined(__CUDA_ARCH__)
  return ::fabs(x);
#else
  return std::fabs(x);
#endif
}
HOPSIM_GEOMETRY_HD double fusedMultiplyAdd(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
  return ::fma(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

// x + y == a + b exactly (no overflow assumed); x is the rounded sum.
HOPSIM_GEOMETRY_HD void twoSum(double a, double b, double& x, double& y) {
  x = a + b;
  const double bVirtual = x - a;
  const double aVirtual = x - bVirtual;
  y = (a - aVirtual) + (b - bVirtual);
}

// x + y == a * b exactly; the fused multiply-add returns the rounding error of the product.
HOPSIM_GEOMETRY_HD void twoProduct(double a, double b, double& x, double& y) {
  x = a * b;
  y = fusedMultiplyAdd(a, b, -x);
}

// An exact sum of up to 33 doubles kept as a non-overlapping expansion, smallest component first; its sign is the
// sign of its largest non-zero component.
struct Expansion {
  double c[33];
  int n = 0;

  HOPSIM_GEOMETRY_HD void add(double b) {
    double q = b;
    for (int i = 0; i < n; ++i) {
      double sum, err;
      twoSum(q, c[i], sum, err);
      c[i] = err;
      q = sum;
    }
    c[n++] = q;
  }
  HOPSIM_GEOMETRY_HD int sign() const {
    for (int i = n - 1; i >= 0; --i)
      if (c[i] != 0) return c[i] > 0 ? 1 : -1;
    return 0;
  }
};

// Adds s * (x0 + x1) * (y0 + y1) to e exactly.
HOPSIM_GEOMETRY_HD void addProduct(Expansion& e, double s, double x0, double x1, double y0, double y1) {
  const double xs[2] = {x0, x1}, ys[2] = {y0, y1};
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      double p, err;
      twoProduct(xs[i], ys[j], p, err);
      e.add(s * p);
      e.add(s * err);
    }
}

// Sign of (b - a) x (p - a): +1 when p lies to the left of a -> b, -1 to the right, 0 on it, exact for any finite
// doubles.
HOPSIM_GEOMETRY_HD int orient2d(double au, double av, double bu, double bv, double pu, double pv) {
  const double left = (bu - au) * (pv - av);
  const double right = (bv - av) * (pu - au);
  const double det = left - right;
  // Shewchuk's bound for this expression is (3 + 16 eps) eps (|left| + |right|) with eps = 2^-53; a slightly larger
  // constant costs nothing.
  const double bound = 3.5e-16 * (absOf(left) + absOf(right));
  if (det > bound) return 1;
  if (-det > bound) return -1;
  if (left == 0 && right == 0) {
    // Both products are zero only when a factor is: exact unless a difference underflowed, which needs subnormals.
    if ((bu == au || pv == av) && (bv == av || pu == au)) return 0;
  }
  double du1, du1e, dv2, dv2e, dv1, dv1e, du2, du2e;
  twoSum(bu, -au, du1, du1e);
  twoSum(pv, -av, dv2, dv2e);
  twoSum(bv, -av, dv1, dv1e);
  twoSum(pu, -au, du2, du2e);
  Expansion e;
  addProduct(e, 1.0, du1, du1e, dv2, dv2e);
  addProduct(e, -1.0, dv1, dv1e, du2, du2e);
  return e.sign();
}

}  // namespace hopsim::geometry::exact
