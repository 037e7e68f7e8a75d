// The collision alone, one cell per thread (load Q populations, collideWith, store them), compiled for sm_90 to count
// its SASS instructions: bench/collision_sass.sh. Not part of the build.
#include "kernels/lbm/Collision.h"

using namespace hopsim::lbm;

template <class L, int Terms, int Trt>
__global__ void collisionOnly(const float* in, CollisionParams<float> p, float* out, long long stride) {
  const long long cell = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  float f[L::Q];
  for (int i = 0; i < L::Q; ++i) f[i] = in[i * stride + cell];
  p.trt = Trt;
  float rho, u[3];
  collideWith<L, Terms>(f, p, rho, u);
  for (int i = 0; i < L::Q; ++i) out[i * stride + cell] = f[i];
}

template __global__ void collisionOnly<D3Q19, 0, 0>(const float*, CollisionParams<float>, float*, long long);
template __global__ void collisionOnly<D3Q19, 0, 1>(const float*, CollisionParams<float>, float*, long long);
template __global__ void collisionOnly<D3Q19, kGuoTerms, 1>(const float*, CollisionParams<float>, float*, long long);
template __global__ void collisionOnly<D3Q19, kLesTerms, 1>(const float*, CollisionParams<float>, float*, long long);
template __global__ void collisionOnly<D2Q9, 0, 1>(const float*, CollisionParams<float>, float*, long long);
