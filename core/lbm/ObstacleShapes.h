// The obstacle shapes of an LBM case as geometry: which points they contain, and where a segment enters them.
#pragma once

#include <optional>

#include "core/lbm/LbmCase.h"

namespace hopsim::lbm {

// Whether the point p lies inside the obstacle (its surface included). Only the lattice's axes count: a 2-D box
// ignores z. Not for meshes, whose cells are found all at once (geometry::voxelize): throws std::logic_error.
bool inside(const Obstacle& ob, const Vec3& p, int dims);

// Where the segment from `from` (outside the obstacle) to `to` (inside it) enters the obstacle, as the fraction t in
// [0, 1] of the way; nullopt when the segment does not reach it. 0 when `from` is inside already. Only the lattice's
// axes count, as in inside(). For a link of the lattice from a fluid cell's centre to a solid one's, t is the wall
// distance q of interpolated bounce-back.
std::optional<double> segmentEntry(const Obstacle& ob, const Vec3& from, const Vec3& to, int dims);

}  // namespace hopsim::lbm
