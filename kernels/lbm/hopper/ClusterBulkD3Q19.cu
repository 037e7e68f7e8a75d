// The Hopper cluster bulk update for D3Q19, single and FP16 storage (HopperSupport.h).
#include "kernels/lbm/hopper/ClusterBulk.cuh"

namespace hopsim::lbm::hopper {

template std::unique_ptr<BulkStep<D3Q19, float>> makeClusterBulk(const BulkTarget<D3Q19, float>&, const KernelPlan&);
template std::unique_ptr<BulkStep<D3Q19, __half>> makeClusterBulk(const BulkTarget<D3Q19, __half>&, const KernelPlan&);

}  // namespace hopsim::lbm::hopper
