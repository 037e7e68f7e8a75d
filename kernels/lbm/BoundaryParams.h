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

// The box a backend holds. Without decomposition that is the whole domain. In a decomposed run (several MPI
// ranks) it is this rank's sub-box plus a ghost layer beyond each face shared with another rank, one cell deep (k
// deep where the Hopper temporal kernel makes k steps between exchanges):
// ghost cells carry the neighbour's flags and, after each halo exchange, the populations that stream out of it;
// they are never updated here. `periodic` stays the global domain's: an axis split over ranks has ghost layers on
// both sides where it is periodic, so owned cells never wrap, and gather() only ever crosses the domain's own faces.
template <class T>
struct DomainParams {
  int n[3] = {1, 1, 1};       // cells of the box held, ghost layers included
  long long cells = 1;
  int periodic[3] = {1, 1, 1};
  int ghost[6] = {0, 0, 0, 0, 0, 0};  // ghost layer depth (0, 1 or k) beyond each face, 2 * axis + side
  int origin[3] = {0, 0, 0};  // global coordinates of local cell (0, 0, 0)
  int global[3] = {1, 1, 1};  // cells of the whole domain
  FaceParams<T> face[6];  // 2 * axis + (0: minus face, 1: plus face)
  CollisionParams<T> collision;

  HOPSIM_HD long long index(int x, int y, int z) const {
    return (static_cast<long long>(z) * n[1] + y) * n[0] + x;
  }
  // Whether face f (2 * axis + side) is a velocity inlet or a pressure outlet: a face with ghost nodes (a face across
  // a periodic axis is none, whatever its type says).
  HOPSIM_HD bool isOpen(int f) const {
    const int type = face[f].type;
    return !periodic[f >> 1] && (type == kFaceVelocityInlet || type == kFacePressureOutlet);
  }
  // The coordinate of face f's plane of cells along its normal: 0 or n - 1.
  HOPSIM_HD int facePlane(int f) const { return (f & 1) ? n[f >> 1] - 1 : 0; }
  // The owned range [ownLo, ownHi) along an axis: the cells this box updates.
  HOPSIM_HD int ownLo(int a) const { return ghost[2 * a]; }
  HOPSIM_HD int ownHi(int a) const { return n[a] - ghost[2 * a + 1]; }
  HOPSIM_HD bool owns(int x, int y, int z) const {
    return x >= ownLo(0) && x < ownHi(0) && y >= ownLo(1) && y < ownHi(1) && z >= ownLo(2) && z < ownHi(2);
  }
  HOPSIM_HD bool hasGhosts() const {
    return (ghost[0] | ghost[1] | ghost[2] | ghost[3] | ghost[4] | ghost[5]) != 0;
  }
};

}  // namespace hopsim::lbm
