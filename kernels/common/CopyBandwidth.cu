// Device-to-device copy bandwidth through a float4 copy kernel (the copy engine's cudaMemcpy is slower on some
// parts and is not what LBM kernels compete with), timed with CUDA events.
#include <algorithm>
#include <vector>

#include "kernels/common/CopyBandwidth.h"
#include "kernels/common/DeviceBuffer.cuh"

namespace hopsim {
namespace {

__global__ void copyKernel(const float4* __restrict__ in, float4* __restrict__ out, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = in[i];
}

__global__ void fillKernel(float4* out, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const float v = static_cast<float>(i & 1023) * 0.001f;  // not zeros: zeros can move faster than data
    out[i] = make_float4(v, v + 1, v + 2, v + 3);
  }
}

}  // namespace

std::optional<CopyBandwidth> measureCopyBandwidth(int device, std::size_t bytes, int repeats) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || device >= count) {
    cudaGetLastError();
    return std::nullopt;
  }
  HOPSIM_CUDA_CHECK(cudaSetDevice(device));
  std::size_t freeBytes = 0, totalBytes = 0;
  HOPSIM_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
  while (bytes > (std::size_t(256) << 20) && 2 * bytes + (std::size_t(256) << 20) > freeBytes) bytes /= 2;
  if (2 * bytes + (std::size_t(256) << 20) > freeBytes) return std::nullopt;

  const std::size_t n = bytes / sizeof(float4);
  DeviceBuffer<float4> a(n), b(n);
  CudaStream stream;
  cudaDeviceProp prop{};
  HOPSIM_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  const int threads = 256;
  const int blocks = prop.multiProcessorCount * 8;  // persistent grid-stride: 8 resident blocks of 256 per SM
  fillKernel<<<blocks, threads, 0, stream.get()>>>(a.get(), n);
  HOPSIM_CUDA_CHECK_LAUNCH("fillKernel");
  copyKernel<<<blocks, threads, 0, stream.get()>>>(a.get(), b.get(), n);  // warm-up
  HOPSIM_CUDA_CHECK_LAUNCH("copyKernel");

  CudaEvent start, stop;
  std::vector<double> rates;
  for (int r = 0; r < repeats; ++r) {
    start.record(stream.get());
    // Alternate directions so neither buffer stays hot in L2 between timings.
    if (r & 1) copyKernel<<<blocks, threads, 0, stream.get()>>>(b.get(), a.get(), n);
    else copyKernel<<<blocks, threads, 0, stream.get()>>>(a.get(), b.get(), n);
    HOPSIM_CUDA_CHECK_LAUNCH("copyKernel");
    stop.record(stream.get());
    stream.synchronize();
    const double seconds = stop.since(start) * 1e-3;
    rates.push_back(2.0 * static_cast<double>(n * sizeof(float4)) / seconds / 1e9);
  }
  std::sort(rates.begin(), rates.end());
  CopyBandwidth out;
  out.medianGBs = rates[rates.size() / 2];
  out.minGBs = rates.front();
  out.maxGBs = rates.back();
  out.bytes = n * sizeof(float4);
  out.repeats = repeats;
  return out;
}

}  // namespace hopsim
