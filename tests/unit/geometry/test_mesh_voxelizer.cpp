// Voxelisation of closed meshes against analytic shapes, on rows that run exactly through faces, edges and
// vertices; segment crossings against analytic planes and against a test of every triangle.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <optional>
#include <random>
#include <vector>

#include "CatchCompat.h"
#include "core/geometry/MeshVoxelizer.h"
#include "core/geometry/TriangleMesh.h"

using hopsim::geometry::boxMesh;
using hopsim::geometry::icosphere;
using hopsim::geometry::MeshIndex;
using hopsim::geometry::segmentEntry;
using hopsim::geometry::Triangle;
using hopsim::geometry::TriangleMesh;
using hopsim::geometry::Vec3;
using hopsim::geometry::voxelize;
using Cells = std::array<long long, 3>;

namespace {

double dot(const Vec3& a, const Vec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
Vec3 sub(const Vec3& a, const Vec3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
Vec3 cross(const Vec3& a, const Vec3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double norm(const Vec3& a) { return std::sqrt(dot(a, a)); }

Vec3 cellCentre(const Cells& origin, long long i, long long j, long long k) {
  return {origin[0] + i + 0.5, origin[1] + j + 0.5, origin[2] + k + 0.5};
}

// Calls f(i, j, k, flat index) for every cell of the box.
template <class F>
void forCells(const Cells& count, F&& f) {
  std::size_t n = 0;
  for (long long k = 0; k < count[2]; ++k)
    for (long long j = 0; j < count[1]; ++j)
      for (long long i = 0; i < count[0]; ++i) f(i, j, k, n++);
}

// The distance from the centre to the nearest facet plane: every point of an inscribed sphere mesh lies at a
// radius between this and the sphere's.
double innerRadius(const TriangleMesh& mesh, const Vec3& c) {
  double inner = 1e300;
  for (const Triangle& t : mesh.triangles) {
    const Vec3 n = cross(sub(t[1], t[0]), sub(t[2], t[0]));
    inner = std::min(inner, dot(n, sub(t[0], c)) / norm(n));
  }
  return inner;
}

// Every triangle tested (Moller-Trumbore in the plane-equation form): the reference for the binned query.
std::optional<double> bruteEntry(const TriangleMesh& mesh, const Vec3& from, const Vec3& to) {
  std::optional<double> best;
  const Vec3 d = sub(to, from);
  for (const Triangle& t : mesh.triangles) {
    const Vec3 e1 = sub(t[1], t[0]), e2 = sub(t[2], t[0]);
    const Vec3 p = cross(d, e2);
    const double det = dot(e1, p);
    if (det == 0) continue;
    const Vec3 s = sub(from, t[0]);
    const double u = dot(s, p) / det;
    const Vec3 q = cross(s, e1);
    const double v = dot(d, q) / det;
    const double w = dot(e2, q) / det;
    const double slack = 1e-12;
    if (u < -slack || v < -slack || u + v > 1 + slack || w < 0 || w > 1) continue;
    if (!best || w < *best) best = w;
  }
  return best;
}

// The D3Q19 link directions but the rest one.
const int kLinks[18][3] = {{1, 0, 0},  {-1, 0, 0}, {0, 1, 0},  {0, -1, 0}, {0, 0, 1},  {0, 0, -1},
                           {1, 1, 0},  {-1, -1, 0}, {1, -1, 0}, {-1, 1, 0}, {1, 0, 1},  {-1, 0, -1},
                           {1, 0, -1}, {-1, 0, 1}, {0, 1, 1},  {0, -1, -1}, {0, 1, -1}, {0, -1, 1}};

// Calls f(fluid centre, solid centre) for every link from a fluid cell to a solid one inside the box.
template <class F>
void forFluidSolidLinks(const std::vector<std::uint8_t>& solid, const Cells& origin, const Cells& count, F&& f) {
  forCells(count, [&](long long i, long long j, long long k, std::size_t n) {
    if (solid[n]) return;
    for (const auto& e : kLinks) {
      const long long a = i + e[0], b = j + e[1], c = k + e[2];
      if (a < 0 || b < 0 || c < 0 || a >= count[0] || b >= count[1] || c >= count[2]) continue;
      if (solid[static_cast<std::size_t>(a + count[0] * (b + count[1] * c))])
        f(cellCentre(origin, i, j, k), cellCentre(origin, a, b, c));
    }
  });
}

}  // namespace

TEST_CASE("voxelize: a box mesh gives the box's cells exactly, centres on its faces, edges and corners included",
          "[unit][stl]") {
  struct Case {
    Vec3 min, max;
    Cells origin, count;
  };
  // Half-integer bounds put rows of centres exactly on the faces, edges and corners; the others are generic, reach
  // beyond the box of cells, or miss it.
  const Case cases[] = {
      {{2.5, 3.5, 1.5}, {7.5, 6.5, 5.5}, {0, 0, 0}, {10, 9, 8}},
      {{-1.5, 2.5, -0.5}, {3.5, 4.5, 2.5}, {-3, 1, -2}, {9, 6, 7}},
      {{2.25, 3, 1.75}, {7.125, 6.5, 5}, {0, 0, 0}, {10, 9, 8}},
      {{-5, -5, -5}, {50, 50, 50}, {1, 2, 3}, {4, 5, 6}},
      {{20.5, 0.5, 0.5}, {30.5, 5.5, 5.5}, {0, 0, 0}, {10, 9, 8}},
      {{0.5, 0.5, 0.5}, {1.5, 1.5, 1.5}, {0, 0, 0}, {3, 3, 3}},
  };
  for (const Case& c : cases) {
    const std::vector<std::uint8_t> solid = voxelize(boxMesh(c.min, c.max), c.origin, c.count);
    REQUIRE(solid.size() == static_cast<std::size_t>(c.count[0] * c.count[1] * c.count[2]));
    std::size_t wrong = 0, onSurface = 0, inside = 0;
    forCells(c.count, [&](long long i, long long j, long long k, std::size_t n) {
      const Vec3 p = cellCentre(c.origin, i, j, k);
      bool in = true, edge = false;
      for (int a = 0; a < 3; ++a) {
        in = in && p[a] >= c.min[a] && p[a] <= c.max[a];  // the box shape's inside test: its surface included
        edge = edge || p[a] == c.min[a] || p[a] == c.max[a];
      }
      if (solid[n] != (in ? 1 : 0)) ++wrong;
      if (in && edge) ++onSurface;
      if (in) ++inside;
    });
    INFO(fmt::format("box ({}, {}, {}) .. ({}, {}, {})", c.min[0], c.min[1], c.min[2], c.max[0], c.max[1], c.max[2]));
    CHECK(wrong == 0);
    if (c.min[0] == 2.5) {
      CHECK(inside == 6u * 4 * 5);
      CHECK(onSurface == 6u * 4 * 5 - 4u * 2 * 3);  // all but the 4 x 2 x 3 interior centres
    }
  }
}

TEST_CASE("voxelize: a box turned by quarter turns stays on the same cells", "[unit][stl]") {
  // (x, y, z) -> about x by 90: (x, -z, y); then about z by 90: (z, x, y) for (x, -z, y) -> (z, x, y).
  const TriangleMesh box = boxMesh({1.5, 2.5, 3.5}, {4.5, 6.5, 5.5});
  const TriangleMesh turned = hopsim::geometry::transform(box, 1, {90, 0, 90}, {0, 0, 0});
  const Cells origin{0, 0, 0}, count{8, 7, 9};
  const auto solid = voxelize(turned, origin, count);
  std::size_t wrong = 0, inside = 0;
  forCells(count, [&](long long i, long long j, long long k, std::size_t n) {
    const Vec3 p = cellCentre(origin, i, j, k);
    // Turned box: x from the old z, y from the old x, z from the old y.
    const bool in = p[0] >= 3.5 && p[0] <= 5.5 && p[1] >= 1.5 && p[1] <= 4.5 && p[2] >= 2.5 && p[2] <= 6.5;
    wrong += solid[n] != (in ? 1 : 0);
    inside += in;
  });
  CHECK(inside == 3u * 4 * 5);
  CHECK(wrong == 0);
}

TEST_CASE("voxelize: an icosphere against the analytic sphere, rows through its vertices and edges",
          "[unit][stl]") {
  // The centre on half-integers puts the vertices (+-r, 0, 0), (0, +-r, 0), (0, 0, +-r) on cell centres and the
  // edges along the great circles y = 16.5 and z = 16.5 along rows of centres.
  for (const Vec3 centre : {Vec3{16.5, 16.5, 16.5}, Vec3{16.3, 15.9, 16.2}}) {
    const double r = 10;
    const TriangleMesh sphere = icosphere(centre, r, 3);
    const double inner = innerRadius(sphere, centre);
    const Cells origin{2, 3, 1}, count{30, 28, 31};
    const auto solid = voxelize(sphere, origin, count);
    std::size_t wrongInside = 0, wrongOutside = 0, band = 0, cells = 0;
    forCells(count, [&](long long i, long long j, long long k, std::size_t n) {
      const double d = norm(sub(cellCentre(origin, i, j, k), centre));
      cells += solid[n];
      if (d < inner) wrongInside += solid[n] != 1;
      else if (d > r) wrongOutside += solid[n] != 0;
      else
        ++band;  // between the facets and the sphere: either answer is right
    });
    INFO(fmt::format("centre ({}, {}, {}), chord error {}", centre[0], centre[1], centre[2], r - inner));
    CHECK(wrongInside == 0);
    CHECK(wrongOutside == 0);
    CHECK(band > 0);
    // The cell count estimates the enclosed volume; the lattice error of a ball of radius 10 is well under 2%.
    const double v = hopsim::geometry::signedVolume(sphere);
    CHECK(std::fabs(static_cast<double>(cells) - v) < 0.02 * v);
    CHECK(std::fabs(static_cast<double>(cells) - 4.0 / 3 * std::numbers::pi * r * r * r) <
          0.02 * 4.0 / 3 * std::numbers::pi * r * r * r);
  }
}

TEST_CASE("voxelize: rows through the vertices of a mesh snapped to half-integers agree in all three directions",
          "[unit][stl]") {
  // Every vertex on a half-integer: rows of centres run through vertices and along edges all over the surface.
  // Voxelising the mesh with its axes cycled (the rows then run along y, or z, of the original) must give the
  // same cells, except for centres that lie on the surface itself.
  TriangleMesh sphere = icosphere({8.2, 7.9, 8.1}, 5.3, 1);
  int verticesOnRows = 0;
  for (auto& t : sphere.triangles)
    for (auto& p : t) {
      for (double& x : p) x = std::round(x * 2) / 2;
      if (std::fmod(p[1], 1.0) == 0.5 && std::fmod(p[2], 1.0) == 0.5) ++verticesOnRows;
    }
  REQUIRE(hopsim::geometry::checkClosed(sphere).empty());
  CHECK(verticesOnRows > 10);
  const Cells origin{0, 0, 0}, count{17, 16, 17};
  auto cycled = [](const TriangleMesh& m, int shift) {
    TriangleMesh out = m;
    for (auto& t : out.triangles)
      for (auto& p : t) p = {p[shift % 3], p[(shift + 1) % 3], p[(shift + 2) % 3]};
    return out;
  };
  const auto x = voxelize(sphere, origin, count);
  std::vector<std::vector<std::uint8_t>> others;
  for (int shift = 1; shift < 3; ++shift) {
    const Cells c{count[shift % 3], count[(shift + 1) % 3], count[(shift + 2) % 3]};
    others.push_back(voxelize(cycled(sphere, shift), origin, c));
  }
  // A centre counts as on the surface when it lies in the plane of a triangle and inside it (it lies on a
  // half-integer grid, so these tests are exact here).
  auto onSurface = [&](const Vec3& p) {
    for (const Triangle& t : sphere.triangles) {
      const Vec3 n = cross(sub(t[1], t[0]), sub(t[2], t[0]));
      if (dot(n, sub(p, t[0])) != 0) continue;
      bool in = true;
      for (int e = 0; e < 3; ++e) in = in && dot(n, cross(sub(t[(e + 1) % 3], t[e]), sub(p, t[e]))) >= 0;
      if (in) return true;
    }
    return false;
  };
  std::size_t differ = 0, differOffSurface = 0, solidCells = 0;
  forCells(count, [&](long long i, long long j, long long k, std::size_t n) {
    const long long idx[3] = {i, j, k};
    solidCells += x[n];
    for (int shift = 1; shift < 3; ++shift) {
      const Cells c{count[shift % 3], count[(shift + 1) % 3], count[(shift + 2) % 3]};
      const std::size_t m = static_cast<std::size_t>(idx[shift % 3] + c[0] * (idx[(shift + 1) % 3] +
                                                                              c[1] * idx[(shift + 2) % 3]));
      if (others[shift - 1][m] != x[n]) {
        ++differ;
        if (!onSurface(cellCentre(origin, i, j, k))) ++differOffSurface;
      }
    }
  });
  INFO(fmt::format("{} cells differ between directions, {} of them off the surface", differ, differOffSurface));
  CHECK(differOffSurface == 0);
  const double v = hopsim::geometry::signedVolume(sphere);
  CHECK(std::fabs(static_cast<double>(solidCells) - v) < 0.1 * v);
}

TEST_CASE("voxelize: several bodies and a hollow shell fill between every pair of crossings", "[unit][stl]") {
  const Cells origin{0, 0, 0}, count{40, 20, 20};
  const TriangleMesh a = icosphere({9.3, 10.1, 9.8}, 7.2, 2), b = icosphere({28.6, 9.7, 10.4}, 6.9, 2);
  TriangleMesh both = a;
  both.triangles.insert(both.triangles.end(), b.triangles.begin(), b.triangles.end());
  REQUIRE(hopsim::geometry::checkClosed(both).empty());
  const auto va = voxelize(a, origin, count), vb = voxelize(b, origin, count), vBoth = voxelize(both, origin, count);
  std::size_t wrong = 0, rowsThroughBoth = 0;
  for (std::size_t n = 0; n < vBoth.size(); ++n) wrong += vBoth[n] != (va[n] | vb[n]);
  for (long long row = 0; row < count[1] * count[2]; ++row) {
    const auto first = vBoth.begin() + row * count[0];
    const bool meetsA = std::find(first, first + 20, 1) != first + 20;
    const bool meetsB = std::find(first + 20, first + 40, 1) != first + 40;
    rowsThroughBoth += meetsA && meetsB;
  }
  CHECK(rowsThroughBoth > 50);
  CHECK(wrong == 0);

  // A shell: the inner sphere turned inside out (its triangles reversed) is a cavity.
  const TriangleMesh inner = icosphere({9.6, 9.9, 10.2}, 3.7, 2);
  TriangleMesh shell = a;
  for (auto t : inner.triangles) {
    std::swap(t[1], t[2]);
    shell.triangles.push_back(t);
  }
  REQUIRE(hopsim::geometry::checkClosed(shell).empty());
  CHECK(hopsim::geometry::signedVolume(shell) ==
        Approx(hopsim::geometry::signedVolume(a) - hopsim::geometry::signedVolume(inner)).epsilon(1e-12));
  const auto vInner = voxelize(inner, origin, count), vShell = voxelize(shell, origin, count);
  std::size_t wrongShell = 0, cavity = 0;
  for (std::size_t n = 0; n < vShell.size(); ++n) {
    wrongShell += vShell[n] != (va[n] && !vInner[n]);
    cavity += vInner[n];
  }
  CHECK(cavity > 100);
  CHECK(wrongShell == 0);
}

TEST_CASE("voxelize: an open mesh is refused", "[unit][stl]") {
  // The hole is the icosahedron face turned most towards x: its projection holds a disc of radius above 0.7 cells,
  // so some row of centres runs through it and crosses the surface once.
  TriangleMesh ico = icosphere({5, 5, 5}, 4, 0);
  std::size_t most = 0;
  double best = 0;
  for (std::size_t i = 0; i < ico.triangles.size(); ++i) {
    const Triangle& t = ico.triangles[i];
    const Vec3 n = cross(sub(t[1], t[0]), sub(t[2], t[0]));
    if (std::fabs(n[0]) / norm(n) > best) {
      best = std::fabs(n[0]) / norm(n);
      most = i;
    }
  }
  ico.triangles.erase(ico.triangles.begin() + static_cast<std::ptrdiff_t>(most));
  std::string message;
  try {
    voxelize(ico, {0, 0, 0}, {10, 10, 10});
  } catch (const std::invalid_argument& e) {
    message = e.what();
  }
  CHECK(message.find("an odd number: the mesh is not closed") != std::string::npos);
}

TEST_CASE("segmentEntry: links into a box against the analytic planes", "[unit][stl]") {
  for (const auto& [lo, hi] : {std::pair{Vec3{2.3, 3.1, 1.7}, Vec3{7.6, 6.2, 5.4}},
                               std::pair{Vec3{2.5, 3.5, 1.5}, Vec3{7.5, 6.5, 5.5}}}) {
    const TriangleMesh box = boxMesh(lo, hi);
    const MeshIndex index(box);
    const Cells origin{0, 0, 0}, count{10, 10, 8};
    const auto solid = voxelize(box, origin, count);
    std::size_t links = 0, missed = 0;
    double worst = 0;
    forFluidSolidLinks(solid, origin, count, [&](const Vec3& from, const Vec3& to) {
      ++links;
      // Slab entry: the last of the planes the link crosses into the box.
      const Vec3 d = sub(to, from);
      double enter = 0;
      for (int a = 0; a < 3; ++a)
        if (d[a] != 0) enter = std::max(enter, ((d[a] > 0 ? lo[a] : hi[a]) - from[a]) / d[a]);
      const auto t = segmentEntry(index, from, to);
      if (!t) {
        ++missed;
        return;
      }
      worst = std::max(worst, std::fabs(*t - enter));
    });
    CHECK(links > 100);
    CHECK(missed == 0);
    CHECK(worst <= 1e-12);
  }
  // Exactly through an edge and a corner of the box [2, 7] x [3, 6] x [1, 5]; a link that stops short; one beside.
  const MeshIndex index(boxMesh({2, 3, 1}, {7, 6, 5}));
  auto entry = [&](const Vec3& from, const Vec3& to) { return segmentEntry(index, from, to).value_or(-1); };
  CHECK(entry({1.5, 2.5, 3}, {2.5, 3.5, 3}) == Approx(0.5).margin(1e-15));
  CHECK(entry({1.5, 2.5, 0.5}, {2.5, 3.5, 1.5}) == Approx(0.5).margin(1e-15));
  CHECK(entry({7.5, 6.5, 5.5}, {6.5, 5.5, 4.5}) == Approx(0.5).margin(1e-15));
  CHECK(!segmentEntry(index, {0, 0, 0}, {1.9, 2.9, 0.9}));
  CHECK(!segmentEntry(index, {1, 7, 3}, {8, 7, 3}));
  // Along a face, inside its plane: the neighbouring faces' edges report where it enters.
  CHECK(entry({0, 3, 3}, {4, 3, 3}) == Approx(0.5).margin(1e-15));
}

TEST_CASE("segmentEntry: links into an icosphere meet a facet, on its plane and near the sphere", "[unit][stl]") {
  const Vec3 centre{16.3, 15.8, 16.1};
  const double r = 9.7;
  const TriangleMesh sphere = icosphere(centre, r, 3);
  const double inner = innerRadius(sphere, centre);
  const MeshIndex index(sphere);
  const Cells origin{0, 0, 0}, count{32, 32, 32};
  const auto solid = voxelize(sphere, origin, count);
  std::size_t links = 0, missed = 0, offPlane = 0, offSphere = 0, disagree = 0;
  forFluidSolidLinks(solid, origin, count, [&](const Vec3& from, const Vec3& to) {
    ++links;
    const auto hit = index.firstHit(from, to);
    if (!hit) {
      ++missed;
      return;
    }
    const Vec3 d = sub(to, from);
    const Vec3 x{from[0] + hit->t * d[0], from[1] + hit->t * d[1], from[2] + hit->t * d[2]};
    const Triangle& t = sphere.triangles[hit->triangle];
    const Vec3 n = cross(sub(t[1], t[0]), sub(t[2], t[0]));
    if (std::fabs(dot(n, sub(x, t[0]))) / norm(n) > 1e-12 * 32) ++offPlane;  // 1e-12 of the coordinates' size
    const double radius = norm(sub(x, centre));
    if (radius < inner - 1e-12 || radius > r + 1e-12) ++offSphere;
    const auto brute = bruteEntry(sphere, from, to);
    if (!brute || std::fabs(*brute - hit->t) > 1e-12) ++disagree;
  });
  INFO(fmt::format("{} links, chord error {}", links, r - inner));
  CHECK(links > 1000);
  CHECK(missed == 0);
  CHECK(offPlane == 0);
  CHECK(offSphere == 0);
  CHECK(disagree == 0);
  CHECK(!segmentEntry(index, centre, Vec3{centre[0] + 1, centre[1], centre[2]}));  // inside, short of the surface
}

TEST_CASE("segmentEntry: every fluid-solid link crosses a surface through cell centres", "[unit][stl]") {
  // Vertices on half-integers: centres lie on faces, edges and vertices, where the voxeliser and the segment test
  // must agree on what is outside and what is not.
  for (int subdivisions : {1, 2}) {
    TriangleMesh sphere = icosphere({8.2, 7.9, 8.1}, 5.3, subdivisions);
    for (auto& t : sphere.triangles)
      for (auto& p : t)
        for (double& x : p) x = std::round(x * 2) / 2;
    REQUIRE(hopsim::geometry::checkClosed(sphere).empty());  // snapping moved no vertex far enough to fold it
    TriangleMesh box = boxMesh({2.5, 1.5, 3.5}, {12.5, 13.5, 11.5});
    for (const TriangleMesh* mesh : {&sphere, &box}) {
      const Cells origin{0, 0, 0}, count{17, 16, 17};
      const auto solid = voxelize(*mesh, origin, count);
      const MeshIndex index(*mesh);
      std::size_t links = 0, missed = 0, atEnd = 0;
      forFluidSolidLinks(solid, origin, count, [&](const Vec3& from, const Vec3& to) {
        ++links;
        const auto t = segmentEntry(index, from, to);
        missed += !t;
        atEnd += t && *t == 1;
      });
      INFO(fmt::format("subdivisions {}, {} links, {} end on the surface", subdivisions, links, atEnd));
      CHECK(links > 500);
      CHECK(missed == 0);
    }
  }
}

TEST_CASE("firstHit on a soup of random triangles equals testing every triangle", "[unit][stl]") {
  // Long slanted triangles span many bins, and long segments cross many: the walk must not stop at a bin whose
  // hit lies beyond a nearer one in a later bin, nor skip a bin.
  std::mt19937_64 random(20261202);
  auto uniform = [&](double lo, double hi) {
    return lo + (hi - lo) * static_cast<double>(random() >> 11) * 0x1p-53;
  };
  TriangleMesh soup;
  for (int i = 0; i < 400; ++i) {
    const double size = i % 10 == 0 ? 8 : 1.5;
    const Vec3 c{uniform(0, 20), uniform(0, 20), uniform(0, 20)};
    Triangle t;
    for (auto& p : t) p = {c[0] + uniform(-size, size), c[1] + uniform(-size, size), c[2] + uniform(-size, size)};
    soup.triangles.push_back(t);
  }
  const MeshIndex index(soup);
  std::size_t hits = 0, disagree = 0;
  for (int i = 0; i < 3000; ++i) {
    const double reach = i % 3 == 0 ? 25 : 4;
    const Vec3 from{uniform(-2, 22), uniform(-2, 22), uniform(-2, 22)};
    const Vec3 to{from[0] + uniform(-reach, reach), from[1] + uniform(-reach, reach), from[2] + uniform(-reach, reach)};
    const auto t = segmentEntry(index, from, to);
    const auto brute = bruteEntry(soup, from, to);
    hits += t.has_value();
    if (t.has_value() != brute.has_value() || (t && std::fabs(*t - *brute) > 1e-12)) ++disagree;
  }
  INFO(fmt::format("{} bins, {} of 3000 segments hit", index.bins()[0] * index.bins()[1] * index.bins()[2], hits));
  CHECK(hits > 300);
  CHECK(disagree == 0);
}

// Not part of the suite: timings for the report (a 1.3M-triangle sphere into 256^3 cells, wall distances).
TEST_CASE("voxelize and segmentEntry timings", "[.][stl-bench]") {
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::time_point a) { return std::chrono::duration<double>(Clock::now() - a).count(); };
  auto t = Clock::now();
  const TriangleMesh sphere = icosphere({128, 128, 128}, 100, 8);
  fmt::print("icosphere: {} triangles in {:.2f} s\n", sphere.triangles.size(), seconds(t));
  t = Clock::now();
  const auto solid = voxelize(sphere, {0, 0, 0}, {256, 256, 256});
  fmt::print("voxelize 256^3: {:.3f} s, {} solid cells\n", seconds(t), std::count(solid.begin(), solid.end(), 1));
  t = Clock::now();
  const std::string closed = hopsim::geometry::checkClosed(sphere);
  fmt::print("checkClosed: {:.2f} s ({})\n", seconds(t), closed.empty() ? "closed" : closed);
  t = Clock::now();
  const MeshIndex index(sphere);
  fmt::print("MeshIndex: {:.2f} s, {} x {} x {} bins, largest {}\n", seconds(t), index.bins()[0], index.bins()[1],
             index.bins()[2], index.largestBin());
  std::vector<std::pair<Vec3, Vec3>> links;
  forFluidSolidLinks(solid, {0, 0, 0}, {256, 256, 256},
                     [&](const Vec3& a, const Vec3& b) { links.emplace_back(a, b); });
  t = Clock::now();
  std::size_t missed = 0;
#pragma omp parallel for reduction(+ : missed)
  for (std::size_t i = 0; i < links.size(); ++i) missed += !segmentEntry(index, links[i].first, links[i].second);
  const double s = seconds(t);
  fmt::print("segmentEntry: {} links in {:.3f} s ({:.0f} ns per link), {} missed\n", links.size(), s,
             1e9 * s / static_cast<double>(links.size()), missed);
}
