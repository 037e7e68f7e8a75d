// Scan-line voxelisation of closed triangle surfaces, and segment queries on a binned mesh for wall distances.
//
// Voxelisation casts one line along +x through the centres of each row of cells and fills between the points where
// it crosses the surface. Rows run through half-integer y and z, and meshes often have vertices and edges there, so
// a line meets an edge or vertex exactly all the time. Whether a line passes through a triangle is therefore
// decided on the triangle's projection onto the y-z plane with exact orientation signs (core/geometry/ScanLine.h,
// shared with the CUDA voxeliser, which must classify every cell alike).
#include "core/geometry/MeshVoxelizer.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/geometry/ScanLine.h"

namespace hopsim::geometry {
namespace {

using scanline::cellsBetween;
using scanline::centre;
using scanline::Point2;

static_assert(sizeof(Triangle) == 9 * sizeof(double), "ScanLine.h reads a Triangle as 9 doubles");

struct RowHits {
  std::vector<double> crossings;
  std::vector<std::array<double, 2>> onSurface;  // x ranges where the line runs inside a face parallel to x
};

// Adds what the line along x through (p.u, p.v) meets of triangle t.
void meetTriangle(const Triangle& t, const Point2& p, RowHits& hits) {
  const scanline::RowHit hit = scanline::meetTriangle(scanline::TriangleView{t[0].data()}, p);
  if (hit.kind == scanline::HitKind::Crossing) hits.crossings.push_back(hit.lo);
  else if (hit.kind == scanline::HitKind::OnSurface) hits.onSurface.push_back({hit.lo, hit.hi});
}

}  // namespace

std::vector<std::uint8_t> voxelize(const TriangleMesh& mesh, std::array<long long, 3> origin,
                                   std::array<long long, 3> count, VoxelizeTimes* times) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point begin = Clock::now();
  for (long long n : count)
    if (n < 0) throw std::invalid_argument(fmt::format("voxelize: negative cell count {}", n));
  const long long nx = count[0], ny = count[1], nz = count[2];
  std::vector<std::uint8_t> solid(static_cast<std::size_t>(nx * ny * nz), 0);
  if (solid.empty() || mesh.triangles.empty()) return solid;
  const std::size_t rows = static_cast<std::size_t>(ny * nz);
  if (mesh.triangles.size() > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument(fmt::format("voxelize: {} triangles are more than 2^32", mesh.triangles.size()));

  // File each triangle under the rows whose line may meet it (its y-z bounding box, edges included).
  auto rowRange = [&](const Triangle& t, long long& j0, long long& j1, long long& k0, long long& k1) {
    scanline::rowRange(scanline::TriangleView{t[0].data()}, origin[1], ny, origin[2], nz, j0, j1, k0, k1);
  };
  std::vector<std::size_t> start(rows + 1, 0);
  for (const Triangle& t : mesh.triangles) {
    long long j0, j1, k0, k1;
    rowRange(t, j0, j1, k0, k1);
    for (long long k = k0; k <= k1; ++k)
      for (long long j = j0; j <= j1; ++j) ++start[static_cast<std::size_t>(j + ny * k) + 1];
  }
  for (std::size_t r = 0; r < rows; ++r) start[r + 1] += start[r];
  std::vector<std::uint32_t> items(start[rows]);
  {
    std::vector<std::size_t> fill(start.begin(), start.end() - 1);
    for (std::size_t i = 0; i < mesh.triangles.size(); ++i) {
      long long j0, j1, k0, k1;
      rowRange(mesh.triangles[i], j0, j1, k0, k1);
      for (long long k = k0; k <= k1; ++k)
        for (long long j = j0; j <= j1; ++j)
          items[fill[static_cast<std::size_t>(j + ny * k)]++] = static_cast<std::uint32_t>(i);
    }
  }

  const Clock::time_point indexed = Clock::now();
  if (times) {
    times->indexSeconds = std::chrono::duration<double>(indexed - begin).count();
    times->items = items.size();
  }

  long long oddRow = -1;
  std::size_t oddCount = 0;
#pragma omp parallel
  {
    RowHits hits;
#pragma omp for schedule(dynamic, 64)
    for (long long r = 0; r < static_cast<long long>(rows); ++r) {
      const std::size_t row = static_cast<std::size_t>(r);
      if (start[row] == start[row + 1]) continue;
      const long long j = r % ny, k = r / ny;
      const Point2 p{centre(origin[1], j), centre(origin[2], k)};
      hits.crossings.clear();
      hits.onSurface.clear();
      for (std::size_t n = start[row]; n < start[row + 1]; ++n) meetTriangle(mesh.triangles[items[n]], p, hits);
      if (hits.crossings.size() % 2 != 0) {
#pragma omp critical(hopsim_voxelize_odd)
        if (oddRow < 0 || r < oddRow) {
          oddRow = r;
          oddCount = hits.crossings.size();
        }
        continue;
      }
      std::sort(hits.crossings.begin(), hits.crossings.end());
      for (std::size_t n = 0; n < hits.crossings.size(); n += 2)
        hits.onSurface.push_back({hits.crossings[n], hits.crossings[n + 1]});
      std::uint8_t* line = solid.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(nx);
      for (const auto& range : hits.onSurface) {
        long long first, last;
        cellsBetween(range[0], range[1], origin[0], nx, first, last);
        for (long long i = first; i <= last; ++i) line[i] = 1;
      }
    }
  }
  if (times) times->rowsSeconds = std::chrono::duration<double>(Clock::now() - indexed).count();
  if (oddRow >= 0)
    throw std::invalid_argument(fmt::format(
        "voxelize: the line along x through (y, z) = ({}, {}) crosses the surface {} times, an odd number: the mesh "
        "is not closed (checkClosed says where)",
        centre(origin[1], oddRow % ny), centre(origin[2], oddRow / ny), oddCount));
  return solid;
}

MeshIndex::MeshIndex(TriangleMesh mesh) : mesh_(std::move(mesh)) {
  const std::size_t count = mesh_.triangles.size();
  if (count == 0) throw std::invalid_argument("MeshIndex: the mesh has no triangles");
  if (count > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument(fmt::format("MeshIndex: {} triangles are more than 2^32", count));
  const Box3 box = boundingBox(mesh_);
  double area = 0;
  for (const Triangle& t : mesh_.triangles) {
    for (const Vec3& p : t)
      for (double x : p)
        if (!std::isfinite(x)) throw std::invalid_argument("MeshIndex: the mesh has a non-finite coordinate");
    const Vec3 e1{t[1][0] - t[0][0], t[1][1] - t[0][1], t[1][2] - t[0][2]};
    const Vec3 e2{t[2][0] - t[0][0], t[2][1] - t[0][1], t[2][2] - t[0][2]};
    area += 0.5 * std::hypot(e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                             e1[0] * e2[1] - e1[1] * e2[0]);
  }
  // Bins about twice the size of a typical triangle keep a few triangles per bin on the surface; the grid is capped
  // at a few bins per triangle (a surface fills a thin shell of the box, most bins stay empty).
  Vec3 extent;
  double largest = 0;
  for (int a = 0; a < 3; ++a) largest = std::max(largest, box.max[a] - box.min[a]);
  for (int a = 0; a < 3; ++a) {
    // A little margin, so that points on the box's faces fall inside the grid; flat meshes get a thin slab.
    const double margin = 1e-9 * largest + 1e-300;
    extent[a] = std::max(box.max[a] - box.min[a], 1e-6 * largest) + 2 * margin;
    lo_[a] = box.min[a] - margin;
  }
  const double volume = extent[0] * extent[1] * extent[2];
  const double maxBins = std::min(4.0 * static_cast<double>(count), double{1 << 24});
  const double h = std::max(2 * std::sqrt(area / static_cast<double>(count)), std::cbrt(volume / maxBins));
  std::size_t total = 1;
  for (int a = 0; a < 3; ++a) {
    // A mesh shrunk to a point has no size to divide: one bin.
    n_[a] = h > 0 && std::isfinite(h) ? static_cast<int>(std::clamp(std::ceil(extent[a] / h), 1.0, 4096.0)) : 1;
    binSize_[a] = extent[a] / n_[a];
    total *= static_cast<std::size_t>(n_[a]);
  }

  auto binRange = [&](const Triangle& t, std::array<int, 3>& first, std::array<int, 3>& last) {
    for (int a = 0; a < 3; ++a) {
      const double lo = std::min({t[0][a], t[1][a], t[2][a]}), hi = std::max({t[0][a], t[1][a], t[2][a]});
      first[a] = std::clamp(static_cast<int>(std::floor((lo - lo_[a]) / binSize_[a])), 0, n_[a] - 1);
      last[a] = std::clamp(static_cast<int>(std::floor((hi - lo_[a]) / binSize_[a])), 0, n_[a] - 1);
    }
  };
  start_.assign(total + 1, 0);
  auto forBins = [&](const Triangle& t, auto&& visit) {
    std::array<int, 3> first, last;
    binRange(t, first, last);
    for (int z = first[2]; z <= last[2]; ++z)
      for (int y = first[1]; y <= last[1]; ++y)
        for (int x = first[0]; x <= last[0]; ++x)
          visit(static_cast<std::size_t>(x) + static_cast<std::size_t>(n_[0]) *
                                                  (static_cast<std::size_t>(y) + static_cast<std::size_t>(n_[1]) * z));
  };
  for (const Triangle& t : mesh_.triangles) forBins(t, [&](std::size_t b) { ++start_[b + 1]; });
  for (std::size_t b = 0; b < total; ++b) start_[b + 1] += start_[b];
  items_.resize(start_[total]);
  std::vector<std::size_t> fill(start_.begin(), start_.end() - 1);
  for (std::size_t i = 0; i < count; ++i)
    forBins(mesh_.triangles[i], [&](std::size_t b) { items_[fill[b]++] = static_cast<std::uint32_t>(i); });
}

std::size_t MeshIndex::largestBin() const {
  std::size_t most = 0;
  for (std::size_t b = 0; b + 1 < start_.size(); ++b) most = std::max(most, start_[b + 1] - start_[b]);
  return most;
}

std::optional<SegmentHit> MeshIndex::firstHit(const Vec3& from, const Vec3& to) const {
  for (int a = 0; a < 3; ++a)
    if (!std::isfinite(from[a]) || !std::isfinite(to[a]))
      throw std::invalid_argument(fmt::format("segment ({}, {}, {}) -> ({}, {}, {}) has a non-finite coordinate",
                                              from[0], from[1], from[2], to[0], to[1], to[2]));
  const Vec3 d{to[0] - from[0], to[1] - from[1], to[2] - from[2]};
  if (d[0] == 0 && d[1] == 0 && d[2] == 0) return std::nullopt;  // a point crosses nothing
  // The part of the segment inside the grid, as t0 .. t1.
  double t0 = 0, t1 = 1;
  for (int a = 0; a < 3; ++a) {
    const double hiEdge = lo_[a] + binSize_[a] * n_[a];
    if (d[a] == 0) {
      if (from[a] < lo_[a] || from[a] > hiEdge) return std::nullopt;
      continue;
    }
    double ta = (lo_[a] - from[a]) / d[a], tb = (hiEdge - from[a]) / d[a];
    if (ta > tb) std::swap(ta, tb);
    t0 = std::max(t0, ta);
    t1 = std::min(t1, tb);
  }
  if (t0 > t1) return std::nullopt;

  // Watertight ray-triangle test (Woop, Benthin and Wald 2013): the ray is sheared onto the +z axis of a permuted
  // frame, the same way for every triangle, so that the edge functions of a shared edge are exact negatives of
  // each other in its two triangles and a ray through the edge is accepted by at least one.
  int kz = 0;
  for (int a = 1; a < 3; ++a)
    if (std::fabs(d[a]) > std::fabs(d[kz])) kz = a;
  int kx = (kz + 1) % 3, ky = (kx + 1) % 3;
  if (d[kz] < 0) std::swap(kx, ky);
  const double sx = d[kx] / d[kz], sy = d[ky] / d[kz], sz = 1.0 / d[kz];
  std::optional<SegmentHit> best;
  auto test = [&](std::uint32_t index) {
    const Triangle& tri = mesh_.triangles[index];
    double px[3], py[3], pz[3];
    for (int v = 0; v < 3; ++v) {
      const double rx = tri[v][kx] - from[kx], ry = tri[v][ky] - from[ky], rz = tri[v][kz] - from[kz];
      px[v] = rx - sx * rz;
      py[v] = ry - sy * rz;
      pz[v] = sz * rz;
    }
    const double u = px[2] * py[1] - py[2] * px[1];
    const double v = px[0] * py[2] - py[0] * px[2];
    const double w = px[1] * py[0] - py[1] * px[0];
    if ((u < 0 || v < 0 || w < 0) && (u > 0 || v > 0 || w > 0)) return;
    const double det = u + v + w;
    if (det == 0) return;  // the segment runs in the triangle's plane: its neighbours report the crossing
    const double t = (u * pz[0] + v * pz[1] + w * pz[2]) / det;
    if (t < 0 || t > 1) return;
    if (!best || t < best->t || (t == best->t && index < best->triangle)) best = SegmentHit{t, index};
  };

  // Walk the bins along the segment (Amanatides and Woo), stopping once the best hit lies before the bin's exit.
  const Vec3 p0{from[0] + t0 * d[0], from[1] + t0 * d[1], from[2] + t0 * d[2]};
  std::array<int, 3> cell, step;
  Vec3 tNext, tDelta;
  constexpr double inf = std::numeric_limits<double>::infinity();
  for (int a = 0; a < 3; ++a) {
    cell[a] = std::clamp(static_cast<int>(std::floor((p0[a] - lo_[a]) / binSize_[a])), 0, n_[a] - 1);
    if (d[a] > 0) {
      step[a] = 1;
      tNext[a] = (lo_[a] + binSize_[a] * (cell[a] + 1) - from[a]) / d[a];
      tDelta[a] = binSize_[a] / d[a];
    } else if (d[a] < 0) {
      step[a] = -1;
      tNext[a] = (lo_[a] + binSize_[a] * cell[a] - from[a]) / d[a];
      tDelta[a] = -binSize_[a] / d[a];
    } else {
      step[a] = 0;
      tNext[a] = inf;
      tDelta[a] = inf;
    }
  }
  // A triangle filed in two neighbouring bins is tested once: each bin lists its triangles in ascending order, so
  // a merge against the previous bin's list finds the repeats.
  std::size_t previous = 0, previousEnd = 0;
  while (true) {
    const std::size_t b = static_cast<std::size_t>(cell[0]) +
                          static_cast<std::size_t>(n_[0]) *
                              (static_cast<std::size_t>(cell[1]) + static_cast<std::size_t>(n_[1]) * cell[2]);
    for (std::size_t n = start_[b]; n < start_[b + 1]; ++n) {
      while (previous < previousEnd && items_[previous] < items_[n]) ++previous;
      if (previous < previousEnd && items_[previous] == items_[n]) continue;
      test(items_[n]);
    }
    previous = start_[b];
    previousEnd = start_[b + 1];
    int a = 0;
    if (tNext[1] < tNext[a]) a = 1;
    if (tNext[2] < tNext[a]) a = 2;
    const double exit = tNext[a];
    // The bins' faces are computed in floating point; a hit a rounding error past the exit is still in this bin
    // or the next, which the walk visits.
    if (best && best->t <= exit) break;
    if (exit > t1) break;
    cell[a] += step[a];
    if (cell[a] < 0 || cell[a] >= n_[a]) break;
    tNext[a] += tDelta[a];
  }
  return best;
}

std::optional<double> segmentEntry(const MeshIndex& index, const Vec3& from, const Vec3& to) {
  if (auto hit = index.firstHit(from, to)) return hit->t;
  return std::nullopt;
}

}  // namespace hopsim::geometry
