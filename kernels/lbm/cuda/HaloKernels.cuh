// Kernels of a decomposed run on the GPU: ghost cells taken out of the update, and the halo planes packed into and
// unpacked from contiguous buffers (layout [population][plane cell], the stored type S copied as it is, so FP16
// storage travels as 2 bytes and every precision arrives bitwise). What crosses a face: kernels/lbm/Halo.h.
#pragma once

#include "kernels/lbm/Halo.h"
#include "kernels/lbm/cuda/CellUpdate.cuh"

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

}  // namespace hopsim::lbm
