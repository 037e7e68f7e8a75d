// Cell-binned full Verlet list for one rank of a decomposed run: owned atoms against owned + ghost atoms, in a
// bounded region with no periodic images (ghosts already sit at their image positions).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

namespace hopsim::md {

template <class T>
class CpuLocalNeighborList {
 public:
  // The region the atoms occupy (the sub-box widened by the ghost width) and the list range; cells are >= range.
  void setRegion(const std::array<double, 3>& lo, const std::array<double, 3>& hi, double range) {
    range_ = range;
    for (int d = 0; d < 3; ++d) {
      lo_[d] = lo[d];
      cells_[d] = std::max(1, static_cast<int>(std::floor((hi[d] - lo[d]) / range)));
      inverseCell_[d] = static_cast<double>(cells_[d]) / (hi[d] - lo[d]);
    }
  }

  // The order that sorts the first n atoms by cell (order[k] = old index of the atom for slot k), for locality.
  std::vector<std::int32_t> sortOrder(const T* x, const T* y, const T* z, std::size_t n) {
    bin(x, y, z, n);
    return std::vector<std::int32_t>(atoms_.begin(), atoms_.end());
  }

  // Lists, for each of the first `owned` atoms, every atom among all `total` within range.
  void build(const T* x, const T* y, const T* z, std::size_t owned, std::size_t total) {
    bin(x, y, z, total);
    const T rangeSq = static_cast<T>(range_ * range_);
    count_.resize(owned);
    for (;;) {
      list_.resize(owned * stride_);
      int overflow = 0;
#pragma omp parallel for schedule(static) reduction(max : overflow)
      for (std::size_t i = 0; i < owned; ++i) {
        const int cx = axisCell(x[i], 0), cy = axisCell(y[i], 1), cz = axisCell(z[i], 2);
        int m = 0;
        for (int nz = std::max(0, cz - 1); nz <= std::min(cells_[2] - 1, cz + 1); ++nz)
          for (int ny = std::max(0, cy - 1); ny <= std::min(cells_[1] - 1, cy + 1); ++ny)
            for (int nx = std::max(0, cx - 1); nx <= std::min(cells_[0] - 1, cx + 1); ++nx) {
              const int c = nx + cells_[0] * (ny + cells_[1] * nz);
              for (int k = cellStart_[c]; k < cellStart_[c + 1]; ++k) {
                const std::int32_t j = atoms_[k];
                if (static_cast<std::size_t>(j) == i) continue;
                const T dx = x[i] - x[j], dy = y[i] - y[j], dz = z[i] - z[j];
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
  const std::vector<int>& counts() const { return count_; }

 private:
  // Atoms a rounding error outside the region (or not finite, in a blow-up) go to the edge cell.
  int axisCell(T v, int d) const {
    const double t = (static_cast<double>(v) - lo_[d]) * inverseCell_[d];
    if (!(t >= 0)) return 0;
    return std::min(cells_[d] - 1, static_cast<int>(std::min(t, static_cast<double>(cells_[d]))));
  }

  // Counting sort of atom indices by cell: cellStart_ and atoms_ (the data itself is not moved).
  void bin(const T* x, const T* y, const T* z, std::size_t n) {
    const std::size_t ncell = static_cast<std::size_t>(cells_[0]) * cells_[1] * cells_[2];
    cellOf_.resize(n);
    cellStart_.assign(ncell + 1, 0);
    for (std::size_t i = 0; i < n; ++i) {
      cellOf_[i] = axisCell(x[i], 0) + cells_[0] * (axisCell(y[i], 1) + cells_[1] * axisCell(z[i], 2));
      ++cellStart_[cellOf_[i] + 1];
    }
    for (std::size_t c = 0; c < ncell; ++c) cellStart_[c + 1] += cellStart_[c];
    atoms_.resize(n);
    std::vector<int> fill(cellStart_.begin(), cellStart_.end() - 1);
    for (std::size_t i = 0; i < n; ++i) atoms_[fill[cellOf_[i]]++] = static_cast<std::int32_t>(i);
  }

  double range_ = 1;
  std::array<double, 3> lo_{0, 0, 0}, inverseCell_{1, 1, 1};
  std::array<int, 3> cells_{1, 1, 1};
  std::vector<int> cellOf_, cellStart_, count_;
  std::vector<std::int32_t> atoms_, list_;
  int stride_ = 64;
};

}  // namespace hopsim::md
