// Owning handles for device memory, pinned host memory, streams, events and graphs: every call checked, freed once.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "kernels/common/CudaCheck.h"

namespace hopsim {

// Device array of T; uninitialised unless zeroed.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count) HOPSIM_CUDA_CHECK(cudaMalloc(&ptr_, count * sizeof(T)));
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(count_, o.count_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (ptr_) cudaFree(ptr_);  // no throw from a destructor; a failed free leaves nothing to recover
  }
  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }
  void zero(cudaStream_t s) {
    if (count_) HOPSIM_CUDA_CHECK(cudaMemsetAsync(ptr_, 0, bytes(), s));
  }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

// Page-locked host array of T, also mapped into the device address space: kernels can write results straight into
// it, and copies from device memory run at full link speed.
template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t count) : count_(count) {
    if (count) HOPSIM_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T), cudaHostAllocMapped));
  }
  PinnedBuffer(PinnedBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(count_, o.count_);
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() {
    if (ptr_) cudaFreeHost(ptr_);
  }
  T* get() const { return ptr_; }
  T& operator[](std::size_t i) const { return ptr_[i]; }
  std::size_t size() const { return count_; }
  // The same memory as seen from kernels.
  T* device() const {
    T* d = nullptr;
    HOPSIM_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d), ptr_, 0));
    return d;
  }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

// Makes `device` the current GPU while the members declared after it are constructed: streams and events belong to
// the device current at their creation. An ordinal that does not exist is left for the owner to report.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    int count = 0;
    if (cudaGetDeviceCount(&count) == cudaSuccess && device >= 0 && device < count)
      HOPSIM_CUDA_CHECK(cudaSetDevice(device));
  }
};

class CudaStream {
 public:
  CudaStream() { HOPSIM_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  // A stream of the device's highest priority: its blocks are scheduled before those of other streams' kernels.
  struct HighestPriority {};
  explicit CudaStream(HighestPriority) {
    int least = 0, greatest = 0;
    HOPSIM_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    HOPSIM_CUDA_CHECK(cudaStreamCreateWithPriority(&s_, cudaStreamNonBlocking, greatest));
  }
  ~CudaStream() {
    if (s_) cudaStreamDestroy(s_);
  }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  cudaStream_t get() const { return s_; }
  void synchronize() const { HOPSIM_CUDA_CHECK(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_ = nullptr;
};

class CudaEvent {
 public:
  CudaEvent() { HOPSIM_CUDA_CHECK(cudaEventCreate(&e_)); }
  // An event that a waiting host thread sleeps on rather than spins (cudaEventBlockingSync), without timing: what
  // a thread waiting milliseconds for a copy (the output writer) should hold, so as not to take a core from the
  // thread that drives the GPU.
  struct Sleeping {};
  explicit CudaEvent(Sleeping) {
    HOPSIM_CUDA_CHECK(cudaEventCreateWithFlags(&e_, cudaEventBlockingSync | cudaEventDisableTiming));
  }
  ~CudaEvent() {
    if (e_) cudaEventDestroy(e_);
  }
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;
  cudaEvent_t get() const { return e_; }
  void record(cudaStream_t s) { HOPSIM_CUDA_CHECK(cudaEventRecord(e_, s)); }
  // Milliseconds from `start` to this event, both already complete.
  float since(const CudaEvent& start) const {
    float ms = 0;
    HOPSIM_CUDA_CHECK(cudaEventElapsedTime(&ms, start.e_, e_));
    return ms;
  }

 private:
  cudaEvent_t e_ = nullptr;
};

// Device memory of another process (CUDA IPC), mapped into this one: the pointer is valid until destruction. Peer
// access to the other process's GPU is enabled on first use (cudaIpcMemLazyEnablePeerAccess).
class IpcMapping {
 public:
  IpcMapping() = default;
  explicit IpcMapping(const cudaIpcMemHandle_t& handle) {
    HOPSIM_CUDA_CHECK(cudaIpcOpenMemHandle(&ptr_, handle, cudaIpcMemLazyEnablePeerAccess));
  }
  IpcMapping(IpcMapping&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)) {}
  IpcMapping& operator=(IpcMapping&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    return *this;
  }
  IpcMapping(const IpcMapping&) = delete;
  IpcMapping& operator=(const IpcMapping&) = delete;
  ~IpcMapping() {
    if (ptr_) cudaIpcCloseMemHandle(ptr_);
  }
  void* get() const { return ptr_; }

 private:
  void* ptr_ = nullptr;
};

// An instantiated CUDA graph: a recorded sequence of launches replayed with one call.
class CudaGraph {
 public:
  CudaGraph() = default;
  CudaGraph(CudaGraph&& o) noexcept : exec_(std::exchange(o.exec_, nullptr)) {}
  CudaGraph& operator=(CudaGraph&& o) noexcept {
    std::swap(exec_, o.exec_);
    return *this;
  }
  CudaGraph(const CudaGraph&) = delete;
  CudaGraph& operator=(const CudaGraph&) = delete;
  ~CudaGraph() {
    if (exec_) cudaGraphExecDestroy(exec_);
  }
  explicit operator bool() const { return exec_ != nullptr; }

  // Records what `enqueue(stream)` launches on `stream` (nothing runs) and instantiates it. With `nodePriority` the
  // graph's kernels keep the priorities of the streams they were captured from; without it (CUDA's default) every
  // kernel runs at the priority of the stream the graph is launched into.
  template <class Enqueue>
  static CudaGraph capture(cudaStream_t stream, Enqueue&& enqueue, bool nodePriority = true) {
    HOPSIM_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    try {
      enqueue(stream);
    } catch (...) {
      cudaGraph_t broken = nullptr;
      cudaStreamEndCapture(stream, &broken);
      if (broken) cudaGraphDestroy(broken);
      throw;
    }
    cudaGraph_t graph = nullptr;
    HOPSIM_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CudaGraph g;
    const unsigned long long flags = nodePriority ? cudaGraphInstantiateFlagUseNodePriority : 0;
    const cudaError_t err = cudaGraphInstantiate(&g.exec_, graph, flags);
    cudaGraphDestroy(graph);
    if (err != cudaSuccess) throwCudaError(err, "cudaGraphInstantiate", __FILE__, __LINE__);
    return g;
  }
  void launch(cudaStream_t stream) const { HOPSIM_CUDA_CHECK(cudaGraphLaunch(exec_, stream)); }

 private:
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace hopsim
