// Cell-binned Verlet list on the host (fixed stride), for the periodic box of a single-rank engine and for one rank's
// sub-box with ghosts in a decomposed run (Boundary, PeriodicBox.h). Full (each pair stored for both atoms), or half
// (each pair once, with its lower index) where every atom is listed.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/md/PeriodicBox.h"

namespace hopsim::md {

template <class T, Boundary B>
class CpuNeighborList {
 public:
  // The region the atoms occupy (the periodic box, or the sub-box widened by the ghost width) and the list range;
  // cells are at least `range` wide, so the 27 around an atom's cell hold every atom within range.
  void setRegion(const std::array<double, 3>& lo, const std::array<double, 3>& hi, double range) {
    range_ = range;
    for (int d = 0; d < 3; ++d) {
      lo_[d] = lo[d];
      length_[d] = T(hi[d] - lo[d]);
      halfLength_[d] = T(0.5 * (hi[d] - lo[d]));
      cells_[d] = std::max(1, static_cast<int>(std::floor((hi[d] - lo[d]) / range)));
      inverseCell_[d] = static_cast<double>(cells_[d]) / (hi[d] - lo[d]);
    }
    buildStencils();
  }

  // The order that sorts the first n atoms by cell (order[k] = old index of the atom for slot k): the caller applies
  // it to every per-atom array, so that neighbours become neighbours in memory.
  const std::vector<std::int32_t>& sortOrder(const T* x, const T* y, const T* z, std::size_t n) {
    bin(x, y, z, n);
    return atoms_;
  }

  // Lists, for each of the first `listed` atoms, every atom among all `total` within range (a single-rank engine
  // lists all its atoms: listed == total), or with `half` only those of a higher index (listed == total). Grows the
  // stride when an atom has more neighbours.
  void build(const T* x, const T* y, const T* z, std::size_t listed, std::size_t total, bool half = false) {
    bin(x, y, z, total);
    const T rangeSq = static_cast<T>(range_ * range_);
    count_.resize(listed);
    for (;;) {
      list_.resize(listed * stride_);
      int overflow = 0;
#pragma omp parallel for schedule(static) reduction(max : overflow)
      for (std::size_t i = 0; i < listed; ++i) {
        const int ci = cellOf(x[i], y[i], z[i]);
        int m = 0;
        for (int s = stencilStart_[ci]; s < stencilStart_[ci + 1]; ++s) {
          const int c = stencil_[s];
          for (int k = cellStart_[c]; k < cellStart_[c + 1]; ++k) {
            const std::int32_t j = atoms_[k];
            if (half ? static_cast<std::size_t>(j) <= i : static_cast<std::size_t>(j) == i) continue;
            const T dx = separation(T(x[i] - x[j]), 0), dy = separation(T(y[i] - y[j]), 1),
                    dz = separation(T(z[i] - z[j]), 2);
            if (dx * dx + dy * dy + dz * dz < rangeSq) {
              if (m < stride_) list_[i * stride_ + m] = j;
              ++m;
            }
          }
        }
        count_[i] = m;
        overflow = std::max(overflow, m);
      }
      if (overflow <= stride_) break;
      stride_ = overflow + overflow / 4 + 8;
    }
  }

  const std::int32_t* neighbors(std::size_t i) const { return list_.data() + i * stride_; }
  int count(std::size_t i) const { return count_[i]; }
  int stride() const { return stride_; }  // at least every atom's count
  const std::vector<int>& counts() const { return count_; }

 private:
  T separation(T d, int axis) const {
    if constexpr (B == Boundary::Periodic) return minimumImage(d, length_[axis], halfLength_[axis]);
    else return d;
  }

  // Atoms a rounding error outside the region (or not finite, in a blow-up) go to the edge cell.
  int axisCell(T v, int d) const {
    const double t = (static_cast<double>(v) - lo_[d]) * inverseCell_[d];
    if (!(t >= 0)) return 0;
    return std::min(cells_[d] - 1, static_cast<int>(std::min(t, static_cast<double>(cells_[d]))));
  }
  int cellOf(T x, T y, T z) const { return axisCell(x, 0) + cells_[0] * (axisCell(y, 1) + cells_[1] * axisCell(z, 2)); }

  // Counting sort of atom indices by cell: cellStart_ and atoms_ (the data itself is not moved).
  void bin(const T* x, const T* y, const T* z, std::size_t n) {
    const std::size_t ncell = static_cast<std::size_t>(cells_[0]) * cells_[1] * cells_[2];
    cellOf_.resize(n);
    cellStart_.assign(ncell + 1, 0);
    for (std::size_t i = 0; i < n; ++i) {
      cellOf_[i] = cellOf(x[i], y[i], z[i]);
      ++cellStart_[cellOf_[i] + 1];
    }
    for (std::size_t c = 0; c < ncell; ++c) cellStart_[c + 1] += cellStart_[c];
    atoms_.resize(n);
    std::vector<int> fill(cellStart_.begin(), cellStart_.end() - 1);
    for (std::size_t i = 0; i < n; ++i) atoms_[fill[cellOf_[i]]++] = static_cast<std::int32_t>(i);
  }

  // The cells around each cell, z slowest and x fastest, each listed once: across the periodic box's faces (a box
  // fewer than 3 cells wide would name a cell twice), or clipped at the region's faces, beyond which nothing is.
  void buildStencils() {
    const int ncell = cells_[0] * cells_[1] * cells_[2];
    stencilStart_.assign(ncell + 1, 0);
    stencil_.clear();
    for (int c = 0; c < ncell; ++c) {
      const int at[3] = {c % cells_[0], (c / cells_[0]) % cells_[1], c / (cells_[0] * cells_[1])};
      const std::size_t first = stencil_.size();
      for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            int n[3] = {at[0] + dx, at[1] + dy, at[2] + dz};
            bool inside = true;
            for (int d = 0; d < 3; ++d) {
              if constexpr (B == Boundary::Periodic) n[d] = (n[d] + cells_[d]) % cells_[d];
              else inside = inside && n[d] >= 0 && n[d] < cells_[d];
            }
            if (!inside) continue;
            const int nc = n[0] + cells_[0] * (n[1] + cells_[1] * n[2]);
            if (std::find(stencil_.begin() + first, stencil_.end(), nc) == stencil_.end()) stencil_.push_back(nc);
          }
      stencilStart_[c + 1] = static_cast<int>(stencil_.size());
    }
  }

  double range_ = 1;
  std::array<double, 3> lo_{0, 0, 0}, inverseCell_{1, 1, 1};
  std::array<T, 3> length_{1, 1, 1}, halfLength_{1, 1, 1};
  std::array<int, 3> cells_{1, 1, 1};
  std::vector<int> cellOf_, cellStart_, stencilStart_, stencil_, count_;
  std::vector<std::int32_t> atoms_, list_;
  int stride_ = 64;
};

}  // namespace hopsim::md
