// The index arithmetic of the Hopper cluster kernel (kernels/lbm/hopper/ClusterGeometry.h), checked on the host:
// for every cell of periodic boxes of awkward sizes, every direction and every cluster size, the tile slot (own or
// a neighbouring block's, found by its cluster rank) or the global fallback that pullSource() picks must hold the
// population of the upstream cell x - c_i, wrapped where the box is periodic; a tile slot must be one the owning
// block loaded (inside the box). Runs without a GPU.
#include <array>
#include <string>
#include <vector>

#include "CatchCompat.h"
#include "kernels/lbm/hopper/ClusterGeometry.h"

using namespace hopsim::lbm;
using namespace hopsim::lbm::hopper;

namespace {

struct Counts {
  long long own = 0, cluster = 0, global = 0, bad = 0;
};

int wrap(int v, int n) { return ((v % n) + n) % n; }

template <class L>
Counts checkBox(const int n[3], int blocks) {
  int d[3];
  clusterDims(blocks, n[2] > 1, d);
  const unsigned dims[3] = {static_cast<unsigned>(d[0]), static_cast<unsigned>(d[1]), static_cast<unsigned>(d[2])};
  const int tiles[3] = {(n[0] + Tile::x - 1) / Tile::x, (n[1] + Tile::y - 1) / Tile::y, (n[2] + Tile::z - 1) / Tile::z};
  int grid[3];
  for (int a = 0; a < 3; ++a) grid[a] = (tiles[a] + d[a] - 1) / d[a] * d[a];
  const int tileSize[3] = {Tile::x, Tile::y, Tile::z};
  Counts c;
  for (int gz = 0; gz < grid[2]; ++gz)
    for (int gy = 0; gy < grid[1]; ++gy)
      for (int gx = 0; gx < grid[0]; ++gx) {
        const int g[3] = {gx, gy, gz};
        const unsigned inCluster[3] = {static_cast<unsigned>(gx % d[0]), static_cast<unsigned>(gy % d[1]),
                                       static_cast<unsigned>(gz % d[2])};
        for (int lz = 0; lz < Tile::z; ++lz)
          for (int ly = 0; ly < Tile::y; ++ly)
            for (int lx = 0; lx < Tile::x; ++lx) {
              const int x = gx * Tile::x + lx, y = gy * Tile::y + ly, z = gz * Tile::z + lz;
              if (x >= n[0] || y >= n[1] || z >= n[2]) continue;
              for (int i = 0; i < L::Q; ++i) {
                const int expect[3] = {wrap(x - L::c(i, 0), n[0]), wrap(y - L::c(i, 1), n[1]),
                                       wrap(z - L::c(i, 2), n[2])};
                const PullSource s = pullSource<L>(i, n, x, y, z, lx, ly, lz, inCluster, dims);
                if (s.from == PullFrom::Global) {
                  ++c.global;
                  continue;
                }
                // The block that owns the slot: this one, or the cluster block of that rank.
                int owner[3] = {gx, gy, gz};
                if (s.from == PullFrom::Cluster) {
                  const int r[3] = {static_cast<int>(s.rank % dims[0]), static_cast<int>(s.rank / dims[0] % dims[1]),
                                    static_cast<int>(s.rank / (dims[0] * dims[1]))};
                  for (int a = 0; a < 3; ++a) owner[a] = g[a] - g[a] % d[a] + r[a];
                  if (owner[0] == gx && owner[1] == gy && owner[2] == gz) ++c.bad;  // own tile reached by DSMEM
                  ++c.cluster;
                } else {
                  ++c.own;
                }
                const int local[3] = {s.local % Tile::x, s.local / Tile::x % Tile::y, s.local / (Tile::x * Tile::y)};
                bool ok = s.local >= 0 && s.local < Tile::cells;
                for (int a = 0; a < 3; ++a) {
                  const int at = owner[a] * tileSize[a] + local[a];
                  ok = ok && at < n[a] && at == expect[a];  // loaded by its block, and the right cell, unwrapped
                }
                if (!ok) ++c.bad;
              }
            }
      }
  return c;
}

template <class L>
void checkLattice(const std::string& name, const std::vector<std::array<int, 3>>& boxes) {
  for (const auto& box : boxes)
    for (const int blocks : {2, 4, 8, 16}) {
      const int n[3] = {box[0], box[1], box[2]};
      const Counts c = checkBox<L>(n, blocks);
      INFO(name << " " << n[0] << "x" << n[1] << "x" << n[2] << ", clusters of " << blocks << ": own " << c.own
                << ", cluster " << c.cluster << ", global " << c.global);
      CHECK(c.bad == 0);
      CHECK(c.own + c.cluster + c.global == static_cast<long long>(L::Q) * n[0] * n[1] * n[2]);
      CHECK(c.own > 0);
      if (blocks <= (n[2] > 1 ? n[2] : (n[1] + Tile::y - 1) / Tile::y)) CHECK(c.cluster > 0);
    }
}

}  // namespace

TEST_CASE("Hopper cluster kernel: every pull reads the upstream cell", "[unit][lbm][hopper-host]") {
  checkLattice<D2Q9>("D2Q9", {{40, 28, 1}, {136, 90, 1}, {33, 17, 1}, {7, 5, 1}, {64, 128, 1}});
  checkLattice<D3Q19>("D3Q19", {{72, 20, 19}, {10, 16, 14}, {33, 9, 3}, {64, 16, 16}, {5, 3, 2}});
  checkLattice<D3Q27>("D3Q27", {{72, 20, 19}, {33, 9, 3}});
}
