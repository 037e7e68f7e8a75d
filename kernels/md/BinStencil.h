// Which bins of a cell-sorted periodic box a neighbour search sphere meets, row by row, and through which image:
// the geometry of the CUDA list build, kept host-callable so that it is tested against brute force on any machine.
#pragma once

#include <cmath>

#include "kernels/common/HostDevice.h"

namespace hopsim::md {

// One axis of the bin grid: `cells` bins of width length / cells. Bins are named by unwrapped indices u
// (-cells <= u < 2 cells); u and u +- cells are the same bin seen through neighbouring periodic images.
template <class P>
struct BinAxis {
  int cells = 1;
  P length = 1, width = 1, inverse = 1;  // width = length / cells, inverse = cells / length
};

// floor() for values well inside the int range, the same on host and device.
template <class P>
HOPSIM_HD int floorToInt(P v) {
  const int i = static_cast<int>(v);
  return v < static_cast<P>(i) ? i - 1 : i;
}

struct BinSpan {
  int lo = 0, count = 0;  // unwrapped bins lo .. lo + count - 1
};

// The bins that [x - r, x + r] meets, at most `cells` of them so that no bin is visited through two images: when
// the interval needs more, its two ends are the same bin and the end farther from x is dropped. That end lies at
// least (cells - 1) width / 2 from x; the caller keeps r below that, so nothing within r is lost.
template <class P>
HOPSIM_HD BinSpan binSpan(P x, P r, const BinAxis<P>& a) {
  int lo = floorToInt((x - r) * a.inverse), hi = floorToInt((x + r) * a.inverse);
  while (hi - lo + 1 > a.cells) {
    if (x - static_cast<P>(lo + 1) * a.width > static_cast<P>(hi) * a.width - x) ++lo;
    else --hi;
  }
  return {lo, hi - lo + 1};
}

// Distance from x to unwrapped bin u along one axis (0 inside it).
template <class P>
HOPSIM_HD P binGap(P x, int u, const BinAxis<P>& a) {
  const P below = static_cast<P>(u) * a.width - x, above = x - static_cast<P>(u + 1) * a.width;
  const P g = below > above ? below : above;
  return g > P(0) ? g : P(0);
}

// The stored bin of unwrapped bin u, and the shift that moves the searching atom into that bin's frame: an atom j of
// bin u < 0 is seen at x_j - L, so x_i - (x_j - L) = (x_i + L) - x_j.
template <class P>
struct WrappedBin {
  int bin = 0;
  P shift = 0;
};

template <class P>
HOPSIM_HD WrappedBin<P> wrapBin(int u, const BinAxis<P>& a) {
  if (u < 0) return {u + a.cells, a.length};
  if (u >= a.cells) return {u - a.cells, -a.length};
  return {u, P(0)};
}

// A run of consecutive stored bins along x (first .. last), all seen through the same image shift.
template <class P>
struct RowRun {
  int first = 0, last = -1;
  P shift = 0;
};

// Splits a span of at most `cells` unwrapped bins into runs of stored bins, in fixed slots so that device code keeps
// them in registers: out[0] the part below bin 0 (seen through +L), out[1] the part inside, out[2] the part at or
// above `cells` (seen through -L). Empty runs have last < first; a span of <= cells bins fills at most two.
template <class P>
HOPSIM_HD void splitRow(BinSpan s, const BinAxis<P>& a, RowRun<P> out[3]) {
  const int lo = s.lo, hi = s.lo + s.count - 1;
  out[0] = out[1] = out[2] = RowRun<P>{};
  if (lo < 0) out[0] = {lo + a.cells, (hi < -1 ? hi : -1) + a.cells, a.length};
  if (hi >= 0 && lo < a.cells) out[1] = {lo > 0 ? lo : 0, hi < a.cells - 1 ? hi : a.cells - 1, P(0)};
  if (hi >= a.cells) out[2] = {(lo > a.cells ? lo : a.cells) - a.cells, hi - a.cells, -a.length};
}

// The rows of the search around (x, y, z): for row (ty, tz), 0 <= ty < ys.count, 0 <= tz < zs.count, the bins along
// x that a sphere of radius r meets within that row's y and z slab (none when the slab is farther than r).
template <class P>
struct SearchRow {
  bool empty = true;
  int rowBase = 0;     // stored index of bin (0, y bin, z bin)
  P shiftY = 0, shiftZ = 0;
  BinSpan xs;
};

template <class P>
HOPSIM_HD SearchRow<P> searchRow(P x, P y, P z, P r, int uy, int uz, const BinAxis<P>* axes) {
  SearchRow<P> row;
  const P gy = binGap(y, uy, axes[1]), gz = binGap(z, uz, axes[2]);
  const P q = r * r - gy * gy - gz * gz;
  if (q < P(0)) return row;
  const WrappedBin<P> wy = wrapBin(uy, axes[1]), wz = wrapBin(uz, axes[2]);
  row.empty = false;
  row.rowBase = axes[0].cells * (wy.bin + axes[1].cells * wz.bin);
  row.shiftY = wy.shift;
  row.shiftZ = wz.shift;
  row.xs = binSpan(x, static_cast<P>(sqrt(q)), axes[0]);
  return row;
}

}  // namespace hopsim::md
