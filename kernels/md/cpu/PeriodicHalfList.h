// The single-rank CPU engine's neighbour list in a periodic box: atoms sorted by cell, the images of the atoms within
// one cell of the box's faces as ghost atoms (a box length away), and a half list over the own cell and 13 of the 26
// around it, so that each pair, and each image of a pair, is listed once and the pair loop needs no minimum image.
#pragma once

#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace hopsim::md {

// Atoms 0..n-1 are the engine's, sorted by cell; atoms n..n+ghosts()-1 are images: ghost g is atom ghostOwner()[g]
// moved by ghostShift(g). The list names atoms of either kind; a ghost's reaction belongs to its owner.
//
// Why a half stencil is exact: a pair image at cell offset o from atom i is listed from i when o is one of the 13
// offsets after (0,0,0) in z-y-x order, and from its partner (which sees i at offset -o) otherwise; within the own
// cell by the lower index. The extended grid (x and y one cell beyond both faces, z one beyond the upper face) gives
// each offset its own (cell, shift), also with 2 cells along an axis (the box is at least twice the range: at most
// one of the images of an atom across that axis is in range), so nothing is listed twice. Every j listed for i is
// above i (later cells, or ghosts), which the engine does not rely on.
template <class S>
class PeriodicHalfList {
 public:
  // Cells at least `range` wide: the own cell and its 26 neighbours hold every atom within range.
  void setBox(const std::array<double, 3>& box, double range) {
    range_ = range;
    for (int d = 0; d < 3; ++d) {
      length_[d] = S(box[d]);
      cells_[d] = std::max(1, static_cast<int>(std::floor(box[d] / range)));
      inverseCell_[d] = static_cast<double>(cells_[d]) / box[d];
    }
    ext_ = {cells_[0] + 2, cells_[1] + 2, cells_[2] + 1};
    int s = 0;
    for (int dz = 0; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          if (dz == 0 && (dy < 0 || (dy == 0 && dx <= 0))) continue;  // the own cell and the 13 before it
          stencil_[s++] = dx + ext_[0] * (dy + ext_[1] * dz);
        }
  }

  // Bins the n atoms (a counting sort, stable in the atoms' order) and returns the order that sorts them by cell:
  // order[k] = old index of the atom for slot k. The caller applies it to every per-atom array before build().
  const std::vector<std::int32_t>& sortOrder(const S* x, const S* y, const S* z, std::size_t n) {
    const int ncell = cells_[0] * cells_[1] * cells_[2];
    const int team = omp_get_max_threads();
    cellOf_.resize(n);
    counts_.assign(static_cast<std::size_t>(team) * ncell, 0);
    order_.resize(n);
    cellStart_.assign(ncell + 1, 0);
#pragma omp parallel num_threads(team)
    {
      // Each thread bins a contiguous chunk of atoms; chunks are laid out in thread order within each cell, so the
      // order is that of a serial stable sort whatever the thread count.
      const int t = omp_get_thread_num(), nt = omp_get_num_threads();
      const std::size_t lo = n * t / nt, hi = n * (t + 1) / nt;
      int* count = counts_.data() + static_cast<std::size_t>(t) * ncell;
      for (std::size_t i = lo; i < hi; ++i) {
        const int c = cellOf(x[i], y[i], z[i]);
        cellOf_[i] = c;
        ++count[c];
      }
#pragma omp barrier
#pragma omp single
      {
        int at = 0;
        for (int c = 0; c < ncell; ++c) {
          cellStart_[c] = at;
          for (int u = 0; u < nt; ++u) {
            int& k = counts_[static_cast<std::size_t>(u) * ncell + c];
            const int m = k;
            k = at;  // becomes thread u's next slot in cell c
            at += m;
          }
        }
        cellStart_[ncell] = at;
      }
      for (std::size_t i = lo; i < hi; ++i) order_[count[cellOf_[i]]++] = static_cast<std::int32_t>(i);
    }
    return order_;
  }

  // The ghosts and the half list, from the positions of the atoms in the order sortOrder() gave (the caller applied
  // it, or the atoms were already in it). Grows the stride when an atom has more neighbours.
  void build(const S* x, const S* y, const S* z, std::size_t n) {
    n_ = n;
    buildGhosts();
    const std::size_t total = n + ghostOwner_.size();
    xe_.resize(total), ye_.resize(total), ze_.resize(total);
    std::memcpy(xe_.data(), x, n * sizeof(S));
    std::memcpy(ye_.data(), y, n * sizeof(S));
    std::memcpy(ze_.data(), z, n * sizeof(S));
    placeGhosts(xe_.data(), ye_.data(), ze_.data());

    const S rangeSq = static_cast<S>(range_ * range_);
    const int ncell = cells_[0] * cells_[1] * cells_[2];
    int candidates = 0;  // the most atoms in a cell's 14 stencil cells: the scratch an atom needs
    for (int c = 0; c < ncell; ++c) {
      const int e = extendedCell(c);
      int m = cellStart_[c + 1] - cellStart_[c];
      for (int s = 0; s < 13; ++s) m += begin_[e + stencil_[s]].second - begin_[e + stencil_[s]].first;
      candidates = std::max(candidates, m);
    }
    count_.resize(n);
    for (;;) {
      list_.resize(n * static_cast<std::size_t>(stride_));
      int overflow = 0;
#pragma omp parallel reduction(max : overflow)
      {
        std::vector<std::int32_t> found(static_cast<std::size_t>(candidates) + 1);
        const S* xs = xe_.data();
        const S* ys = ye_.data();
        const S* zs = ze_.data();
#pragma omp for schedule(dynamic, 16)
        for (int c = 0; c < ncell; ++c) {
          const int e = extendedCell(c);
          for (int i = cellStart_[c]; i < cellStart_[c + 1]; ++i) {
            const S xi = xs[i], yi = ys[i], zi = zs[i];
            int m = 0;
            // Branch-free: every candidate is written, and kept when in range.
            const auto scan = [&](int a, int b) {
              for (int j = a; j < b; ++j) {
                const S dx = xi - xs[j], dy = yi - ys[j], dz = zi - zs[j];
                found[m] = j;
                m += (dx * dx + dy * dy + dz * dz < rangeSq) ? 1 : 0;
              }
            };
            scan(i + 1, cellStart_[c + 1]);
            for (int s = 0; s < 13; ++s) scan(begin_[e + stencil_[s]].first, begin_[e + stencil_[s]].second);
            count_[i] = m;
            if (m <= stride_) std::memcpy(list_.data() + static_cast<std::size_t>(i) * stride_, found.data(),
                                          static_cast<std::size_t>(m) * sizeof(std::int32_t));
            overflow = std::max(overflow, m);
          }
        }
      }
      if (overflow <= stride_) break;
      stride_ = overflow + overflow / 4 + 8;
    }
  }

  // Positions for the pair loop, for atoms at x, y, z now (wrapped into the box by the drift) that were at x0, y0,
  // z0 at the build: each atom unwrapped next to where it was binned (it moved less than half the box since), each
  // ghost its owner moved by its shift. Arrays of n + ghosts().
  void place(const S* x, const S* y, const S* z, const S* x0, const S* y0, const S* z0, S* xe, S* ye, S* ze) const {
    const std::size_t n = n_;
    const S L[3] = {length_[0], length_[1], length_[2]};
    const S H[3] = {S(0.5) * L[0], S(0.5) * L[1], S(0.5) * L[2]};
#pragma omp for schedule(static) nowait
    for (std::size_t i = 0; i < n; ++i) {
      xe[i] = unwrap(x[i], x0[i], L[0], H[0]);
      ye[i] = unwrap(y[i], y0[i], L[1], H[1]);
      ze[i] = unwrap(z[i], z0[i], L[2], H[2]);
    }
    const std::size_t ng = ghostOwner_.size();
    const std::int32_t* owner = ghostOwner_.data();
    const std::int8_t* shift = ghostShift_.data();
#pragma omp for schedule(static)
    for (std::size_t g = 0; g < ng; ++g) {
      const std::int32_t o = owner[g];
      xe[n + g] = unwrap(x[o], x0[o], L[0], H[0]) + S(shift[3 * g]) * L[0];
      ye[n + g] = unwrap(y[o], y0[o], L[1], H[1]) + S(shift[3 * g + 1]) * L[1];
      ze[n + g] = unwrap(z[o], z0[o], L[2], H[2]) + S(shift[3 * g + 2]) * L[2];
    }
  }

  std::size_t atoms() const { return n_; }
  std::size_t ghosts() const { return ghostOwner_.size(); }
  const std::int32_t* ghostOwner() const { return ghostOwner_.data(); }
  const std::int32_t* neighbors(std::size_t i) const { return list_.data() + i * static_cast<std::size_t>(stride_); }
  int count(std::size_t i) const { return count_[i]; }
  int stride() const { return stride_; }  // at least every atom's count
  const std::vector<int>& counts() const { return count_; }

 private:
  static S unwrap(S v, S v0, S length, S half) {
    const S d = v - v0;
    return d > half ? v - length : (d < -half ? v + length : v);
  }

  // Atoms a rounding error outside the box (or not finite, in a blow-up) go to the edge cell.
  int axisCell(S v, int d) const {
    const double t = static_cast<double>(v) * inverseCell_[d];
    if (!(t >= 0)) return 0;
    return std::min(cells_[d] - 1, static_cast<int>(std::min(t, static_cast<double>(cells_[d]))));
  }
  int cellOf(S x, S y, S z) const { return axisCell(x, 0) + cells_[0] * (axisCell(y, 1) + cells_[1] * axisCell(z, 2)); }
  int extendedCell(int c) const {
    const int cx = c % cells_[0], cy = (c / cells_[0]) % cells_[1], cz = c / (cells_[0] * cells_[1]);
    return (cx + 1) + ext_[0] * ((cy + 1) + ext_[1] * cz);
  }

  // Every cell of the extended grid gets its atom range: the box's own cells their sorted atoms, the others (one
  // layer beyond the faces x-, x+, y-, y+, z+) ghosts, the atoms of the cell they image, in that cell's order.
  void buildGhosts() {
    const int next = ext_[0] * ext_[1] * ext_[2];
    begin_.assign(next, {0, 0});
    ghostOwner_.clear();
    ghostShift_.clear();
    int at = static_cast<int>(n_);
    for (int ez = 0; ez < ext_[2]; ++ez)
      for (int ey = 0; ey < ext_[1]; ++ey)
        for (int ex = 0; ex < ext_[0]; ++ex) {
          const int at3[3] = {ex - 1, ey - 1, ez};
          int real[3];
          std::int8_t shift[3];
          bool ghost = false;
          for (int d = 0; d < 3; ++d) {
            shift[d] = at3[d] < 0 ? -1 : (at3[d] >= cells_[d] ? 1 : 0);
            real[d] = at3[d] - shift[d] * cells_[d];
            ghost = ghost || shift[d] != 0;
          }
          const int c = real[0] + cells_[0] * (real[1] + cells_[1] * real[2]);
          const int e = ex + ext_[0] * (ey + ext_[1] * ez);
          if (!ghost) {
            begin_[e] = {cellStart_[c], cellStart_[c + 1]};
            continue;
          }
          begin_[e].first = at;
          for (int k = cellStart_[c]; k < cellStart_[c + 1]; ++k) {
            ghostOwner_.push_back(k);
            ghostShift_.insert(ghostShift_.end(), shift, shift + 3);
          }
          at += cellStart_[c + 1] - cellStart_[c];
          begin_[e].second = at;
        }
  }

  void placeGhosts(S* xe, S* ye, S* ze) const {
    const std::size_t ng = ghostOwner_.size();
    for (std::size_t g = 0; g < ng; ++g) {
      const std::int32_t o = ghostOwner_[g];
      xe[n_ + g] = xe[o] + S(ghostShift_[3 * g]) * length_[0];
      ye[n_ + g] = ye[o] + S(ghostShift_[3 * g + 1]) * length_[1];
      ze[n_ + g] = ze[o] + S(ghostShift_[3 * g + 2]) * length_[2];
    }
  }

  double range_ = 1;
  std::array<double, 3> inverseCell_{1, 1, 1};
  std::array<S, 3> length_{1, 1, 1};
  std::array<int, 3> cells_{1, 1, 1}, ext_{3, 3, 2};
  std::array<int, 13> stencil_{};                 // extended-cell index offsets of the 13 cells after the own one
  std::size_t n_ = 0;
  std::vector<int> cellOf_, counts_, cellStart_, count_;
  std::vector<std::pair<int, int>> begin_;        // per extended cell: its atoms (owned or ghost), [first, second)
  std::vector<std::int32_t> order_, ghostOwner_, list_;
  std::vector<std::int8_t> ghostShift_;           // per ghost: -1, 0 or +1 box lengths along x, y, z
  std::vector<S> xe_, ye_, ze_;                   // the build's positions with ghosts
  int stride_ = 64;
};

}  // namespace hopsim::md
