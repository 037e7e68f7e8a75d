// The CUDA voxeliser against the CPU one, cell for cell: convex and non-convex meshes, faces, edges and vertices
// exactly on the rows' lines and cell centres, meshes reaching beyond the box, odd box sizes and rank sub-boxes.
#include <array>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "CatchCompat.h"
#include "HaveGpu.h"
#include "core/geometry/MeshVoxelizer.h"
#include "core/geometry/TriangleMesh.h"
#include "kernels/common/DeviceInfo.h"
#include "kernels/geometry/GpuVoxelizer.h"

using hopsim::geometry::boxMesh;
using hopsim::geometry::icosphere;
using hopsim::geometry::torus;
using hopsim::geometry::transform;
using hopsim::geometry::TriangleMesh;
using hopsim::geometry::voxelize;
using hopsim::geometry::voxelizeOnGpu;
using Cells = std::array<long long, 3>;

namespace {

using hopsim::testing::haveGpu;

// Both voxelisers on one mesh and box: the same bytes, and something solid (a test that compares two empty boxes
// proves nothing). Returns the number of solid cells.
long long agree(const TriangleMesh& mesh, const Cells& origin, const Cells& count) {
  const std::vector<std::uint8_t> cpu = voxelize(mesh, origin, count);
  hopsim::geometry::GpuVoxelizeTimes times;
  const std::vector<std::uint8_t> gpu = voxelizeOnGpu(mesh, origin, count, 0, &times);
  REQUIRE(gpu.size() == cpu.size());
  long long differ = 0, solid = 0, first = -1;
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    solid += cpu[i];
    if (cpu[i] != gpu[i]) {
      if (first < 0) first = static_cast<long long>(i);
      ++differ;
    }
  }
  INFO("box origin (" << origin[0] << ", " << origin[1] << ", " << origin[2] << "), count (" << count[0] << ", "
                      << count[1] << ", " << count[2] << "): " << differ << " cells differ, first at x = "
                      << (first < 0 ? -1 : first % count[0]) << ", y = " << (first < 0 ? -1 : first / count[0] % count[1])
                      << ", z = " << (first < 0 ? -1 : first / count[0] / count[1]));
  CHECK(differ == 0);
  CHECK(times.items > 0);
  return solid;
}

}  // namespace

TEST_CASE("GPU voxelisation matches the CPU's cell for cell", "[gpu][voxel]") {
  if (!haveGpu()) return;

  SECTION("sphere, vertices on the rows' lines, odd box") {
    // Centre and radius put the six axis vertices on half-integers: rows run exactly through them.
    const TriangleMesh sphere = icosphere({18.5, 20.5, 16.5}, 12, 4);
    CHECK(agree(sphere, {0, 0, 0}, {37, 41, 33}) > 0);
    // A ghost-layer origin below zero, and a rank's sub-box cutting the sphere.
    CHECK(agree(sphere, {-1, -1, -1}, {39, 43, 35}) > 0);
    CHECK(agree(sphere, {9, 13, 4}, {19, 11, 17}) > 0);
  }

  SECTION("axis-aligned box with faces on cell centres") {
    // Faces at half-integers: centres on faces, edges and corners count as inside (the on-surface ranges).
    const TriangleMesh box = boxMesh({2.5, 3.5, 1.5}, {20.5, 17.5, 30.5});
    const long long solid = agree(box, {0, 0, 0}, {25, 21, 33});
    CHECK(solid == 19LL * 15 * 30);
  }

  SECTION("rotated box") {
    const TriangleMesh box = transform(boxMesh({-8, -5, -6}, {8, 5, 6}), 1.0, {30, 45, 10}, {16, 15.5, 17});
    CHECK(agree(box, {0, 0, 0}, {32, 31, 35}) > 0);
    const TriangleMesh quarter = transform(boxMesh({-8, -5, -6}, {8, 5, 6}), 1.0, {90, 0, 270}, {16.5, 15.5, 17});
    CHECK(agree(quarter, {0, 0, 0}, {33, 31, 35}) > 0);
  }

  SECTION("meshes reaching beyond the box and touching its edges") {
    // A box mesh larger than the voxel box on every side except where its faces lie exactly on the outer centres.
    const TriangleMesh slab = boxMesh({-4, 0.5, -3}, {40, 12.5, 50});
    CHECK(agree(slab, {0, 0, 0}, {23, 13, 19}) > 0);
    // A sphere bigger than the box: every row that meets it starts or ends outside.
    const TriangleMesh big = icosphere({10, 9, 8}, 14, 3);
    CHECK(agree(big, {0, 0, 0}, {21, 19, 17}) > 0);
  }

  SECTION("non-convex: tilted torus, four crossings per row") {
    const TriangleMesh ring = transform(torus({0, 0, 0}, 14, 5, 96, 40), 1.0, {25, 10, 0}, {24.5, 24.5, 20.5});
    CHECK(agree(ring, {0, 0, 0}, {49, 50, 41}) > 0);
    // A decomposed rank's box: a corner of the domain with its ghost layer.
    CHECK(agree(ring, {23, -1, 19}, {27, 26, 23}) > 0);
  }

  SECTION("a mesh wholly outside the box leaves it empty on both") {
    const TriangleMesh far = icosphere({100, 100, 100}, 5, 2);
    CHECK(voxelizeOnGpu(far, {0, 0, 0}, {9, 9, 9}, 0) == voxelize(far, {0, 0, 0}, {9, 9, 9}));
  }
}

TEST_CASE("GPU voxelisation refuses an open mesh as the CPU does", "[gpu][voxel]") {
  if (!haveGpu()) return;
  // The +x cap cut away: lines through the middle enter at x ~ 2 and leave through the hole.
  const TriangleMesh sphere = icosphere({8, 8, 8}, 6, 2);
  TriangleMesh open;
  for (const auto& t : sphere.triangles)
    if (t[0][0] + t[1][0] + t[2][0] < 3 * 11) open.triangles.push_back(t);
  REQUIRE(open.triangles.size() < sphere.triangles.size());
  CHECK_THROWS_AS(voxelize(open, {0, 0, 0}, {16, 16, 16}), std::invalid_argument);
  CHECK_THROWS_AS(voxelizeOnGpu(open, {0, 0, 0}, {16, 16, 16}, 0), std::invalid_argument);
}
