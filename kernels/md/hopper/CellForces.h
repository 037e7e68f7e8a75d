// The Hopper MD force path (`device.kernels: hopper`, sm_90 and newer): LJ forces straight from cells, no neighbour
// list; kernels/md/hopper/CellForces.cu has the kernel and its design. Compiled per architecture (clusters and TMA
// need compute_90) apart from the portable MD kernels, so the CUDA engine reaches it through these functions.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "kernels/md/CellBricks.h"
#include "kernels/md/LjForce.h"

namespace hopsim::md {

// What the kernel reads and writes, for the atoms sorted by cell key. P: pair precision (float or double); pos holds
// each atom's {x, y, z, unused} of P (float4, or 32-byte aligned double4). cellStart: CellBricks::keys() + 1 entries
// (atoms of cell key k at cellStart[k] .. cellStart[k + 1] - 1); keys: each sorted atom's cell key. The sums of an
// energy evaluation are added to *potential and *virial (each pair once); *bad is set when a force is not finite.
template <class P>
struct CellForceTarget {
  const void* pos = nullptr;
  P *fx = nullptr, *fy = nullptr, *fz = nullptr;
  const int* cellStart = nullptr;
  const unsigned* keys = nullptr;
  double* potential = nullptr;
  double* virial = nullptr;
  int* bad = nullptr;
};

// Shared memory per block for `capacity` atoms (a brick's atoms past it are read from global memory).
template <class P>
constexpr std::size_t cellTileBytes(int capacity) {
  return static_cast<std::size_t>(capacity) * 4 * sizeof(P);
}

// Raises the kernel's shared memory limit for `capacity` atoms per brick (on the current device); once before the
// launches (and before a graph that holds them is captured). A: per-atom energy accumulation (as the list kernel's).
template <class P, class A>
void prepareCellForces(int capacity);

// Queues the kernel on `stream`: g.bricks() blocks in clusters of eight, each with `capacity` atoms of shared memory.
template <class P, class A>
void launchCellForces(const CellForceTarget<P>& t, const CellBricks& g, const LjCoefficients<P>& c, int capacity,
                      bool energy, cudaStream_t stream);

}  // namespace hopsim::md
