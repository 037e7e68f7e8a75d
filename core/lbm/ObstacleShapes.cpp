#include "core/lbm/ObstacleShapes.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace hopsim::lbm {
namespace {

// Whether axis a is one along which a round shape (circle, sphere, cylinder) is curved.
bool roundAxis(const Obstacle& ob, int a, int dims) {
  if (a >= dims) return false;
  return ob.shape != ShapeKind::Cylinder || a != ob.axis;
}

}  // namespace

bool inside(const Obstacle& ob, const Vec3& p, int dims) {
  if (ob.shape == ShapeKind::Mesh) throw std::logic_error("inside() of a mesh obstacle: voxelise it instead");
  if (ob.shape == ShapeKind::Box) {
    for (int a = 0; a < dims; ++a)
      if (p[a] < ob.min[a] || p[a] > ob.max[a]) return false;
    return true;
  }
  double r2 = 0;
  for (int a = 0; a < 3; ++a)
    if (roundAxis(ob, a, dims)) r2 += (p[a] - ob.center[a]) * (p[a] - ob.center[a]);
  return r2 <= ob.radius * ob.radius;
}

std::optional<double> segmentEntry(const Obstacle& ob, const Vec3& from, const Vec3& to, int dims) {
  if (ob.shape == ShapeKind::Mesh) return geometry::segmentEntry(*ob.mesh, from, to);
  if (ob.shape == ShapeKind::Box) {
    // Slabs: the segment is inside the box between the latest entry into and the earliest exit from each slab.
    double enter = 0, leave = 1;
    for (int a = 0; a < dims; ++a) {
      const double d = to[a] - from[a];
      if (d == 0) {
        if (from[a] < ob.min[a] || from[a] > ob.max[a]) return std::nullopt;
        continue;
      }
      double t0 = (ob.min[a] - from[a]) / d, t1 = (ob.max[a] - from[a]) / d;
      if (t0 > t1) std::swap(t0, t1);
      enter = std::max(enter, t0);
      leave = std::min(leave, t1);
    }
    if (enter > leave) return std::nullopt;
    return enter;
  }
  // |A + t d|^2 = R^2 over the curved axes, A = from - centre: a t^2 + 2 b t + c = 0. The smaller root, written as
  // c / (-b + sqrt(b^2 - a c)) so that it does not cancel when the segment is short against the radius.
  double a = 0, b = 0, c = -ob.radius * ob.radius;
  for (int k = 0; k < 3; ++k) {
    if (!roundAxis(ob, k, dims)) continue;
    const double A = from[k] - ob.center[k], d = to[k] - from[k];
    a += d * d;
    b += A * d;
    c += A * A;
  }
  if (c <= 0) return 0.0;
  const double disc = b * b - a * c;
  if (a == 0 || disc < 0) return std::nullopt;
  const double denominator = -b + std::sqrt(disc);
  if (denominator <= 0) return std::nullopt;  // moving away from the centre: the shape lies behind `from`
  const double t = c / denominator;
  if (t > 1) return std::nullopt;
  return t;
}

}  // namespace hopsim::lbm
