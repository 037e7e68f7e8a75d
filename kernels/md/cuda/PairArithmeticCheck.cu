// The force kernel's pair arithmetic against the forms it replaced, on the device (PairArithmeticCheck.h).
#include "kernels/md/cuda/PairArithmeticCheck.h"

#include <cuda_runtime.h>

#include "kernels/common/CudaCheck.h"
#include "kernels/common/DeviceBuffer.cuh"
#include "kernels/md/PeriodicBox.h"
#include "kernels/md/cuda/MdKernels.cuh"

namespace hopsim::md {

namespace {

constexpr int kCheckBlocks = 1024, kCheckThreads = 256;

// Every float with bits firstBits .. firstBits + count - 1: the kernel's reciprocal and the bare estimate against
// IEEE division (this file is compiled without fast-math options, so 1.0f / x is the correctly rounded quotient).
__global__ void reciprocalCheckKernel(unsigned firstBits, unsigned count, PairArithmeticCheck* out) {
  unsigned long long differ = 0, estimateDiffers = 0;
  for (unsigned k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += gridDim.x * blockDim.x) {
    const float x = __uint_as_float(firstBits + k);
    const unsigned exact = __float_as_uint(1.0f / x);
    float estimate;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(estimate) : "f"(x));
    differ += __float_as_uint(pairReciprocal(x)) != exact;
    estimateDiffers += __float_as_uint(estimate) != exact;
  }
  if (differ) atomicAdd(&out->reciprocal.differ, differ);
  if (estimateDiffers) atomicAdd(&out->estimate.differ, estimateDiffers);
}

// Displacements d = L (2 k / count - 1), k = 0 .. count - 1, across [-L, L), but those within 8 ulps of +-L/2 (where
// the two forms may round a tie differently: never a pair inside a cutoff, which is below half the box).
template <class T>
__global__ void imageCheckKernel(T length, unsigned count, ArithmeticCount* out) {
  const T half = length / 2, inverse = T(1) / length, margin = half * T(8) * T(sizeof(T) == 4 ? 1.2e-7 : 2.3e-16);
  unsigned long long tried = 0, differ = 0;
  for (unsigned k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += gridDim.x * blockDim.x) {
    const T d = length * (T(2) * T(k) / T(count) - T(1));
    if (fabs(fabs(d) - half) <= margin) continue;
    const T a = nearestImage(d, length, inverse), b = minimumImage(d, length, half);
    ++tried;
    differ += (a != b) || (signbit(a) != signbit(b));
  }
  atomicAdd(&out->tried, tried);
  if (differ) atomicAdd(&out->differ, differ);
}

}  // namespace

PairArithmeticCheck checkPairArithmetic() {
  DeviceBuffer<PairArithmeticCheck> buffer(1);
  PairArithmeticCheck* device = buffer.get();
  buffer.zero(0);
  // [2^-12, 2^12): 24 binades of 2^23 floats, squared distances from 2.4e-4 to 4096 (sigma = 1).
  const unsigned first = 0x39800000u, count = 24u << 23;
  reciprocalCheckKernel<<<kCheckBlocks, kCheckThreads>>>(first, count, device);
  HOPSIM_CUDA_CHECK_LAUNCH("reciprocalCheckKernel");
  const unsigned displacements = 1u << 24;
  for (const double length : {3.0, 10.0, 33.61, 268.8, 1000.0}) {
    imageCheckKernel<float><<<kCheckBlocks, kCheckThreads>>>(float(length), displacements, &device->imageFloat);
    HOPSIM_CUDA_CHECK_LAUNCH("imageCheckKernel<float>");
    imageCheckKernel<double><<<kCheckBlocks, kCheckThreads>>>(length, displacements, &device->imageDouble);
    HOPSIM_CUDA_CHECK_LAUNCH("imageCheckKernel<double>");
  }
  PairArithmeticCheck result;
  HOPSIM_CUDA_CHECK(cudaMemcpy(&result, device, sizeof(result), cudaMemcpyDeviceToHost));
  result.reciprocal.tried = result.estimate.tried = count;
  return result;
}

}  // namespace hopsim::md
