// Which lattices and storage types the Hopper bulk kernels are built for, asked by the kernel planner on the host.
#pragma once

#include "core/lbm/LbmTypes.h"

namespace hopsim::lbm {

// The cluster kernel (ClusterStep.cuh) and the temporal kernel (TemporalStep.cuh): D2Q9 and D3Q19 in single
// precision and FP16 storage; the others run the portable bulk update.
constexpr bool hopperKernelsBuilt(LatticeKind lattice, Precision precision) {
  return (lattice == LatticeKind::D2Q9 || lattice == LatticeKind::D3Q19) && precision != Precision::Double;
}

}  // namespace hopsim::lbm
