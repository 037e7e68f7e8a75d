// The bin geometry of the CUDA neighbour-list build (kernels/md/BinStencil.h), run on the host against brute force:
// every pair within range is found once, through the right image, for float and double pair arithmetic. Needs no
// GPU (tagged [md], not [gpu]); it lives with the GPU MD tests because it checks the GPU build's search.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "CatchCompat.h"
#include "kernels/md/BinStencil.h"
#include "kernels/md/PeriodicBox.h"

using namespace hopsim::md;

namespace {

struct Layout {
  std::array<double, 3> box;
  double range;
};

// Bins exactly as the CUDA engine sets them up (half-range bins) and sorts the atoms into them; then, per atom, the
// candidates the build kernel visits and the pairs it keeps, compared with an all-pairs minimum-image search.
template <class P>
void checkStencil(const Layout& lay, std::vector<std::array<double, 3>> pos) {
  const double range = lay.range;
  BinAxis<P> axes[3];
  double inverseCell[3];
  int cells[3];
  double maxLength = 0;
  for (int d = 0; d < 3; ++d) {
    REQUIRE(std::floor(lay.box[d] / (range / 2)) >= 5);  // the fast build's condition (reach 2)
    cells[d] = std::max(1, static_cast<int>(std::floor(lay.box[d] * 2 / range)));
    inverseCell[d] = cells[d] / lay.box[d];
    axes[d].cells = cells[d];
    axes[d].length = P(lay.box[d]);
    axes[d].width = P(lay.box[d] / cells[d]);
    axes[d].inverse = P(cells[d] / lay.box[d]);
    maxLength = std::max(maxLength, lay.box[d]);
  }
  const P search = P(range * (1 + 1e-6) + 16 * std::numeric_limits<P>::epsilon() * maxLength);
  const P rangeSq = P(range * range);

  const std::size_t n = pos.size();
  auto cellOf = [&](const std::array<double, 3>& p) {
    int c[3];
    for (int d = 0; d < 3; ++d) c[d] = std::min(cells[d] - 1, std::max(0, static_cast<int>(p[d] * inverseCell[d])));
    return c[0] + cells[0] * (c[1] + cells[1] * c[2]);
  };
  std::stable_sort(pos.begin(), pos.end(), [&](const auto& a, const auto& b) { return cellOf(a) < cellOf(b); });
  const int ncell = cells[0] * cells[1] * cells[2];
  std::vector<int> start(ncell + 1, 0);
  for (const auto& p : pos) ++start[cellOf(p) + 1];
  for (int c = 0; c < ncell; ++c) start[c + 1] += start[c];
  std::vector<std::array<P, 3>> pp(n);
  for (std::size_t i = 0; i < n; ++i)
    for (int d = 0; d < 3; ++d) pp[i][d] = P(pos[i][d]);

  const P L[3] = {P(lay.box[0]), P(lay.box[1]), P(lay.box[2])};
  const P H[3] = {P(0.5 * lay.box[0]), P(0.5 * lay.box[1]), P(0.5 * lay.box[2])};
  std::size_t pairs = 0, borderline = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const P x = pp[i][0], y = pp[i][1], z = pp[i][2];
    const BinSpan zs = binSpan(z, search, axes[2]), ys = binSpan(y, search, axes[1]);
    REQUIRE(zs.count <= cells[2]);
    REQUIRE(ys.count <= cells[1]);
    std::set<int> binsSeen;
    std::set<std::size_t> found;
    for (int tz = 0; tz < zs.count; ++tz)
      for (int ty = 0; ty < ys.count; ++ty) {
        const SearchRow<P> row = searchRow(x, y, z, search, ys.lo + ty, zs.lo + tz, axes);
        if (row.empty) continue;
        REQUIRE(row.xs.count <= cells[0]);
        RowRun<P> runs[3];
        splitRow(row.xs, axes[0], runs);
        int nonEmpty = 0, binsInRuns = 0;
        for (const auto& run : runs)
          if (run.last >= run.first) ++nonEmpty, binsInRuns += run.last - run.first + 1;
        REQUIRE(nonEmpty <= 2);
        REQUIRE(binsInRuns == row.xs.count);
        for (int r = 0; r < 3; ++r) {
          if (runs[r].last < runs[r].first) continue;
          REQUIRE(runs[r].first >= 0);
          REQUIRE(runs[r].last < cells[0]);
          for (int b = runs[r].first; b <= runs[r].last; ++b) REQUIRE(binsSeen.insert(row.rowBase + b).second);
          const P hx = x + runs[r].shift, hy = y + row.shiftY, hz = z + row.shiftZ;
          for (int j = start[row.rowBase + runs[r].first]; j < start[row.rowBase + runs[r].last + 1]; ++j) {
            const P dx = hx - pp[j][0], dy = hy - pp[j][1], dz = hz - pp[j][2];
            if (dx * dx + dy * dy + dz * dz < rangeSq && static_cast<std::size_t>(j) != i) {
              // Through the shift, the displacement is the minimum image.
              const P mx = minimumImage(P(x - pp[j][0]), L[0], H[0]);
              const P my = minimumImage(P(y - pp[j][1]), L[1], H[1]);
              const P mz = minimumImage(P(z - pp[j][2]), L[2], H[2]);
              const double tol = 1e-4 * std::max(1.0, maxLength);
              CHECK(std::abs(double(dx) - double(mx)) < tol);
              CHECK(std::abs(double(dy) - double(my)) < tol);
              CHECK(std::abs(double(dz) - double(mz)) < tol);
              REQUIRE(found.insert(static_cast<std::size_t>(j)).second);
            }
          }
        }
      }
    // All pairs: everything inside the range must have been found; rounding may decide pairs at the range itself.
    for (std::size_t j = 0; j < n; ++j) {
      if (j == i) continue;
      const double dx = minimumImage(pos[i][0] - pos[j][0], lay.box[0], 0.5 * lay.box[0]);
      const double dy = minimumImage(pos[i][1] - pos[j][1], lay.box[1], 0.5 * lay.box[1]);
      const double dz = minimumImage(pos[i][2] - pos[j][2], lay.box[2], 0.5 * lay.box[2]);
      const double r2 = dx * dx + dy * dy + dz * dz;
      const bool in = found.count(j) > 0;
      if (std::abs(r2 - range * range) < 1e-4 * range * range) {
        ++borderline;
        continue;
      }
      if ((r2 < range * range) != in) {
        INFO("atom " << i << " at (" << pos[i][0] << ", " << pos[i][1] << ", " << pos[i][2] << "), partner " << j
                     << " at (" << pos[j][0] << ", " << pos[j][1] << ", " << pos[j][2] << "), r " << std::sqrt(r2));
        CHECK((r2 < range * range) == in);
      }
      if (in) ++pairs;
    }
  }
  INFO("pairs " << pairs << ", borderline " << borderline);
  CHECK(pairs > 0);
}

std::vector<std::array<double, 3>> randomAtoms(const std::array<double, 3>& box, double density, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const auto n = static_cast<std::size_t>(density * box[0] * box[1] * box[2]);
  std::vector<std::array<double, 3>> pos(n);
  for (auto& p : pos)
    for (int d = 0; d < 3; ++d) p[d] = u(rng) * box[d];
  // Atoms on bin edges, at 0 and just below L (float rounds some of them up to L).
  for (int d = 0; d < 3; ++d) {
    pos[d][d] = 0.0;
    pos[3 + d][d] = std::nextafter(box[d], 0.0);
    pos[6 + d][d] = box[d] - 1e-9;
    pos[9 + d][d] = box[d] * 0.4;  // an interior bin edge when cells is a multiple of 5
  }
  return pos;
}

}  // namespace

TEST_CASE("md list stencil: every pair within range once, through its minimum image", "[md][list]") {
  const double range = 2.8;  // LJ benchmark: cutoff 2.5 + skin 0.3
  const Layout layouts[] = {
      {{14.0, 14.0, 14.0}, range},   // bins exactly range / 2 wide: spans of cells + 1 bins get clamped
      {{7.0, 7.0, 7.0}, range},      // 5 bins per axis, exactly range / 2: the smallest box of the fast build
      {{7.9, 9.3, 16.1}, range},     // 5, 6 and 11 bins, not cubic
      {{8.34, 8.34, 8.34}, 3.3},     // NIST validation case: 500 atoms at density 0.86, cutoff 3 + skin 0.3
  };
  for (const auto& lay : layouts) {
    INFO("box " << lay.box[0] << " x " << lay.box[1] << " x " << lay.box[2] << ", range " << lay.range);
    const auto atoms = randomAtoms(lay.box, 0.8442, 7);
    checkStencil<float>(lay, atoms);
    checkStencil<double>(lay, atoms);
  }
}
