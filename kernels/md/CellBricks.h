// The cell grid of the Hopper MD force path (kernels/md/cuda/CellForces.cuh), which needs no neighbour list: cells
// at least cutoff + skin wide, so that the 27 cells around the cell an atom had at the last sort hold every atom
// within the cutoff of it until the next sort (no atom has moved skin/2 since). The cells are grouped into bricks of
// kBrick^3 (one thread block each) and the bricks into 2 x 2 x 2 clusters (one thread block cluster). Atoms are
// sorted by a key that numbers the cells brick by brick and the bricks cluster by cluster, so a brick's atoms are
// one contiguous run (one bulk copy into its block's shared memory) and a cluster's eight bricks are consecutive
// (block b of the grid is brick b, and its rank in the cluster is b % 8). Bricks past the box's last cell (the
// cluster grid rounds each axis up) hold no atoms. Shared by the kernels and the host (the sort keys' range, a CPU
// test that walks the stencil).
#pragma once

#include <algorithm>
#include <cmath>

#include "kernels/common/HostDevice.h"

namespace hopsim::md {

constexpr int kBrick = 4;                               // cells per brick edge
constexpr int kBrickCells = kBrick * kBrick * kBrick;   // cells per brick (one thread block)
constexpr int kClusterBricks = 8;                       // bricks per cluster, 2 x 2 x 2

struct CellBricks {
  int cells[3] = {0, 0, 0};     // cells per axis, each >= 3 (fewer would name a cell twice in the stencil)
  int clusters[3] = {0, 0, 0};  // clusters per axis: cells / (2 kBrick), rounded up
  double length[3] = {0, 0, 0};
  double inverseWidth[3] = {0, 0, 0};  // cells / length

  HOPSIM_HD long long bricks() const {
    return static_cast<long long>(kClusterBricks) * clusters[0] * clusters[1] * clusters[2];
  }
  HOPSIM_HD long long keys() const { return bricks() * kBrickCells; }

  // The brick at brick coordinates (bx, by, bz): its cluster's index times 8, plus its rank within the cluster.
  HOPSIM_HD int brickAt(int bx, int by, int bz) const {
    const int cluster = (bx >> 1) + clusters[0] * ((by >> 1) + clusters[1] * (bz >> 1));
    return cluster * kClusterBricks + (bx & 1) + 2 * (by & 1) + 4 * (bz & 1);
  }
  HOPSIM_HD void brickCoords(int brick, int b[3]) const {
    const int cluster = brick / kClusterBricks, rank = brick % kClusterBricks;
    b[0] = 2 * (cluster % clusters[0]) + (rank & 1);
    b[1] = 2 * ((cluster / clusters[0]) % clusters[1]) + ((rank >> 1) & 1);
    b[2] = 2 * (cluster / (clusters[0] * clusters[1])) + (rank >> 2);
  }

  // The sort key of cell (cx, cy, cz), each 0 .. cells - 1: x fastest within a brick.
  HOPSIM_HD unsigned key(int cx, int cy, int cz) const {
    const int local = cx % kBrick + kBrick * (cy % kBrick + kBrick * (cz % kBrick));
    return static_cast<unsigned>(brickAt(cx / kBrick, cy / kBrick, cz / kBrick) * kBrickCells + local);
  }
  HOPSIM_HD void cellOfKey(unsigned key, int c[3]) const {
    int b[3];
    brickCoords(static_cast<int>(key / kBrickCells), b);
    const int local = static_cast<int>(key % kBrickCells);
    c[0] = b[0] * kBrick + local % kBrick;
    c[1] = b[1] * kBrick + (local / kBrick) % kBrick;
    c[2] = b[2] * kBrick + local / (kBrick * kBrick);
  }

  // The cell of coordinate x along axis d of the periodic box (wrapped into [0, length)), clamped to the grid: a
  // rounding error outside it, or a NaN, lands in an edge cell.
  template <class T>
  HOPSIM_HD int cellAlong(T x, int d) const {
    const int c = static_cast<int>(x * static_cast<T>(inverseWidth[d]));
    return c < 0 ? 0 : (c >= cells[d] ? cells[d] - 1 : c);
  }
  template <class T>
  HOPSIM_HD unsigned keyOf(T x, T y, T z) const {
    return key(cellAlong(x, 0), cellAlong(y, 1), cellAlong(z, 2));
  }
};

// Neighbour cell c + offset along one axis (offset -1, 0 or 1), wrapped into the grid; `image` is -1, 0 or +1: the
// neighbour's atoms are seen at their periodic image x + image * length, so the searching atom takes x - image *
// length against their stored positions instead (one shift per cell, no minimum image per pair).
struct AxisNeighbour {
  int cell, image;
};
HOPSIM_HD AxisNeighbour axisNeighbour(int c, int offset, int cells) {
  const int n = c + offset;
  if (n < 0) return {n + cells, -1};
  if (n >= cells) return {n - cells, 1};
  return {n, 0};
}

// The grid for a periodic box and an interaction range (cutoff + skin): as many cells per axis as fit at least
// `search` wide (the range plus a rounding margin, as the list's bins); cells[0] == 0 when an axis has room for
// fewer than 3 (the path is not available for that box).
inline CellBricks makeCellBricks(const double length[3], double search) {
  CellBricks g;
  for (int d = 0; d < 3; ++d) {
    const int n = static_cast<int>(std::floor(length[d] / search));
    if (n < 3) return CellBricks{};
    g.cells[d] = n;
    g.clusters[d] = (n + 2 * kBrick - 1) / (2 * kBrick);
    g.length[d] = length[d];
    g.inverseWidth[d] = n / length[d];
  }
  return g;
}

}  // namespace hopsim::md
