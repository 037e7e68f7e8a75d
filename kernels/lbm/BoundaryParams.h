// Plain-data description of the domain and its faces, passed by value to CPU loops and CUDA kernels.
#pragma once

#include <cstdint>

#include "kernels/lbm/Collision.h"

namespace hopsim::lbm {

// Cell flags, one byte per cell: fluid, or solid. Obstacle k (0-based) is flag kObstacleBase + k so that
// momentum exchange can credit each obstacle with its own force.
enum : std::uint8_t { kFluid = 0, kSolid = 1, kObstacleBase = 2 };
constexpr int kMaxObstacles = 253;

enum FaceType : int { kFacePeriodic = 0, kFaceWall = 1, kFaceMovingWall = 2, kFaceVelocityInlet = 3, kFacePressureOutlet = 4 };

template <class T>
struct FaceParams {
  int type = kFacePeriodic;
  int parabolic = 0;    // velocity inlet: peak-valued profile vanishing on the non-periodic tangential faces
  T u[3] = {T(0), T(0), T(0)};
  T rho = T(1);         // pressure outlet
};

template <class T>
struct DomainParams {
  int n[3] = {1, 1, 1};
  long long cells = 1;
  int periodic[3] = {1, 1, 1};
  FaceParams<T> face[6];  // 2 * axis + (0: minus face, 1: plus face)
  CollisionParams<T> collision;

  HOPSIM_HD long long index(int x, int y, int z) const {
    return (static_cast<long long>(z) * n[1] + y) * n[0] + x;
  }
};

}  // namespace hopsim::lbm
