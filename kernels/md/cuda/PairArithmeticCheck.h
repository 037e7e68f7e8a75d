// A self-check of the MD force kernel's branch-free pair arithmetic (MdKernels.cuh: pairReciprocal, nearestImage)
// against the forms it replaced (IEEE division, PeriodicBox.h's minimumImage), run on the GPU by the tests.
#pragma once

namespace hopsim::md {

// Operands tried and operands whose results differ in any bit.
struct ArithmeticCount {
  unsigned long long tried = 0, differ = 0;
};

struct PairArithmeticCheck {
  ArithmeticCount reciprocal;      // pairReciprocal(x) against 1.0f / x, every float x in [2^-12, 2^12)
  ArithmeticCount estimate;        // the bare estimate (rcp.approx) against 1.0f / x there: the check's control
  ArithmeticCount imageFloat;      // nearestImage against minimumImage, float, d across [-L, L), five L
  ArithmeticCount imageDouble;     // the same in double
};

// Runs on the current CUDA device (throws CudaError where a CUDA call fails); built with CUDA only.
PairArithmeticCheck checkPairArithmetic();

}  // namespace hopsim::md
