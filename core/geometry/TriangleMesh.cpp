// Triangle meshes: bounds, placement, the closed-surface check, and the generated shapes the tests and examples use.
#include "core/geometry/TriangleMesh.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <unordered_map>

#include "core/geometry/Orientation.h"

namespace hopsim::geometry {
namespace {

std::string pointText(const Vec3& p) { return fmt::format("({}, {}, {})", p[0], p[1], p[2]); }

// sin and cos of an angle in degrees, exact at multiples of 90: cos(pi / 2) in floating point is 6e-17, which would
// move vertices that a quarter turn should only permute.
void sinCosDegrees(double degrees, double& s, double& c) {
  const double turn = std::fmod(degrees, 360.0);
  if (std::fmod(turn, 90.0) == 0) {
    const int quarter = static_cast<int>(std::lround(turn / 90.0) + 4) % 4;
    constexpr double kSin[4] = {0, 1, 0, -1};
    s = kSin[quarter];
    c = kSin[(quarter + 1) % 4];
    return;
  }
  const double r = degrees * std::numbers::pi / 180.0;
  s = std::sin(r);
  c = std::cos(r);
}

// Rotates the coordinates u, v of p by the angle with sine s and cosine c (u towards v).
void rotatePlane(Vec3& p, int u, int v, double s, double c) {
  const double pu = p[u], pv = p[v];
  p[u] = c * pu - s * pv;
  p[v] = s * pu + c * pv;
}

bool zeroArea(const Triangle& t) {
  // The area vector's components are the areas of the three axis projections; each sign is exact.
  for (int a = 0; a < 3; ++a) {
    const int u = (a + 1) % 3, v = (a + 2) % 3;
    if (orient2d(t[0][u], t[0][v], t[1][u], t[1][v], t[2][u], t[2][v]) != 0) return false;
  }
  return true;
}

}  // namespace

Box3 boundingBox(const TriangleMesh& mesh) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  Box3 b{{inf, inf, inf}, {-inf, -inf, -inf}};
  for (const Triangle& t : mesh.triangles)
    for (const Vec3& p : t)
      for (int a = 0; a < 3; ++a) {
        b.min[a] = std::min(b.min[a], p[a]);
        b.max[a] = std::max(b.max[a], p[a]);
      }
  return b;
}

Vec3 transformPoint(const Vec3& p, double scale, const Vec3& rotateDegrees, const Vec3& translate) {
  if (!std::isfinite(scale) || scale <= 0)
    throw std::invalid_argument(fmt::format("mesh scale {} must be a finite positive number", scale));
  Vec3 q{p[0] * scale, p[1] * scale, p[2] * scale};
  // About x (y towards z), then y (z towards x), then z (x towards y).
  constexpr int kPlane[3][2] = {{1, 2}, {2, 0}, {0, 1}};
  for (int axis = 0; axis < 3; ++axis) {
    double s, c;
    sinCosDegrees(rotateDegrees[axis], s, c);
    rotatePlane(q, kPlane[axis][0], kPlane[axis][1], s, c);
  }
  for (int a = 0; a < 3; ++a) q[a] += translate[a];
  return q;
}

TriangleMesh transform(const TriangleMesh& mesh, double scale, const Vec3& rotateDegrees, const Vec3& translate) {
  TriangleMesh out;
  out.triangles.reserve(mesh.triangles.size());
  for (const Triangle& t : mesh.triangles)
    out.triangles.push_back({transformPoint(t[0], scale, rotateDegrees, translate),
                             transformPoint(t[1], scale, rotateDegrees, translate),
                             transformPoint(t[2], scale, rotateDegrees, translate)});
  return out;
}

std::string checkClosed(const TriangleMesh& mesh) {
  const auto& tris = mesh.triangles;
  if (tris.empty()) return "the surface has no triangles; a body needs a closed surface";
  if (tris.size() > std::numeric_limits<std::uint32_t>::max() / 3)
    return fmt::format("the surface has {} triangles, more than this check handles", tris.size());
  for (std::size_t i = 0; i < tris.size(); ++i) {
    for (int k = 0; k < 3; ++k)
      for (double x : tris[i][k])
        if (!std::isfinite(x))
          return fmt::format("triangle {} has a non-finite coordinate in vertex {}", i, pointText(tris[i][k]));
    if (zeroArea(tris[i]))
      return fmt::format("triangle {} has zero area (vertices {}, {}, {} coincide or lie on one line); remove it "
                         "or repair the mesh",
                         i, pointText(tris[i][0]), pointText(tris[i][1]), pointText(tris[i][2]));
  }

  // Weld: vertices with exactly equal coordinates get one id (sorted by value; -0.0 equals 0.0).
  const std::uint32_t corners = static_cast<std::uint32_t>(3 * tris.size());
  struct Corner {
    Vec3 p;
    std::uint32_t index;
  };
  std::vector<std::uint32_t> vertexId(corners);
  {
    std::vector<Corner> sorted(corners);
    for (std::uint32_t c = 0; c < corners; ++c) sorted[c] = {tris[c / 3][c % 3], c};
    std::sort(sorted.begin(), sorted.end(), [](const Corner& a, const Corner& b) { return a.p < b.p; });
    std::uint32_t next = 0;
    for (std::uint32_t i = 0; i < corners; ++i) {
      if (i > 0 && sorted[i].p != sorted[i - 1].p) ++next;
      vertexId[sorted[i].index] = next;
    }
  }

  // Each edge once per triangle, keyed by its two vertex ids in ascending order; the lowest bit of `use` says
  // whether the triangle runs along it from the lower id to the higher. A closed, consistent surface has every key
  // exactly twice, once in each direction.
  struct EdgeUse {
    std::uint64_t key;
    std::uint32_t use;  // triangle * 2 + direction
  };
  std::vector<EdgeUse> edges;
  edges.reserve(corners);
  for (std::uint32_t t = 0; t < tris.size(); ++t)
    for (std::uint32_t k = 0; k < 3; ++k) {
      const std::uint32_t from = vertexId[3 * t + k], to = vertexId[3 * t + (k + 1) % 3];
      const std::uint64_t key = std::uint64_t{std::min(from, to)} << 32 | std::max(from, to);
      edges.push_back({key, 2 * t + (from < to ? 1u : 0u)});
    }
  std::sort(edges.begin(), edges.end(),
            [](const EdgeUse& a, const EdgeUse& b) { return a.key != b.key ? a.key < b.key : a.use < b.use; });
  // The edge of triangle t that joins vertex ids a and b, as text, in t's direction.
  auto edgeText = [&](std::uint32_t t, std::uint64_t key) {
    for (int k = 0; k < 3; ++k) {
      const std::uint32_t from = vertexId[3 * t + k], to = vertexId[3 * t + (k + 1) % 3];
      if ((std::uint64_t{std::min(from, to)} << 32 | std::max(from, to)) == key)
        return fmt::format("from {} to {}", pointText(tris[t][k]), pointText(tris[t][(k + 1) % 3]));
    }
    return std::string();
  };
  for (std::size_t i = 0; i < edges.size();) {
    std::size_t j = i + 1;
    while (j < edges.size() && edges[j].key == edges[i].key) ++j;
    const std::uint32_t t0 = edges[i].use / 2;
    if (j - i == 1)
      return fmt::format("the edge {} of triangle {} has no neighbouring triangle running back along it: the "
                         "surface has a hole there (or an edge of one triangle ends in the middle of another's)",
                         edgeText(t0, edges[i].key), t0);
    if (j - i > 2)
      return fmt::format("{} triangles ({}, {}, ...) meet at the edge {}: more than two triangles meet there, so "
                         "it bounds no single body",
                         j - i, t0, edges[i + 1].use / 2, edgeText(t0, edges[i].key));
    if (edges[i].use % 2 == edges[i + 1].use % 2) {
      const std::uint32_t t1 = edges[i + 1].use / 2;
      return fmt::format("triangles {} and {} both run along the edge {}: one of them is flipped (neighbours must "
                         "run along a shared edge in opposite directions)",
                         std::min(t0, t1), std::max(t0, t1), edgeText(t0, edges[i].key));
    }
    i = j;
  }
  return "";
}

double signedVolume(const TriangleMesh& mesh) {
  if (mesh.triangles.empty()) return 0;
  // Tetrahedra from a vertex of the mesh rather than the origin: a mesh far from the origin loses fewer digits.
  const Vec3 o = mesh.triangles.front()[0];
  double six = 0;
  for (const Triangle& t : mesh.triangles) {
    Vec3 a, b, c;
    for (int i = 0; i < 3; ++i) {
      a[i] = t[0][i] - o[i];
      b[i] = t[1][i] - o[i];
      c[i] = t[2][i] - o[i];
    }
    six += a[0] * (b[1] * c[2] - b[2] * c[1]) + a[1] * (b[2] * c[0] - b[0] * c[2]) +
           a[2] * (b[0] * c[1] - b[1] * c[0]);
  }
  return six / 6;
}

TriangleMesh icosphere(const Vec3& center, double radius, int subdivisions) {
  if (subdivisions < 0 || subdivisions > 10)
    throw std::invalid_argument(fmt::format("icosphere subdivisions {} must lie in 0 .. 10", subdivisions));
  if (!(radius > 0) || !std::isfinite(radius))
    throw std::invalid_argument(fmt::format("icosphere radius {} must be a finite positive number", radius));
  const double phi = std::numbers::phi;
  std::vector<Vec3> v = {{-1, phi, 0}, {1, phi, 0},  {-1, -phi, 0}, {1, -phi, 0}, {0, -1, phi}, {0, 1, phi},
                         {0, -1, -phi}, {0, 1, -phi}, {phi, 0, -1},  {phi, 0, 1},  {-phi, 0, -1}, {-phi, 0, 1}};
  auto normalise = [](Vec3 p) {
    const double n = std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    return Vec3{p[0] / n, p[1] / n, p[2] / n};
  };
  for (Vec3& p : v) p = normalise(p);
  std::vector<std::array<std::uint32_t, 3>> faces = {
      {0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
      {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
      {3, 8, 9},  {4, 9, 5},  {2, 4, 11},  {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
  // Outward: the face normal points away from the centre (checked rather than trusted to the table's order).
  for (auto& f : faces) {
    const Vec3 &a = v[f[0]], &b = v[f[1]], &c = v[f[2]];
    const Vec3 ab{b[0] - a[0], b[1] - a[1], b[2] - a[2]}, ac{c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    const Vec3 n{ab[1] * ac[2] - ab[2] * ac[1], ab[2] * ac[0] - ab[0] * ac[2], ab[0] * ac[1] - ab[1] * ac[0]};
    if (n[0] * a[0] + n[1] * a[1] + n[2] * a[2] < 0) std::swap(f[1], f[2]);
  }
  for (int s = 0; s < subdivisions; ++s) {
    // One midpoint per edge, shared by both triangles along it: the refined surface stays welded.
    std::unordered_map<std::uint64_t, std::uint32_t> midpoint;
    midpoint.reserve(faces.size() * 2);
    auto mid = [&](std::uint32_t a, std::uint32_t b) {
      const std::uint64_t key = (std::uint64_t{std::min(a, b)} << 32) | std::max(a, b);
      const auto [it, fresh] = midpoint.emplace(key, static_cast<std::uint32_t>(v.size()));
      if (fresh) v.push_back(normalise({v[a][0] + v[b][0], v[a][1] + v[b][1], v[a][2] + v[b][2]}));
      return it->second;
    };
    std::vector<std::array<std::uint32_t, 3>> finer;
    finer.reserve(faces.size() * 4);
    for (const auto& f : faces) {
      const std::uint32_t ab = mid(f[0], f[1]), bc = mid(f[1], f[2]), ca = mid(f[2], f[0]);
      finer.push_back({f[0], ab, ca});
      finer.push_back({f[1], bc, ab});
      finer.push_back({f[2], ca, bc});
      finer.push_back({ab, bc, ca});
    }
    faces = std::move(finer);
  }
  std::vector<Vec3> placed(v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    for (int a = 0; a < 3; ++a) placed[i][a] = center[a] + radius * v[i][a];
  TriangleMesh mesh;
  mesh.triangles.reserve(faces.size());
  for (const auto& f : faces) mesh.triangles.push_back({placed[f[0]], placed[f[1]], placed[f[2]]});
  return mesh;
}

TriangleMesh boxMesh(const Vec3& min, const Vec3& max) {
  for (int a = 0; a < 3; ++a)
    if (!(min[a] < max[a]))
      throw std::invalid_argument(fmt::format("box {} .. {} must have min < max along every axis", pointText(min),
                                              pointText(max)));
  TriangleMesh mesh;
  for (int a = 0; a < 3; ++a) {
    const int u = (a + 1) % 3, w = (a + 2) % 3;
    for (int side = 0; side < 2; ++side) {
      // The corners (u, w) = (0,0), (1,0), (1,1), (0,1) turn counter-clockwise about +a (u x w = a): kept on the
      // max face, reversed on the min face so that both face outward.
      Vec3 c[4];
      const int cu[4] = {0, 1, 1, 0}, cw[4] = {0, 0, 1, 1};
      for (int k = 0; k < 4; ++k) {
        c[k][a] = side ? max[a] : min[a];
        c[k][u] = cu[k] ? max[u] : min[u];
        c[k][w] = cw[k] ? max[w] : min[w];
      }
      if (side) {
        mesh.triangles.push_back({c[0], c[1], c[2]});
        mesh.triangles.push_back({c[0], c[2], c[3]});
      } else {
        mesh.triangles.push_back({c[0], c[2], c[1]});
        mesh.triangles.push_back({c[0], c[3], c[2]});
      }
    }
  }
  return mesh;
}

}  // namespace hopsim::geometry

namespace hopsim::geometry {

TriangleMesh torus(const Vec3& center, double majorRadius, double minorRadius, int around, int across) {
  if (!(minorRadius > 0) || !(majorRadius > minorRadius) || !std::isfinite(majorRadius))
    throw std::invalid_argument(
        fmt::format("torus radii {} and {} must be finite with 0 < minor < major", majorRadius, minorRadius));
  if (around < 3 || across < 3)
    throw std::invalid_argument(fmt::format("torus needs at least 3 x 3 quads, not {} x {}", around, across));
  // Each grid vertex computed once and shared by its quads: the surface stays welded.
  std::vector<Vec3> v(static_cast<std::size_t>(around) * static_cast<std::size_t>(across));
  const double pi = std::numbers::pi;
  for (int i = 0; i < around; ++i)
    for (int j = 0; j < across; ++j) {
      const double u = 2 * pi * i / around, w = 2 * pi * j / across;
      const double r = majorRadius + minorRadius * std::cos(w);
      v[static_cast<std::size_t>(i) * across + j] = {center[0] + r * std::cos(u), center[1] + r * std::sin(u),
                                                     center[2] + minorRadius * std::sin(w)};
    }
  TriangleMesh mesh;
  mesh.triangles.reserve(2 * v.size());
  for (int i = 0; i < around; ++i)
    for (int j = 0; j < across; ++j) {
      const int i1 = (i + 1) % around, j1 = (j + 1) % across;
      const Vec3& a = v[static_cast<std::size_t>(i) * across + j];
      const Vec3& b = v[static_cast<std::size_t>(i1) * across + j];
      const Vec3& c = v[static_cast<std::size_t>(i1) * across + j1];
      const Vec3& d = v[static_cast<std::size_t>(i) * across + j1];
      // d(position)/du x d(position)/dw points away from the tube's axis: (a, b, c) turns counter-clockwise seen
      // from outside.
      mesh.triangles.push_back({a, b, c});
      mesh.triangles.push_back({a, c, d});
    }
  return mesh;
}

}  // namespace hopsim::geometry
