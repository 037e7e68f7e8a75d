// Entry points of the portable CUDA LBM backend, one per lattice (each in its own .cu file to keep compile units
// small), and the run-time options they take.
#pragma once

#include <memory>
#include <string>

#include "kernels/lbm/LbmBackend.h"

namespace hopsim::lbm {

struct CudaLbmOptions {
  int device = 0;
  StreamingLayout layout = StreamingLayout::TwoLattice;  // resolved: TwoLattice or InPlace
  int blockThreads = 256;  // threads per block (64, 128 or 256)
  int graphSteps = 32;     // steps per captured CUDA graph (even)
  bool halfPairs = true;   // FP16 storage, two lattices: two cells per thread (HalfPairKernel.cuh)
  std::string note;        // appended to description(), e.g. why a requested layout was not used
};

// Options of the Hopper backend (kernels/lbm/hopper/): the cluster size and how tiles are loaded; 0 = automatic.
struct HopperLbmOptions {
  int clusterBlocks = 0;  // 2, 4, 8 or 16 blocks per cluster; 0: the size with the most resident cells
  using TileLoad = lbm::TileLoad;
  TileLoad tileLoad = TileLoad::Auto;  // Auto and Tma: TMA where the shape allows
  // Time steps per launch of the temporal kernel (1, 2 or 4), which runs boxes whose every cell is bulk (periodic,
  // no solids); kTemporalAuto: the temporal kernel at its measured best k where it can run, the cluster kernel
  // elsewhere; kTemporalOff: the cluster kernel always.
  static constexpr int kTemporalAuto = 0, kTemporalOff = -1;
  int stepsPerLaunch = kTemporalAuto;
  int temporalCluster = 0;  // blocks per cluster of the 2-step 3-D temporal kernel: 1, 4 or 8; 0: automatic
};

std::unique_ptr<LbmBackend> makeCudaLbmD2Q9(const LbmSetup& setup, const CudaLbmOptions& options);
std::unique_ptr<LbmBackend> makeCudaLbmD3Q19(const LbmSetup& setup, const CudaLbmOptions& options);
std::unique_ptr<LbmBackend> makeCudaLbmD3Q27(const LbmSetup& setup, const CudaLbmOptions& options);

// The Hopper backend (compute capability 9.0 and newer; throws a clear error on older GPUs): for D2Q9 and D3Q19 in
// single and FP16 storage the temporal kernel (k steps per launch) on boxes whose every cell is bulk and the thread
// block cluster bulk kernel elsewhere, the portable bulk kernel for the others; always two lattices. `options.layout` in-place is answered with two lattices and a note in description().
std::unique_ptr<LbmBackend> makeHopperLbmD2Q9(const LbmSetup& setup, const CudaLbmOptions& options,
                                              const HopperLbmOptions& hopper);
std::unique_ptr<LbmBackend> makeHopperLbmD3Q19(const LbmSetup& setup, const CudaLbmOptions& options,
                                               const HopperLbmOptions& hopper);
std::unique_ptr<LbmBackend> makeHopperLbmD3Q27(const LbmSetup& setup, const CudaLbmOptions& options,
                                               const HopperLbmOptions& hopper);
// makeHopperLbmD2Q9/D3Q19/D3Q27 by the setup's lattice.
std::unique_ptr<LbmBackend> makeHopperLbm(const LbmSetup& setup, const CudaLbmOptions& options,
                                          const HopperLbmOptions& hopper);

}  // namespace hopsim::lbm
