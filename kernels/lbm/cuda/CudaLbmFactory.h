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
  std::string note;        // appended to description(), e.g. why a requested layout was not used
};

// Whether the in-place layout can run this setup exactly: inlet and outlet ghost nodes read the full population
// set of a neighbouring cell while that cell updates it in place.
inline bool inPlaceSupports(const LbmSetup& s) {
  for (int f = 0; f < 6; ++f) {
    const int t = s.domain.face[f].type;
    if (!s.domain.periodic[f / 2] && (t == kFaceVelocityInlet || t == kFacePressureOutlet)) return false;
  }
  return true;
}

std::unique_ptr<LbmBackend> makeCudaLbmD2Q9(const LbmSetup& setup, const CudaLbmOptions& options);
std::unique_ptr<LbmBackend> makeCudaLbmD3Q19(const LbmSetup& setup, const CudaLbmOptions& options);
std::unique_ptr<LbmBackend> makeCudaLbmD3Q27(const LbmSetup& setup, const CudaLbmOptions& options);

}  // namespace hopsim::lbm
