// What one line along +x through a row of cell centres meets of one triangle, and which cells of the row lie in
// an x range: the per-row arithmetic of voxelisation, shared by the CPU voxeliser (MeshVoxelizer.cpp) and the
// CUDA one (kernels/geometry/cuda/GpuVoxelizer.cu). Both must classify every cell alike, so the code is written
// once, with no library calls whose results may differ between host and device, and the files that compile it
// forbid contraction into FMAs (CMakeLists.txt): every rounded operation is then the same IEEE operation on both.
//
// A line through (y, z) = p is read as passing infinitesimally beside it, at (y + e, z + e^2): every triangle sees
// the same shifted line, which meets a closed surface at ordinary points only, so a line through an edge or vertex
// counts each crossing once (the shift plays the part of a top-left rule). The crossing's x is taken at the
// unshifted line.
#pragma once

#include "core/geometry/HostDevice.h"
#include "core/geometry/OrientationExact.h"

namespace hopsim::geometry::scanline {

// The centre of cell i of an axis whose first cell is o: one formula for binning, row tests and filling, so that
// they agree on every tie.
HOPSIM_GEOMETRY_HD double centre(long long o, long long i) { return static_cast<double>(o + i) + 0.5; }

// std::min({a, b, c}) and std::max({...}) as the standard defines them (the first smallest or largest), and
// std::clamp, spelled out for device code.
HOPSIM_GEOMETRY_HD double min3(double a, double b, double c) {
  double r = a;
  if (b < r) r = b;
  if (c < r) r = c;
  return r;
}
HOPSIM_GEOMETRY_HD double max3(double a, double b, double c) {
  double r = a;
  if (r < b) r = b;
  if (r < c) r = c;
  return r;
}
HOPSIM_GEOMETRY_HD double clampTo(double x, double lo, double hi) { return x < lo ? lo : hi < x ? hi : x; }
HOPSIM_GEOMETRY_HD long long clampTo(long long x, long long lo, long long hi) { return x < lo ? lo : hi < x ? hi : x; }

// First and last cell i in [0, n) with lo <= centre(o, i) <= hi; first > last when there is none.
HOPSIM_GEOMETRY_HD void cellsBetween(double lo, double hi, long long o, long long n, long long& first,
                                     long long& last) {
  first = 0;
  last = -1;
  if (!(lo <= hi) || n <= 0) return;
  const double c0 = centre(o, 0), c1 = centre(o, n - 1);
  if (hi < c0 || lo > c1) return;
  first = lo <= c0 ? 0 : clampTo(static_cast<long long>(exact::ceilOf(lo - c0)), 0LL, n - 1);
  last = hi >= c1 ? n - 1 : clampTo(static_cast<long long>(exact::floorOf(hi - c0)), 0LL, n - 1);
  // The rounded differences above may be off by one at a tie; the exact comparisons settle it.
  while (first > 0 && centre(o, first - 1) >= lo) --first;
  while (first < n && centre(o, first) < lo) ++first;
  while (last < n - 1 && centre(o, last + 1) <= hi) ++last;
  while (last >= 0 && centre(o, last) > hi) --last;
}

struct Point2 {
  double u, v;  // y and z
};

// Which side of a -> b the line through p passes when shifted to p + (e, e^2): the exact orientation, and on the
// line itself the sign of the shift's first non-zero term. Never 0 for a != b; opposite for b -> a.
HOPSIM_GEOMETRY_HD int shiftedSide(const Point2& a, const Point2& b, const Point2& p) {
  const int o = exact::orient2d(a.u, a.v, b.u, b.v, p.u, p.v);
  if (o != 0) return o;
  if (a.v != b.v) return a.v > b.v ? 1 : -1;
  return b.u > a.u ? 1 : -1;
}

// A triangle as 9 doubles, vertex after vertex (the layout of geometry::Triangle and of the device copy).
struct TriangleView {
  const double* v;
  HOPSIM_GEOMETRY_HD double operator()(int vertex, int axis) const { return v[3 * vertex + axis]; }
};

// The rows (j0 .. j1) x (k0 .. k1) of a box whose line may meet triangle t: the rows whose centres lie in its y-z
// bounding box, edges included. The box's rows start at (oy, oz) and number ny x nz.
HOPSIM_GEOMETRY_HD void rowRange(const TriangleView& t, long long oy, long long ny, long long oz, long long nz,
                                 long long& j0, long long& j1, long long& k0, long long& k1) {
  cellsBetween(min3(t(0, 1), t(1, 1), t(2, 1)), max3(t(0, 1), t(1, 1), t(2, 1)), oy, ny, j0, j1);
  cellsBetween(min3(t(0, 2), t(1, 2), t(2, 2)), max3(t(0, 2), t(1, 2), t(2, 2)), oz, nz, k0, k1);
}

// x where the line meets the edge from vertex i to vertex j, for an edge whose projection passes through p on the
// axis s (0 = y, 1 = z). Endpoints are taken in a fixed (lexicographic) order so that both triangles along the
// edge compute the same number.
HOPSIM_GEOMETRY_HD double edgeX(const TriangleView& t, int i, int j, int s, double ps) {
  // std::array's operator<: is vertex j before vertex i?
  bool swap = false;
  for (int a = 0; a < 3; ++a) {
    if (t(j, a) < t(i, a)) {
      swap = true;
      break;
    }
    if (t(i, a) < t(j, a)) break;
  }
  if (swap) {
    const int k = i;
    i = j;
    j = k;
  }
  const double sa = t(i, 1 + s), sb = t(j, 1 + s);
  if (ps == sa) return t(i, 0);
  if (ps == sb) return t(j, 0);
  return t(i, 0) + (t(j, 0) - t(i, 0)) * ((ps - sa) / (sb - sa));
}

// What a line meets of one triangle.
enum class HitKind : unsigned char {
  None = 0,
  Crossing = 1,   // passes through the surface at x = lo (== hi)
  OnSurface = 2,  // runs inside a face parallel to x for lo <= x <= hi: centres there count as inside
};
struct RowHit {
  HitKind kind = HitKind::None;
  double lo = 0, hi = 0;
};

// What the line along x through (p.u, p.v) meets of triangle t.
HOPSIM_GEOMETRY_HD RowHit meetTriangle(const TriangleView& t, const Point2& p) {
  RowHit hit;
  const Point2 a{t(0, 1), t(0, 2)}, b{t(1, 1), t(1, 2)}, c{t(2, 1), t(2, 2)};
  const int area = exact::orient2d(a.u, a.v, b.u, b.v, c.u, c.v);
  if (area != 0) {
    const int sa = shiftedSide(b, c, p);
    if (sa != shiftedSide(c, a, p) || sa != shiftedSide(a, b, p)) return hit;
    // Barycentric weights of the unshifted line's point, written so that a face at constant x gives that x exactly.
    const double wa = (c.u - b.u) * (p.v - b.v) - (c.v - b.v) * (p.u - b.u);
    const double wb = (a.u - c.u) * (p.v - c.v) - (a.v - c.v) * (p.u - c.u);
    const double wc = (b.u - a.u) * (p.v - a.v) - (b.v - a.v) * (p.u - a.u);
    const double sum = wa + wb + wc;
    const double xLo = min3(t(0, 0), t(1, 0), t(2, 0)), xHi = max3(t(0, 0), t(1, 0), t(2, 0));
    double x;
    if (wb == 0 && wc == 0)  // through a vertex: its own x, whichever triangle around it takes the crossing
      x = t(0, 0);
    else if (wc == 0 && wa == 0)
      x = t(1, 0);
    else if (wa == 0 && wb == 0)
      x = t(2, 0);
    else if (sum != 0)
      x = t(0, 0) + (wb * (t(1, 0) - t(0, 0)) + wc * (t(2, 0) - t(0, 0))) / sum;
    else
      x = (t(0, 0) + t(1, 0) + t(2, 0)) / 3;
    hit.kind = HitKind::Crossing;
    hit.lo = hit.hi = clampTo(x, xLo, xHi);
    return hit;
  }
  // The triangle is parallel to x: the shifted line misses it, but centres on it lie on the surface. Find the
  // projected segment along the axis on which it is longer.
  const double uSpan = max3(a.u, b.u, c.u) - min3(a.u, b.u, c.u);
  const double vSpan = max3(a.v, b.v, c.v) - min3(a.v, b.v, c.v);
  if (uSpan == 0 && vSpan == 0) return hit;  // a zero-area triangle along x
  const int s = vSpan > uSpan ? 1 : 0;
  const Point2 q[3] = {a, b, c};
  const double along[3] = {s ? a.v : a.u, s ? b.v : b.u, s ? c.v : c.u};
  int iMin = 0, iMax = 0;
  for (int i = 1; i < 3; ++i) {
    if (along[i] < along[iMin]) iMin = i;
    if (along[i] > along[iMax]) iMax = i;
  }
  const double ps = s ? p.v : p.u;
  if (ps < along[iMin] || ps > along[iMax]) return hit;
  if (exact::orient2d(q[iMin].u, q[iMin].v, q[iMax].u, q[iMax].v, p.u, p.v) != 0) return hit;
  bool any = false;
  double lo = 0, hi = 0;
  for (int i = 0; i < 3; ++i) {
    const int j = (i + 1) % 3;
    const double s0 = t(i, 1 + s), s1 = t(j, 1 + s);
    if (ps < (s1 < s0 ? s1 : s0) || ps > (s0 < s1 ? s1 : s0)) continue;
    double eLo, eHi;
    if (s0 == s1) {
      eLo = t(j, 0) < t(i, 0) ? t(j, 0) : t(i, 0);
      eHi = t(i, 0) < t(j, 0) ? t(j, 0) : t(i, 0);
    } else {
      eLo = eHi = edgeX(t, i, j, s, ps);
    }
    if (!any || eLo < lo) lo = eLo;
    if (!any || hi < eHi) hi = eHi;
    any = true;
  }
  if (any && lo <= hi) {
    hit.kind = HitKind::OnSurface;
    hit.lo = lo;
    hit.hi = hi;
  }
  return hit;
}

}  // namespace hopsim::geometry::scanline
