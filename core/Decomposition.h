// Cartesian domain decomposition: a process grid over a box, each rank's sub-box, its 26 neighbours, its GPU.
#pragma once

#include <array>
#include <utility>

#include "core/Mpi.h"

namespace hopsim {

class Decomposition {
 public:
  using Int3 = std::array<int, 3>;
  using Real3 = std::array<double, 3>;
  using Bool3 = std::array<bool, 3>;

  // The grid for `comm`: `requested` entries > 0 are kept (device.ranks), zeros are chosen by MPI_Dims_create among
  // the axes whose sub-box would stay at least `minWidth` wide (the others get one rank). Throws
  // std::invalid_argument when the grid does not match the number of ranks or a sub-box is narrower than minWidth.
  Decomposition(const mpi::Comm& comm, const Real3& lo, const Real3& length, const Bool3& periodic,
                const Int3& requested = {0, 0, 0}, double minWidth = 0);

  // Pure geometry for a given grid and rank, without communicating (tests, and planning before MPI is up).
  Decomposition(int rank, const Int3& dims, const Real3& lo, const Real3& length, const Bool3& periodic);

  int rank() const { return rank_; }
  int size() const { return dims_[0] * dims_[1] * dims_[2]; }
  const Int3& dims() const { return dims_; }
  const Int3& coords() const { return coords_; }
  const Bool3& periodic() const { return periodic_; }
  const Real3& boxLo() const { return lo_; }
  const Real3& boxLength() const { return length_; }

  // Rank at grid coordinates, x fastest; coordinates outside the grid wrap on periodic axes and give
  // mpi::kNoRank on the others.
  int rankAt(Int3 c) const;
  Int3 coordsOf(int rank) const;
  // The neighbour at offset (dx, dy, dz), each in {-1, 0, 1}: one of 26 (itself for a periodic axis of one rank).
  int neighbor(int dx, int dy, int dz) const { return rankAt({coords_[0] + dx, coords_[1] + dy, coords_[2] + dz}); }
  // All 26, indexed by (dx + 1) + 3 (dy + 1) + 9 (dz + 1), skipping the centre (index 13): 0..25.
  std::array<int, 26> neighbors() const;

  // This rank's sub-box [subLo, subHi) along an axis; sub-boxes of neighbours share faces exactly.
  double subLo(int axis) const { return boundary(axis, coords_[axis]); }
  double subHi(int axis) const { return boundary(axis, coords_[axis] + 1); }
  // Grid coordinate along `axis` of the rank owning position x (x inside the box; clamped at its ends).
  int ownerCoord(int axis, double x) const;
  // The lower face of grid coordinate c along `axis` (c = dims: the box end): what ownerCoord() compares with, for
  // code that decides ownership elsewhere (on a GPU) and must agree with it.
  double face(int axis, int c) const { return boundary(axis, c); }

  // Lattice cells [first, last) of this rank along an axis of n cells (near-equal blocks, the first ones larger).
  std::pair<long long, long long> cellRange(int axis, long long n) const { return splitRange(n, dims_[axis], coords_[axis]); }
  static std::pair<long long, long long> splitRange(long long n, int parts, int index);

  // Rank among the ranks of this node, and the GPU it should use: that rank modulo the node's GPUs (-1: none).
  int nodeRank() const { return nodeRank_; }
  int gpu(int gpusOnNode) const { return gpusOnNode > 0 ? nodeRank_ % gpusOnNode : -1; }

 private:
  double boundary(int axis, int c) const;

  Int3 dims_{1, 1, 1}, coords_{0, 0, 0};
  Real3 lo_{0, 0, 0}, length_{0, 0, 0};
  Bool3 periodic_{true, true, true};
  int rank_ = 0, nodeRank_ = 0;
};

}  // namespace hopsim
