// Cell-binned Verlet neighbour list for the CPU backend: full list (each pair stored for both atoms), fixed stride.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/md/PeriodicBox.h"

namespace hopsim::md {

template <class T>
class CpuNeighborList {
 public:
  // Bins the particles into cells of side >= range and returns the order that sorts them by cell (a permutation:
  // order[k] = old index of the particle that goes to slot k). The caller applies it to every per-particle array.
  const std::vector<std::int32_t>& sortOrder(const T* x, const T* y, const T* z, std::size_t n,
                                             const std::array<double, 3>& box, double range) {
    for (int d = 0; d < 3; ++d) {
      cells_[d] = std::max(1, static_cast<int>(std::floor(box[d] / range)));
      inverseCell_[d] = static_cast<double>(cells_[d]) / box[d];
    }
    const std::size_t ncell = static_cast<std::size_t>(cells_[0]) * cells_[1] * cells_[2];
    cellOf_.resize(n);
    cellStart_.assign(ncell + 1, 0);
    for (std::size_t i = 0; i < n; ++i) {
      cellOf_[i] = cellIndex(x[i], y[i], z[i]);
      ++cellStart_[cellOf_[i] + 1];
    }
    for (std::size_t c = 0; c < ncell; ++c) cellStart_[c + 1] += cellStart_[c];
    order_.resize(n);
    std::vector<std::int32_t> fill(cellStart_.begin(), cellStart_.end() - 1);
    for (std::size_t i = 0; i < n; ++i) order_[fill[cellOf_[i]]++] = static_cast<std::int32_t>(i);
    buildStencils();
    return order_;
  }

  // Builds the list for particles already sorted by sortOrder(). Grows the stride when an atom has more neighbours.
  void build(const T* x, const T* y, const T* z, std::size_t n, const std::array<double, 3>& box, double range) {
    const T rangeSq = static_cast<T>(range * range);
    const T L[3] = {T(box[0]), T(box[1]), T(box[2])};
    const T H[3] = {T(0.5 * box[0]), T(0.5 * box[1]), T(0.5 * box[2])};
    count_.resize(n);
    for (;;) {
      list_.resize(n * stride_);
      int overflow = 0;
#pragma omp parallel for schedule(static) reduction(max : overflow)
      for (std::size_t i = 0; i < n; ++i) {
        const int ci = cellIndex(x[i], y[i], z[i]);
        int m = 0;
        for (int s = stencilStart_[ci]; s < stencilStart_[ci + 1]; ++s) {
          const int c = stencil_[s];
          for (int j = cellStart_[c]; j < cellStart_[c + 1]; ++j) {
            if (static_cast<std::size_t>(j) == i) continue;
            const T dx = minimumImage(T(x[i] - x[j]), L[0], H[0]);
            const T dy = minimumImage(T(y[i] - y[j]), L[1], H[1]);
            const T dz = minimumImage(T(z[i] - z[j]), L[2], H[2]);
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

  int stride() const { return stride_; }
  const std::int32_t* neighbors(std::size_t i) const { return list_.data() + i * stride_; }
  int count(std::size_t i) const { return count_[i]; }
  const std::vector<int>& counts() const { return count_; }

 private:
  int cellIndex(T x, T y, T z) const {
    auto axis = [&](T v, int d) { return std::min(cells_[d] - 1, std::max(0, static_cast<int>(v * inverseCell_[d]))); };
    return axis(x, 0) + cells_[0] * (axis(y, 1) + cells_[1] * axis(z, 2));
  }

  // Neighbouring cells of each cell, each listed once even when fewer than 3 cells span an axis.
  void buildStencils() {
    const int ncell = cells_[0] * cells_[1] * cells_[2];
    stencilStart_.assign(ncell + 1, 0);
    stencil_.clear();
    for (int c = 0; c < ncell; ++c) {
      const int cx = c % cells_[0], cy = (c / cells_[0]) % cells_[1], cz = c / (cells_[0] * cells_[1]);
      const std::size_t first = stencil_.size();
      for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            const int nx = (cx + dx + cells_[0]) % cells_[0], ny = (cy + dy + cells_[1]) % cells_[1],
                      nz = (cz + dz + cells_[2]) % cells_[2];
            const int nc = nx + cells_[0] * (ny + cells_[1] * nz);
            if (std::find(stencil_.begin() + first, stencil_.end(), nc) == stencil_.end()) stencil_.push_back(nc);
          }
      stencilStart_[c + 1] = static_cast<int>(stencil_.size());
    }
  }

  std::array<int, 3> cells_{1, 1, 1};
  std::array<double, 3> inverseCell_{1, 1, 1};
  std::vector<int> cellOf_, cellStart_, stencilStart_, stencil_, count_;
  std::vector<std::int32_t> order_, list_;
  int stride_ = 64;
};

}  // namespace hopsim::md
