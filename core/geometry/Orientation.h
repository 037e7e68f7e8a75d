// Exact orientation of three points in a plane: the sign tests that voxelisation and mesh checks must never get
// wrong, however close to collinear the points are.
#pragma once

namespace hopsim::geometry {

// Sign of (b - a) x (p - a) for the 2-D points a, b, p, computed exactly for any finite doubles: +1 when p lies to
// the left of the line a -> b, -1 to the right, 0 on it. A floating-point filter answers almost every call; the
// rest are settled in exact expansion arithmetic.
int orient2d(double au, double av, double bu, double bv, double pu, double pv);

}  // namespace hopsim::geometry
