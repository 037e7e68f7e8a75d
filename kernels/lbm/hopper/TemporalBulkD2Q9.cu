// The Hopper temporal bulk update for D2Q9, single and FP16 storage (HopperSupport.h).
#include "kernels/lbm/hopper/TemporalBulk.cuh"

namespace hopsim::lbm::hopper {

template std::unique_ptr<BulkStep<D2Q9, float>> makeTemporalBulk(const BulkTarget<D2Q9, float>&, const KernelPlan&);
template std::unique_ptr<BulkStep<D2Q9, __half>> makeTemporalBulk(const BulkTarget<D2Q9, __half>&, const KernelPlan&);

// The wall variant's 4-step launch keeps four 256-cell blocks per SM, as the variant without walls does (its rings'
// shared memory, 55,296 B a block in FP32, allows four; docs/performance.md, "The wall variant on the plain
// variant's rings").
static_assert(MarchTile<D2Q9, 4, float, 1, true>::blocksPerSm == 4, "the wall variant: four blocks per SM");
static_assert(MarchTile<D2Q9, 4, float, 1, false>::blocksPerSm == 4, "every cell bulk: four blocks per SM");

}  // namespace hopsim::lbm::hopper
