// Geometry of the Hopper cluster kernel, for host and device: the tile of a block, the cluster shape for C blocks,
// and where a cell's population i comes from (its own tile, a neighbouring block's tile in the cluster, or global
// memory). Host code uses it too, so the index arithmetic is checked without a GPU (test_lbm_hopper_host.cpp).
#pragma once

#include "kernels/common/HostDevice.h"
#include "kernels/lbm/Lattice.h"

namespace hopsim::lbm::hopper {

// The cells of one block: 32 along x (a 128-byte row of FP32 populations per direction), 8 along y, 1 along z.
struct Tile {
  static constexpr int x = 32, y = 8, z = 1;
  static constexpr int cells = x * y * z;
};

// Cluster dimensions (in blocks) for C blocks: (1, cy, cz). Along z first in 3D (a 32 x 8 x C brick has less
// surface than 32 x 8C x 1 for C <= 8; C = 16 is 1 x 2 x 8), along y in 2D.
inline void clusterDims(int blocks, bool threeD, int dims[3]) {
  dims[0] = 1;
  if (threeD) {
    dims[2] = blocks < 8 ? blocks : 8;
    dims[1] = blocks / dims[2];
  } else {
    dims[1] = blocks;
    dims[2] = 1;
  }
}

enum class PullFrom { Own, Cluster, Global };

// Where cell (x, y, z) (thread (lx, ly, lz) of its block, the block at `block` within a cluster of `dims` blocks)
// finds population i streamed from x - c_i: its own tile at `local`, the tile of the cluster block `rank` at
// `local`, or global memory (outside the cluster's brick, or across a periodic wrap). `n` is the domain size.
struct PullSource {
  PullFrom from;
  int local;      // cell index within the tile, (lz * Tile::y + ly) * Tile::x + lx
  unsigned rank;  // the owning block's rank within the cluster, x fastest (Cluster only)
};

template <class L>
HOPSIM_HD PullSource pullSource(int i, const int n[3], int x, int y, int z, int lx, int ly, int lz,
                                const unsigned block[3], const unsigned dims[3]) {
  const int cx = L::c(i, 0), cy = L::c(i, 1), cz = L::c(i, 2);
  const bool wraps =
      x - cx < 0 || x - cx >= n[0] || y - cy < 0 || y - cy >= n[1] || z - cz < 0 || z - cz >= n[2];
  const int sx = lx - cx, sy = ly - cy, sz = lz - cz;  // source in tile coordinates: -1 .. Tile
  const int ox = sx < 0 ? -1 : (sx >= Tile::x ? 1 : 0);
  const int oy = sy < 0 ? -1 : (sy >= Tile::y ? 1 : 0);
  const int oz = sz < 0 ? -1 : (sz >= Tile::z ? 1 : 0);
  PullSource s;
  s.local = ((sz - oz * Tile::z) * Tile::y + (sy - oy * Tile::y)) * Tile::x + (sx - ox * Tile::x);
  s.rank = 0;
  const int bx = static_cast<int>(block[0]) + ox, by = static_cast<int>(block[1]) + oy,
            bz = static_cast<int>(block[2]) + oz;
  const bool inCluster = bx >= 0 && bx < static_cast<int>(dims[0]) && by >= 0 && by < static_cast<int>(dims[1]) &&
                         bz >= 0 && bz < static_cast<int>(dims[2]);
  if (wraps || !inCluster) {
    s.from = PullFrom::Global;
  } else if ((ox | oy | oz) == 0) {
    s.from = PullFrom::Own;
  } else {
    s.from = PullFrom::Cluster;
    s.rank = static_cast<unsigned>((bz * static_cast<int>(dims[1]) + by) * static_cast<int>(dims[0]) + bx);
  }
  return s;
}

}  // namespace hopsim::lbm::hopper
