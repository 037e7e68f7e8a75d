// The Hopper bulk updates as the CUDA LBM backend (CudaLbm.cuh) makes them: declared here, compiled in their own
// units (ClusterBulkD*.cu, TemporalBulkD*.cu) for the lattices and storage types of HopperSupport.h, so that the
// backend's units do not compile the Hopper kernels and the slow ones build in parallel.
#pragma once

#include <memory>

#include "core/DevicePlan.h"
#include "kernels/lbm/cuda/BulkStep.cuh"

namespace hopsim::lbm::hopper {

// BulkUpdate::HopperCluster: the thread block cluster kernel (ClusterBulk.cuh).
template <class L, class S>
std::unique_ptr<BulkStep<L, S>> makeClusterBulk(const BulkTarget<L, S>& target, const KernelPlan& plan);

// BulkUpdate::HopperTemporal: plan.stepsPerLaunch steps per launch (TemporalBulk.cuh).
template <class L, class S>
std::unique_ptr<BulkStep<L, S>> makeTemporalBulk(const BulkTarget<L, S>& target, const KernelPlan& plan);

}  // namespace hopsim::lbm::hopper
