// The cell grid of the Hopper MD force path (kernels/md/CellBricks.h), run on the host: the sort keys number every
// cell once, brick by brick with a cluster's eight bricks consecutive, and the 27-cell walk the kernel makes (cells
// from the keys, one periodic image per neighbour cell) finds every pair within range exactly once against an
// all-pairs minimum-image search. Needs no GPU.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "CatchCompat.h"
#include "kernels/md/CellBricks.h"
#include "kernels/md/PeriodicBox.h"

using namespace hopsim::md;

namespace {

using Pairs = std::set<std::pair<std::size_t, std::size_t>>;

std::vector<std::array<double, 3>> randomAtoms(const std::array<double, 3>& box, double density, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const auto n = static_cast<std::size_t>(density * box[0] * box[1] * box[2]);
  std::vector<std::array<double, 3>> pos(n);
  for (auto& p : pos)
    for (int d = 0; d < 3; ++d) p[d] = u(rng) * box[d];
  for (int d = 0; d < 3; ++d) {  // on the grid's edges
    pos[d][d] = 0.0;
    pos[3 + d][d] = std::nextafter(box[d], 0.0);
  }
  return pos;
}

Pairs bruteForce(const std::vector<std::array<double, 3>>& pos, const std::array<double, 3>& box, double range) {
  Pairs out;
  for (std::size_t i = 0; i < pos.size(); ++i)
    for (std::size_t j = 0; j < pos.size(); ++j) {
      if (i == j) continue;
      double r2 = 0;
      for (int d = 0; d < 3; ++d) {
        const double dx = minimumImage(pos[i][d] - pos[j][d], box[d], 0.5 * box[d]);
        r2 += dx * dx;
      }
      if (r2 < range * range) out.insert({i, j});
    }
  return out;
}

// The kernel's walk: atoms sorted by key, cellStart over every key, then per atom the 27 cells around the cell of its
// key, each at one periodic image.
Pairs cellWalk(const CellBricks& g, const std::vector<std::array<double, 3>>& pos, double range, long long& twice) {
  std::vector<std::pair<unsigned, std::size_t>> sorted;
  for (std::size_t i = 0; i < pos.size(); ++i) sorted.push_back({g.keyOf(pos[i][0], pos[i][1], pos[i][2]), i});
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::size_t> cellStart(static_cast<std::size_t>(g.keys()) + 1, 0);
  for (const auto& s : sorted) ++cellStart[s.first + 1];
  for (std::size_t k = 1; k < cellStart.size(); ++k) cellStart[k] += cellStart[k - 1];
  Pairs out;
  for (std::size_t a = 0; a < sorted.size(); ++a) {
    const std::size_t i = sorted[a].second;
    int c[3];
    g.cellOfKey(sorted[a].first, c);
    for (int oz = -1; oz <= 1; ++oz)
      for (int oy = -1; oy <= 1; ++oy)
        for (int ox = -1; ox <= 1; ++ox) {
          const AxisNeighbour n[3] = {axisNeighbour(c[0], ox, g.cells[0]), axisNeighbour(c[1], oy, g.cells[1]),
                                      axisNeighbour(c[2], oz, g.cells[2])};
          const unsigned key = g.key(n[0].cell, n[1].cell, n[2].cell);
          for (std::size_t b = cellStart[key]; b < cellStart[key + 1]; ++b) {
            const std::size_t j = sorted[b].second;
            if (j == i) continue;
            double r2 = 0;
            for (int d = 0; d < 3; ++d) {
              const double dx = pos[i][d] - n[d].image * g.length[d] - pos[j][d];
              r2 += dx * dx;
            }
            // A pair found twice (a cell named twice by the stencil) is counted, and must not happen.
            if (r2 < range * range && !out.insert({i, j}).second) ++twice;
          }
        }
  }
  return out;
}

}  // namespace

TEST_CASE("md cell bricks: every cell has one key, bricks in clusters of eight consecutive keys", "[md][cells]") {
  for (const auto& box : {std::array<double, 3>{8.5, 8.5, 8.5}, std::array<double, 3>{30.0, 12.0, 47.0}}) {
    const CellBricks g = makeCellBricks(box.data(), 2.8);
    INFO("cells " << g.cells[0] << " x " << g.cells[1] << " x " << g.cells[2]);
    REQUIRE(g.cells[0] >= 3);
    std::set<unsigned> seen;
    for (int z = 0; z < g.cells[2]; ++z)
      for (int y = 0; y < g.cells[1]; ++y)
        for (int x = 0; x < g.cells[0]; ++x) {
          const unsigned key = g.key(x, y, z);
          CHECK(key < static_cast<unsigned>(g.keys()));
          CHECK(seen.insert(key).second);
          int c[3];
          g.cellOfKey(key, c);
          CHECK((c[0] == x && c[1] == y && c[2] == z));
          // The brick of the key is the cell's brick; the cluster is that of the brick's 2 x 2 x 2 group.
          const int brick = static_cast<int>(key / kBrickCells);
          int b[3];
          g.brickCoords(brick, b);
          CHECK((b[0] == x / kBrick && b[1] == y / kBrick && b[2] == z / kBrick));
          const int groupFirst = g.brickAt(b[0] & ~1, b[1] & ~1, b[2] & ~1);
          CHECK(brick - groupFirst >= 0);
          CHECK(brick - groupFirst < kClusterBricks);
          CHECK(groupFirst % kClusterBricks == 0);
        }
  }
  // Too small a box: fewer than 3 cells along an axis.
  const double small[3] = {8.5, 8.3, 8.5};
  CHECK(makeCellBricks(small, 2.8).cells[0] == 0);
}

TEST_CASE("md cell bricks: the 27-cell walk finds every pair within range once, at its minimum image",
          "[md][cells]") {
  const double range = 2.8;  // LJ benchmark: cutoff 2.5 + skin 0.3
  for (const auto& box : {std::array<double, 3>{8.41, 8.41, 8.41},     // 3 cells per axis, the smallest grid
                          std::array<double, 3>{11.3, 25.0, 8.9},      // 4, 8, 3: a brick edge on y
                          std::array<double, 3>{31.0, 14.2, 17.5}}) {  // 11, 5, 6: partial bricks and clusters
    const CellBricks g = makeCellBricks(box.data(), range);
    INFO("box " << box[0] << " x " << box[1] << " x " << box[2] << ", cells " << g.cells[0] << " x " << g.cells[1]
                << " x " << g.cells[2]);
    REQUIRE(g.cells[0] >= 3);
    const auto atoms = randomAtoms(box, 0.8442, 11);
    const Pairs expected = bruteForce(atoms, box, range);
    long long twice = 0;
    const Pairs found = cellWalk(g, atoms, range, twice);
    REQUIRE(expected.size() > 1000);
    CHECK(twice == 0);
    CHECK(found == expected);
  }
}
