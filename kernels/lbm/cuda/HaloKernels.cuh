// Kernels of a decomposed run on the GPU: ghost cells taken out of the update, and the halo planes packed into and
// unpacked from contiguous buffers (layout [population][plane cell], the stored type S copied as it is, so FP16
// storage travels as 2 bytes and every precision arrives bitwise). What crosses a face: kernels/lbm/Halo.h.
#pragma once

#include <vector>

#include "kernels/lbm/Halo.h"
#include "kernels/lbm/cuda/CellUpdate.cuh"
#include "kernels/lbm/cuda/LbmKernels.cuh"

namespace hopsim::lbm {

constexpr int kHaloBlockThreads = 256;

// The populations one face exchanges, passed by value.
struct HaloPopulations {
  int count = 0;
  int i[27] = {};
};

template <class L>
HaloPopulations haloPopulationList(int face, bool send, bool all) {
  HaloPopulations h;
  h.count = haloPopulations<L>(face, send, all, h.i);
  return h;
}

// Ghost cells are not this rank's to update: class kCellSkip, so neither step kernel touches them and the
// boundary list leaves them out. `owned` becomes the flags with ghosts marked solid, for the reductions.
template <class T>
__global__ void __launch_bounds__(kHaloBlockThreads)
    skipGhostsKernel(const __grid_constant__ DomainParams<T> p, std::uint8_t* cls, std::uint8_t* owned) {
  const long long c = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= p.cells) return;
  const int x = static_cast<int>(c % p.n[0]);
  const int y = static_cast<int>((c / p.n[0]) % p.n[1]);
  const int z = static_cast<int>(c / (static_cast<long long>(p.n[0]) * p.n[1]));
  if (!p.owns(x, y, z)) {
    cls[c] = kCellSkip;
    owned[c] = kSolid;
  }
}

// Pack (ToBuffer) or unpack one halo plane of the current population array f.
template <bool ToBuffer, class S, class T>
__global__ void __launch_bounds__(kHaloBlockThreads)
    haloPlaneKernel(const __grid_constant__ DomainParams<T> p, const HaloPlane plane, const HaloPopulations pops,
                    S* __restrict__ f, S* __restrict__ buffer) {
  const long long cells = plane.cells();
  const long long total = cells * pops.count;
  for (long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
       t += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int k = static_cast<int>(t / cells);
    const long long slot = static_cast<long long>(pops.i[k]) * p.cells + plane.cell(p, t - k * cells);
    if constexpr (ToBuffer) buffer[t] = f[slot];
    else f[slot] = buffer[t];
  }
}

// A box of cells [lo, lo + extent), one thread per cell.
struct CellRegion {
  int lo[3] = {0, 0, 0};
  int extent[3] = {0, 0, 0};
  HOPSIM_HD long long cells() const { return static_cast<long long>(extent[0]) * extent[1] * extent[2]; }
};

// The shell of a decomposed box (owned cells next to a ghost layer) as disjoint planes: the x planes whole, the y
// planes without the x planes' cells, the z planes without those of x and y.
template <class T>
std::vector<CellRegion> shellRegions(const DomainParams<T>& p) {
  std::vector<CellRegion> out;
  int lo[3], hi[3];  // the owned range, shrunk along each axis once its planes are taken
  for (int a = 0; a < 3; ++a) lo[a] = p.ownLo(a), hi[a] = p.ownHi(a);
  for (int a = 0; a < 3; ++a) {
    for (int side = 0; side < 2; ++side) {
      if (!p.ghost[2 * a + side] || lo[a] >= hi[a]) continue;
      CellRegion r;
      for (int b = 0; b < 3; ++b) r.lo[b] = lo[b], r.extent[b] = hi[b] - lo[b];
      r.lo[a] = side ? hi[a] - 1 : lo[a];
      r.extent[a] = 1;
      if (r.cells() > 0) out.push_back(r);
      if (side) --hi[a];
      else ++lo[a];
    }
  }
  return out;
}

// The bulk update of the cells of one region (the shell planes), the same per-cell code as bulkStepKernel.
template <class L, class Index, int Terms, class Access, class T>
__global__ void __launch_bounds__(kMaxBlockThreads, bulkMinBlocks<L, T>())
    bulkRegionKernel(const __grid_constant__ DomainParams<T> p, const std::uint8_t* __restrict__ cls,
                     const Access access, const CellRegion r) {
  const long long k = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= r.cells()) return;
  const int x = r.lo[0] + static_cast<int>(k % r.extent[0]);
  const int y = r.lo[1] + static_cast<int>((k / r.extent[0]) % r.extent[1]);
  const int z = r.lo[2] + static_cast<int>(k / (static_cast<long long>(r.extent[0]) * r.extent[1]));
  const auto c = CellCursor<Index>::make(p, x, y, z);
  if (cls[c.self] != kCellBulk) return;
  updateBulkCell<L, Terms>(p, access, c);
}

}  // namespace hopsim::lbm
