// Minimum-image displacements and wrapping in an orthogonal periodic box, shared by CPU and CUDA.
#pragma once

#include "kernels/common/HostDevice.h"

namespace hopsim::md {

// How a host engine sees the atoms beyond its region's faces. A single-rank engine's region is the periodic box:
// positions are wrapped into it and pairs across a face are seen through the minimum image. A decomposed rank's
// region is its sub-box widened by the interaction range: the images are ghost atoms already at their place, and
// owned positions are wrapped only at rebuilds (an atom must stay next to the ghosts its neighbours were sent).
enum class Boundary { Periodic, Ghosts };

// Positions are kept in [0, L) and the box is at least twice the interaction range, so a displacement lies in
// (-L, L) and one conditional shift gives the minimum image (no rint/floor, which differ between host and device).
template <class T>
HOPSIM_HD T minimumImage(T d, T length, T halfLength) {
  if (d > halfLength) return d - length;
  if (d < -halfLength) return d + length;
  return d;
}

// After a drift: a particle moves far less than a box length per step.
template <class T>
HOPSIM_HD T wrapOnce(T x, T length) {
  if (x >= length) x -= length;
  if (x < T(0)) x += length;
  // Rounding can leave x == length after x += length for tiny negative x.
  if (x >= length) x = T(0);
  return x;
}

}  // namespace hopsim::md
