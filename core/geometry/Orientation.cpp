// Exact 2-D orientation: the out-of-line entry point for host code; the arithmetic lives in OrientationExact.h,
// shared with the CUDA voxeliser.
#include "core/geometry/Orientation.h"

#include "core/geometry/OrientationExact.h"

namespace hopsim::geometry {

int orient2d(double au, double av, double bu, double bv, double pu, double pv) {
  return exact::orient2d(au, av, bu, bv, pu, pv);
}

}  // namespace hopsim::geometry
