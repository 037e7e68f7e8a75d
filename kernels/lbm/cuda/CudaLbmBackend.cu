// makeCudaBackend: the lattice's CUDA backend for a resolved kernel plan (solvers/lbm/LbmKernelPlanner.h).
#include <stdexcept>

#include "kernels/lbm/cuda/CudaLbmFactory.h"

namespace hopsim::lbm {

std::unique_ptr<LbmBackend> makeCudaBackend(const LbmSetup& setup, const DevicePlan& plan) {
  const KernelPlan& k = plan.lbm;
  CudaLbmOptions o;
  o.device = plan.gpu;
  o.layout = k.layout;
  o.blockThreads = k.blockThreads;
  o.graphSteps = k.graphSteps;
  o.halfPairs = k.halfPairs;
  o.note = k.note;
  if (plan.kernels == KernelVariant::Hopper) {
    HopperLbmOptions h;
    h.clusterBlocks = k.clusterBlocks;
    h.tileLoad = k.tileLoad;
    h.stepsPerLaunch = k.bulk == BulkUpdate::HopperTemporal ? k.stepsPerLaunch : HopperLbmOptions::kTemporalOff;
    h.temporalCluster = k.temporalCluster;
    return makeHopperLbm(setup, o, h);
  }
  switch (setup.lattice) {
    case LatticeKind::D2Q9: return makeCudaLbmD2Q9(setup, o);
    case LatticeKind::D3Q19: return makeCudaLbmD3Q19(setup, o);
    case LatticeKind::D3Q27: return makeCudaLbmD3Q27(setup, o);
  }
  throw std::logic_error("unknown lattice");
}

}  // namespace hopsim::lbm
