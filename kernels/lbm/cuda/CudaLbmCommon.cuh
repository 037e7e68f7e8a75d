// Host-side steps of the CUDA LBM backend (CudaLbm.cuh) that need no backend state: choose the device, list the
// boundary cells, write the initial equilibrium, finish the observables' reduction and read back the obstacle forces.
// Internal linkage (static), like finishObservablesKernel, which every lattice's translation unit compiles for itself.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/common/DeviceBuffer.cuh"
#include "kernels/lbm/LbmBackend.h"
#include "kernels/lbm/cuda/LbmKernels.cuh"

namespace hopsim::lbm {

// Makes GPU `device` current and returns its properties; a clear error when this machine has no such GPU.
static cudaDeviceProp selectCudaDevice(int device) {
  int count = 0;
  HOPSIM_CUDA_CHECK(cudaGetDeviceCount(&count));
  if (device < 0 || device >= count)
    throw std::runtime_error("GPU " + std::to_string(device) + " does not exist (this machine has " +
                             std::to_string(count) + ")");
  HOPSIM_CUDA_CHECK(cudaSetDevice(device));
  cudaDeviceProp props{};
  HOPSIM_CUDA_CHECK(cudaGetDeviceProperties(&props, device));
  return props;
}

// The cells the boundary kernel updates (boundaryKernelCell()) of a box of n cells, in index order so that
// neighbouring threads of the boundary kernel read neighbouring cells.
static std::vector<BoundaryCell> boundaryCellsOf(const std::vector<std::uint8_t>& cls, const int n[3],
                                                 bool bulkTakesWalls) {
  std::vector<BoundaryCell> list;
  std::size_t c = 0;
  for (int z = 0; z < n[2]; ++z)
    for (int y = 0; y < n[1]; ++y)
      for (int x = 0; x < n[0]; ++x, ++c)
        if (boundaryKernelCell(cls[c], bulkTakesWalls)) list.push_back({x, y, z});
  return list;
}

// A device copy of a host list, enqueued on `stream` (the caller keeps `list` alive until the stream has passed).
template <class V>
static DeviceBuffer<V> uploadList(const std::vector<V>& list, cudaStream_t stream) {
  DeviceBuffer<V> d(list.size());
  if (!list.empty())
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(d.get(), list.data(), list.size() * sizeof(V), cudaMemcpyHostToDevice, stream));
  return d;
}

// Initial equilibrium of every cell, a slab of z planes at a time through one pinned staging buffer that the kernel
// reads directly. `view(Index(0))` is the state the first step reads, for 32- or 64-bit indices (`wide`); `grid` and
// `block` the backend's launch shape for one z plane per grid z.
template <class L, class T, class ViewFor>
static void initialiseEquilibrium(const DomainParams<T>& p, const LbmSetup& s, dim3 grid, dim3 block, bool wide,
                                  CudaStream& stream, ViewFor&& view) {
  const long long plane = static_cast<long long>(p.n[0]) * p.n[1];
  const long long planes = std::max(1LL, std::min<long long>(p.n[2], (1LL << 22) / plane));
  PinnedBuffer<T> rho(planes * plane), u(3 * planes * plane);
  for (int z0 = 0; z0 < p.n[2]; z0 += static_cast<int>(planes)) {
    const int count = static_cast<int>(std::min<long long>(planes, p.n[2] - z0));
    const std::size_t first = static_cast<std::size_t>(z0) * plane;
    for (std::size_t c = 0; c < static_cast<std::size_t>(count * plane); ++c) {
      rho[c] = static_cast<T>(s.density[first + c]);
      for (int a = 0; a < 3; ++a) u[3 * c + a] = static_cast<T>(s.velocity[3 * (first + c) + a]);
    }
    const dim3 slab(grid.x, grid.y, count);
    if (wide)
      initKernel<L, unsigned long long><<<slab, block, 0, stream.get()>>>(p, view(0ull), z0, rho.device(), u.device());
    else
      initKernel<L, unsigned><<<slab, block, 0, stream.get()>>>(p, view(0u), z0, rho.device(), u.device());
    HOPSIM_CUDA_CHECK_LAUNCH("initKernel");
    stream.synchronize();  // the staging buffer is refilled next
  }
}

// The first level's blocks of foldObservables() for `count` partials: one per kPartialsPerFold partials, at most
// kPartialsPerFold of them (the second level is one block over their results).
static long long foldBlocks(long long count) {
  return std::min((count + kPartialsPerFold - 1) / kPartialsPerFold, kPartialsPerFold);
}

// Scratch that foldObservables() needs for `count` partials of one sample (doubles).
static std::size_t foldScratchSize(long long count) {
  return static_cast<std::size_t>(kObservables * foldBlocks(count));
}

// Folds the per-block partial sums that observablesKernel (or the sampling bulk kernel) left in `partials`, `count`
// of them per sample for `samples` samples one after the other, into `result` (kObservables values per sample on
// the device: ring slots, or the one result) in two levels through `scratch` (foldScratchSize() per sample), in a
// fixed order (deterministic: a sample folds alike alone or with others), without waiting: two launches.
static void foldObservables(const double* partials, long long count, double* scratch, double* result,
                            cudaStream_t stream, int samples = 1) {
  const long long folds = foldBlocks(count);
  const long long per = (count + folds - 1) / folds;
  const dim3 first(static_cast<unsigned>(folds), static_cast<unsigned>(samples));
  foldPartialsKernel<<<first, kMaxBlockThreads, 0, stream>>>(partials, count, per, scratch);
  HOPSIM_CUDA_CHECK_LAUNCH("foldPartialsKernel");
  foldPartialsKernel<<<dim3(1, static_cast<unsigned>(samples)), kMaxBlockThreads, 0, stream>>>(scratch, folds, folds,
                                                                                              result);
  HOPSIM_CUDA_CHECK_LAUNCH("foldPartialsKernel (last level)");
}

// The observables of folded values (kObservables of them: sum (rho - 1), kinetic energy, max u^2, fluid cells,
// enstrophy); the enstrophy is NaN where the kernel could not compute it (`vorticity` false).
static Observables observablesOf(const double* folded, bool vorticity) {
  return {folded[kFluidCellsObservable] + folded[0], folded[1], std::sqrt(folded[kMaxObservable]),
          vorticity ? folded[kEnstrophyObservable] : std::numeric_limits<double>::quiet_NaN()};
}

// Folds the partials and returns the observables, through `result` on the device and `host` (at least
// kObservables values): one host synchronisation.
static Observables finishObservables(const double* partials, long long count, double* scratch, double* result,
                                     PinnedBuffer<double>& host, CudaStream& stream, bool vorticity) {
  foldObservables(partials, count, scratch, result, stream.get());
  HOPSIM_CUDA_CHECK(cudaMemcpyAsync(host.get(), result, kObservables * sizeof(double), cudaMemcpyDeviceToHost,
                                    stream.get()));
  stream.synchronize();
  return observablesOf(host.get(), vorticity);
}

// The force on each of `obstacles` obstacles (3 doubles each in `forces` on the device), through `host`.
static std::vector<std::array<double, 3>> readObstacleForces(const double* forces, int obstacles,
                                                             PinnedBuffer<double>& host, CudaStream& stream) {
  std::vector<std::array<double, 3>> out(obstacles);
  if (!obstacles) return out;
  HOPSIM_CUDA_CHECK(cudaMemcpyAsync(host.get(), forces, 3 * obstacles * sizeof(double), cudaMemcpyDeviceToHost,
                                    stream.get()));
  stream.synchronize();
  for (int k = 0; k < obstacles; ++k) out[k] = {host[3 * k], host[3 * k + 1], host[3 * k + 2]};
  return out;
}

}  // namespace hopsim::lbm
