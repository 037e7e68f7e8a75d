// The MD force kernel's branch-free pair arithmetic (kernels/md/cuda/MdKernels.cuh) gives the results of the forms it
// replaced bit for bit: the reciprocal of IEEE division over 24 binades of floats, the minimum image of the
// conditional shift over 2^24 displacements for each of five box lengths, in float and double.
#include "CatchCompat.h"
#include "HaveGpu.h"

#if HOPSIM_WITH_CUDA
#include "kernels/md/cuda/PairArithmeticCheck.h"

TEST_CASE("gpu md: the force kernel's reciprocal and minimum image are those of the division and the conditional shift",
          "[gpu][md]") {
  if (!hopsim::testing::haveGpu()) return;
  const hopsim::md::PairArithmeticCheck c = hopsim::md::checkPairArithmetic();
  INFO("reciprocal " << c.reciprocal.differ << " of " << c.reciprocal.tried << ", estimate " << c.estimate.differ
                     << ", image float " << c.imageFloat.differ << " of " << c.imageFloat.tried << ", double "
                     << c.imageDouble.differ << " of " << c.imageDouble.tried);
  CHECK(c.reciprocal.tried == (24ull << 23));
  CHECK(c.reciprocal.differ == 0);
  // The control: the estimate alone is not the quotient for a good share of the operands, so the comparison sees
  // a difference where there is one.
  CHECK(c.estimate.differ > c.estimate.tried / 10);
  CHECK(c.imageFloat.tried > 5 * ((1ull << 24) - 100));
  CHECK(c.imageFloat.differ == 0);
  CHECK(c.imageDouble.tried > 5 * ((1ull << 24) - 100));
  CHECK(c.imageDouble.differ == 0);
}
#endif
