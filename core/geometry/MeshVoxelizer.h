// Cells inside a closed triangle surface, and where lattice links cross that surface (wall distances for
// interpolated bounce-back).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/geometry/TriangleMesh.h"

namespace hopsim::geometry {

// One byte per cell of the box of `count` cells starting at cell `origin`, x fastest: 1 where the cell centre
// (origin + (i, j, k) + 0.5) lies inside the mesh or on its surface, else 0. The mesh must be closed
// (checkClosed(mesh) empty); it may reach beyond the box. Which side a centre lies on is decided exactly wherever
// it can be: lines along x through the centres that pass exactly through edges or vertices of the surface count
// each crossing once, and a centre on a face whose normal lies along an axis (a box's faces, edges and corners)
// counts as inside, as the box shape's own inside test has it. A centre exactly on a slanted face may fall either
// way (rounding).
// Runs over the rows of cells with OpenMP. Throws std::invalid_argument when a line crosses the surface an odd
// number of times (the mesh is not closed). The CUDA voxeliser (kernels/geometry/GpuVoxelizer.h) gives the same
// bytes: both run the per-row arithmetic of core/geometry/ScanLine.h.
struct VoxelizeTimes {
  double indexSeconds = 0;  // filing the triangles under the rows they may meet (serial)
  double rowsSeconds = 0;   // the rows: crossings, sort, fill (OpenMP)
  std::size_t items = 0;    // (triangle, row) pairs filed
};
std::vector<std::uint8_t> voxelize(const TriangleMesh& mesh, std::array<long long, 3> origin,
                                   std::array<long long, 3> count, VoxelizeTimes* times = nullptr);

struct SegmentHit {
  double t;               // the crossing is from + t (to - from), 0 <= t <= 1
  std::size_t triangle;   // index in the mesh of the triangle crossed
};

// A mesh with its triangles binned on a uniform grid over its bounding box, so that a segment query tests only the
// triangles of the bins the segment passes through. Built once; queries are const and may run on many threads.
class MeshIndex {
 public:
  // Throws std::invalid_argument for an empty mesh or non-finite coordinates.
  explicit MeshIndex(TriangleMesh mesh);

  // The first point where the segment from -> to meets the surface, or nullopt if it meets none. Where the
  // segment passes exactly through an edge or vertex shared by several triangles, one of them reports it (the
  // test is watertight: a segment never slips between neighbours).
  std::optional<SegmentHit> firstHit(const Vec3& from, const Vec3& to) const;

  const TriangleMesh& mesh() const { return mesh_; }
  const std::array<int, 3>& bins() const { return n_; }
  // Triangles filed in the fullest bin: how much one bin can cost a query.
  std::size_t largestBin() const;

 private:
  TriangleMesh mesh_;
  Vec3 lo_{};          // the grid's lower corner
  Vec3 binSize_{};     // extent of one bin along each axis
  std::array<int, 3> n_{};
  std::vector<std::size_t> start_;      // bin b's triangles are items_[start_[b] .. start_[b + 1])
  std::vector<std::uint32_t> items_;
};

// The wall distance of interpolated bounce-back: for a link from a fluid cell centre (outside) to a solid cell
// centre (inside), the fraction of the link at which it first crosses the surface.
std::optional<double> segmentEntry(const MeshIndex& index, const Vec3& from, const Vec3& to);

}  // namespace hopsim::geometry
