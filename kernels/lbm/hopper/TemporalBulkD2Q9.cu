// The Hopper temporal bulk update for D2Q9, single and FP16 storage (HopperSupport.h).
#include "kernels/lbm/hopper/TemporalBulk.cuh"

namespace hopsim::lbm::hopper {

template std::unique_ptr<BulkStep<D2Q9, float>> makeTemporalBulk(const BulkTarget<D2Q9, float>&, const KernelPlan&);
template std::unique_ptr<BulkStep<D2Q9, __half>> makeTemporalBulk(const BulkTarget<D2Q9, __half>&, const KernelPlan&);

}  // namespace hopsim::lbm::hopper
