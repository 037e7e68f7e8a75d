// Exact 2-D orientation: a floating-point filter with a proven error bound, else exact expansion arithmetic
// (error-free sums and products, as in Shewchuk's adaptive predicates, without his intermediate stages).
#include "core/geometry/Orientation.h"

#include <array>
#include <cmath>

namespace hopsim::geometry {
namespace {

// x + y == a + b exactly (no overflow assumed); x is the rounded sum.
inline void twoSum(double a, double b, double& x, double& y) {
  x = a + b;
  const double bVirtual = x - a;
  const double aVirtual = x - bVirtual;
  y = (a - aVirtual) + (b - bVirtual);
}

// x + y == a * b exactly; fma returns the rounding error of the product.
inline void twoProduct(double a, double b, double& x, double& y) {
  x = a * b;
  y = std::fma(a, b, -x);
}

// An exact sum of up to 33 doubles kept as a non-overlapping expansion, smallest component first; its sign is the
// sign of its largest non-zero component.
class Expansion {
 public:
  void add(double b) {
    double q = b;
    for (int i = 0; i < n_; ++i) {
      double sum, err;
      twoSum(q, c_[i], sum, err);
      c_[i] = err;
      q = sum;
    }
    c_[n_++] = q;
  }
  int sign() const {
    for (int i = n_ - 1; i >= 0; --i)
      if (c_[i] != 0) return c_[i] > 0 ? 1 : -1;
    return 0;
  }

 private:
  std::array<double, 33> c_{};
  int n_ = 0;
};

// Adds s * (x0 + x1) * (y0 + y1) to e exactly.
void addProduct(Expansion& e, double s, double x0, double x1, double y0, double y1) {
  const double xs[2] = {x0, x1}, ys[2] = {y0, y1};
  for (double x : xs)
    for (double y : ys) {
      double p, err;
      twoProduct(x, y, p, err);
      e.add(s * p);
      e.add(s * err);
    }
}

}  // namespace

int orient2d(double au, double av, double bu, double bv, double pu, double pv) {
  const double left = (bu - au) * (pv - av);
  const double right = (bv - av) * (pu - au);
  const double det = left - right;
  // Shewchuk's bound for this expression is (3 + 16 eps) eps (|left| + |right|) with eps = 2^-53; a slightly larger
  // constant costs nothing.
  const double bound = 3.5e-16 * (std::fabs(left) + std::fabs(right));
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

}  // namespace hopsim::geometry
