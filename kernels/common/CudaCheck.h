// Every CUDA call and launch goes through these: a failure names the call, where it was made and CUDA's message.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace hopsim {

class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] inline void throwCudaError(cudaError_t err, const char* what, const char* file, int line) {
  throw CudaError(std::string("CUDA error in ") + what + " (" + file + ":" + std::to_string(line) +
                  "): " + cudaGetErrorName(err) + ": " + cudaGetErrorString(err));
}

}  // namespace hopsim

#define HOPSIM_CUDA_CHECK(call)                                                       \
  do {                                                                                \
    cudaError_t hopsim_err_ = (call);                                                 \
    if (hopsim_err_ != cudaSuccess) ::hopsim::throwCudaError(hopsim_err_, #call, __FILE__, __LINE__); \
  } while (0)

// After a kernel launch: launch-configuration errors now, execution errors at the next synchronising call.
#define HOPSIM_CUDA_CHECK_LAUNCH(kernel_name)                                         \
  do {                                                                                \
    cudaError_t hopsim_err_ = cudaGetLastError();                                     \
    if (hopsim_err_ != cudaSuccess) ::hopsim::throwCudaError(hopsim_err_, "launch of " kernel_name, __FILE__, __LINE__); \
  } while (0)
