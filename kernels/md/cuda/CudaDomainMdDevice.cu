// CUDA side of one rank of a decomposed MD run: the shared kernels of MdKernels.cuh in their non-periodic form over
// the rank's owned atoms, with ghosts after them.
//
// Differences from the single-rank engine, and why:
// - Atoms are not moved to sort them on the GPU: ghost slots and the exchange's send lists index the atoms as the
//   host left them (the host sorts the owned atoms by bin at each rebuild, for locality). The list build bins owned
//   and ghost atoms with the same radix sort and reads bin slot k's atom through the sorted index (binned[k]).
// - The list is built bin by bin (buildListBinsKernel), not row by row: the row-wise kernel walks the periodic box
//   through BinStencil's images, and a rank's region has no images.
// - No CUDA graphs: each step stops twice for the host (the rebuild/infinite-force flags go through an allreduce,
//   ghost positions through MPI), and a rebuild may reallocate the arrays when the rank gains atoms.
#include "kernels/md/DomainMdDevice.h"

#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kernels/common/DeviceBuffer.cuh"
#include "kernels/md/cuda/MdKernels.cuh"
#include "kernels/md/Thermostats.h"

namespace hopsim::md {

namespace {

// The positions one swap sends: atom indices[k], plus the swap's periodic shift along its axis, x y z per atom (the
// same S arithmetic as AtomExchange's host packing).
template <class S, class P>
__global__ void packGhostsKernel(Arrays<S, P> a, const int* __restrict__ indices, int count, int axis, S shift,
                                 S* __restrict__ out) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  const int i = indices[k];
  S r[3] = {a.x[i], a.y[i], a.z[i]};
  r[axis] = S(r[axis] + shift);
  out[3 * k] = r[0], out[3 * k + 1] = r[1], out[3 * k + 2] = r[2];
}

// Received positions into ghost slots first .. first + count - 1, with their pair-precision copy.
template <class S, class P>
__global__ void unpackGhostsKernel(Arrays<S, P> a, const S* __restrict__ in, int first, int count) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  const int i = first + k;
  const S x = in[3 * k], y = in[3 * k + 1], z = in[3 * k + 2];
  a.x[i] = x, a.y[i] = y, a.z[i] = z;
  a.pos[i] = {P(x), P(y), P(z), P(0)};
}

// A swap to this rank itself: what packGhostsKernel would send, straight into the swap's ghost slots first ..
// first + count - 1 (with their pair-precision copy). Its sources (owned atoms, ghosts of earlier axes) all lie before
// `first`, so no thread reads what another writes.
template <class S, class P>
__global__ void copyGhostsKernel(Arrays<S, P> a, const int* __restrict__ indices, int count, int axis, S shift,
                                 int first) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  const int i = indices[k];
  S r[3] = {a.x[i], a.y[i], a.z[i]};
  r[axis] = S(r[axis] + shift);
  const int g = first + k;
  a.x[g] = r[0], a.y[g] = r[1], a.z[g] = r[2];
  a.pos[g] = {P(r[0]), P(r[1]), P(r[2]), P(0)};
}

// S: positions and velocities; P: pair arithmetic and forces; A: per-thread energy accumulation (as CudaMdEngine).
template <class S, class P, class A>
class CudaDomainMdDevice final : public DomainMdDevice<S> {
 public:
  explicit CudaDomainMdDevice(const DomainDeviceConfig& c) : config_(c), gpu_(c.gpu) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
      cudaGetLastError();
      throw std::runtime_error("the cuda backend was requested but no CUDA device is available");
    }
    if (gpu_ < 0 || gpu_ >= count)
      throw std::runtime_error("GPU " + std::to_string(gpu_) + " requested, " + std::to_string(count) + " present");
    HOPSIM_CUDA_CHECK(cudaSetDevice(gpu_));
    cudaDeviceProp prop{};
    HOPSIM_CUDA_CHECK(cudaGetDeviceProperties(&prop, gpu_));
    deviceName_ = std::string(prop.name) + ", GPU " + std::to_string(gpu_);
    smCount_ = prop.multiProcessorCount;
    HOPSIM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    HOPSIM_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&hostScalars_), sizeof(DeviceScalars)));
    deviceAlloc(ds_, 1);
    for (auto* e : {&ev_[0], &ev_[1], &ev_[2], &nbEv_[0], &nbEv_[1]}) HOPSIM_CUDA_CHECK(cudaEventCreate(e));
    listCounts_.allocate();
    const EngineConfig& e = c.engine;
    coeff_ = makeLjCoefficients<P>(e.lj.epsilon, e.lj.sigma, e.lj.cutoff, e.lj.shift);

    // Half-range bins over the region (5^3 around an atom), clipped at its faces: the region is at least three
    // ranges wide (a sub-box is at least one), so every axis has room for them.
    const double range = interactionRange(e.lj, e.skin);
    region_.reach = 2;
    for (int d = 0; d < 3; ++d) {
      const double width = c.hi[d] - c.lo[d];
      region_.lo[d] = c.lo[d];
      region_.cells[d] = std::max(1, static_cast<int>(std::floor(width * region_.reach / range)));
      region_.inverseCell[d] = region_.cells[d] / width;
    }
    ncell_ = region_.cells[0] * region_.cells[1] * region_.cells[2];
    deviceAlloc(cellStart_, static_cast<std::size_t>(ncell_) + 1);
    rangeSq_ = P(range * range);
    a_.stride = 96;
    DeviceScalars init{};
    init.nhScale1 = init.nhScale2 = 1.0;
    *hostScalars_ = init;
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(ds_, hostScalars_, sizeof(DeviceScalars), cudaMemcpyHostToDevice, stream_));
    HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  ~CudaDomainMdDevice() override {
    freeArrays();
    deviceFree(cellStart_), deviceFree(ds_);
    listCounts_.release();
    if (hostScalars_) cudaFreeHost(hostScalars_);
    for (auto e : ev_) if (e) cudaEventDestroy(e);
    for (auto e : nbEv_) if (e) cudaEventDestroy(e);
    if (stream_) cudaStreamDestroy(stream_);
  }

  void setMass(double mass) override {
    mass_ = mass;
    const auto& in = config_.engine.integrator;
    params_.dt = in.dt;
    params_.dtf = 0.5 * in.dt / mass;
    params_.trigger = rebuildDisplacementSq(config_.engine.skin);
    params_.useLangevin = in.type == IntegratorType::Langevin;
    params_.useScale = in.type == IntegratorType::NoseHoover;  // the scale comes from the host's thermostat
    if (params_.useLangevin) params_.langevin = langevinParams(in, mass);
  }

  void load(const LocalAtoms<S>& atoms, const std::vector<GhostSwap<S>>& swaps) override {
    HOPSIM_CUDA_CHECK(cudaSetDevice(gpu_));
    // Nothing queued may still read the old arrays, the staging buffer or the inbox.
    HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    owned_ = static_cast<int>(atoms.owned);
    total_ = static_cast<int>(atoms.total());
    const std::size_t n = atoms.owned;
    std::size_t sends = 0, staged = 7 * padded(n * sizeof(long long));
    swaps_.clear();
    for (const GhostSwap<S>& g : swaps) {
      if (g.self && g.count != g.indices->size())
        throw std::logic_error("ghost exchange: a swap to this rank itself receives another count than it sends");
      swaps_.push_back({g.axis, g.shift, sends, g.indices->size(), g.first, g.count, g.self});
      sends += g.indices->size();
      staged += padded(g.indices->size() * sizeof(int));
    }
    reserve(sends);
    reserveStaging(staged);
    a_.n = owned_;
    // Each array through its own part of the pinned staging buffer: its copy runs while the host stages the next
    // (a pageable source would make every copy a synchronous driver-staged one).
    std::byte* next = staging_.get();
    const auto up = [&](auto* dst, const auto* src, std::size_t count) {
      static_assert(sizeof(*dst) == sizeof(*src));
      if (count == 0) return;  // a rank may hold no ghosts to send, or (thin slabs) no atoms
      const std::size_t bytes = count * sizeof(*src);
      std::memcpy(next, src, bytes);
      HOPSIM_CUDA_CHECK(cudaMemcpyAsync(dst, next, bytes, cudaMemcpyHostToDevice, stream_));
      next += padded(bytes);
    };
    up(a_.x, atoms.x.data(), n), up(a_.y, atoms.y.data(), n), up(a_.z, atoms.z.data(), n);
    up(a_.vx, atoms.vx.data(), n), up(a_.vy, atoms.vy.data(), n), up(a_.vz, atoms.vz.data(), n);
    up(a_.id, atoms.id.data(), n);
    for (std::size_t q = 0; q < swaps.size(); ++q)
      up(sendIndices_ + swaps_[q].sendOffset, swaps[q].indices->data(), swaps_[q].sendCount);
    // Ghosts swap by swap in the exchange's order (a later axis sends ghosts an earlier one filled): a self swap's
    // computed on the GPU, the others' (as the host's borders received them) the way forwarded ones go, through the
    // inbox and the unpack kernel, which also sets pos.
    for (std::size_t q = 0; q < swaps_.size(); ++q) {
      const SwapSlots& s = swaps_[q];
      if (s.self) {
        copyGhosts(q);
        continue;
      }
      S* in = recvHost_ + 3 * (s.first - n);
      for (std::size_t k = 0; k < s.count; ++k) {
        const std::size_t i = s.first + k;
        in[3 * k] = atoms.x[i], in[3 * k + 1] = atoms.y[i], in[3 * k + 2] = atoms.z[i];
      }
      unpackGhosts(q);
    }
    if (owned_ > 0) {
      refreshKernel<S, P><<<blocksFor(owned_), kBlock, 0, stream_>>>(a_);  // pos and the displacement reference
      HOPSIM_CUDA_CHECK_LAUNCH("refreshKernel");
    }
    buildList();
  }

  void download(LocalAtoms<S>& atoms) override {
    HOPSIM_CUDA_CHECK(cudaSetDevice(gpu_));
    const std::size_t n = static_cast<std::size_t>(owned_);
    for (auto* v : {&atoms.x, &atoms.y, &atoms.z, &atoms.vx, &atoms.vy, &atoms.vz}) v->resize(n);
    atoms.id.resize(n);
    atoms.owned = n;
    // Through the pinned staging buffer (full link speed, all seven copies queued at once), then into the vectors.
    reserveStaging(7 * padded(n * sizeof(long long)));
    std::byte* next = staging_.get();
    const auto down = [&](const auto* src) {
      std::byte* at = next;
      if (n > 0) HOPSIM_CUDA_CHECK(cudaMemcpyAsync(at, src, n * sizeof(*src), cudaMemcpyDeviceToHost, stream_));
      next += padded(n * sizeof(*src));
      return at;
    };
    const std::byte* from[7] = {down(a_.x), down(a_.y), down(a_.z), down(a_.vx), down(a_.vy), down(a_.vz),
                                down(a_.id)};
    HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const auto take = [n](auto& dst, const std::byte* at) {
      if (n > 0) std::memcpy(dst.data(), at, n * sizeof(dst[0]));
    };
    take(atoms.x, from[0]), take(atoms.y, from[1]), take(atoms.z, from[2]);
    take(atoms.vx, from[3]), take(atoms.vy, from[4]), take(atoms.vz, from[5]), take(atoms.id, from[6]);
  }

  std::vector<double> forces() override {
    HOPSIM_CUDA_CHECK(cudaSetDevice(gpu_));
    const std::size_t n = static_cast<std::size_t>(owned_);
    std::vector<P> f[3];
    P* src[3] = {a_.fx, a_.fy, a_.fz};
    for (int c = 0; c < 3; ++c) {
      f[c].resize(n);
      if (n > 0)
        HOPSIM_CUDA_CHECK(cudaMemcpyAsync(f[c].data(), src[c], n * sizeof(P), cudaMemcpyDeviceToHost, stream_));
    }
    HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    std::vector<double> out(3 * n);
    for (std::size_t i = 0; i < n; ++i)
      for (int c = 0; c < 3; ++c) out[3 * i + c] = double(f[c][i]);
    return out;
  }

  void computeForces(bool energy) override {
    if (energy) HOPSIM_CUDA_CHECK(cudaMemsetAsync(&ds_->potential, 0, 2 * sizeof(double), stream_));  // + virial
    if (owned_ == 0) return;
    const int group = forceGroupFor(owned_, smCount_, config_.engine.forceThreadsPerAtom);
    stats_.forceThreadsPerAtom = group;
    launchForceKernel<S, P, A, false>(a_, region_, coeff_, ds_, group, energy, stream_);
  }

  void setStep(long long step) override {
    hostScalars_->step = static_cast<unsigned long long>(step);
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(&ds_->step, &hostScalars_->step, sizeof(unsigned long long),
                                      cudaMemcpyHostToDevice, stream_));
  }

  StepFlags firstHalf(double scale) override {
    HOPSIM_CUDA_CHECK(cudaSetDevice(gpu_));
    const bool timed = config_.engine.timePhases;
    if (timed) HOPSIM_CUDA_CHECK(cudaEventRecord(ev_[0], stream_));
    if (params_.useScale) {
      hostScalars_->nhScale1 = scale;
      HOPSIM_CUDA_CHECK(cudaMemcpyAsync(&ds_->nhScale1, &hostScalars_->nhScale1, sizeof(double),
                                        cudaMemcpyHostToDevice, stream_));
    }
    HOPSIM_CUDA_CHECK(cudaMemsetAsync(&ds_->rebuild, 0, sizeof(int), stream_));
    if (owned_ > 0) {
      integrateFirstKernel<S, P, false><<<blocksFor(owned_), kBlock, 0, stream_>>>(a_, region_, params_, ds_);
      HOPSIM_CUDA_CHECK_LAUNCH("integrateFirstKernel<region>");
    }
    if (timed) HOPSIM_CUDA_CHECK(cudaEventRecord(ev_[1], stream_));
    // rebuild, overflow and bad are adjacent: one small copy.
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(&hostScalars_->rebuild, &ds_->rebuild, 3 * sizeof(int), cudaMemcpyDeviceToHost,
                                      stream_));
    HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    if (timed) stats_.integrateSeconds += elapsed(ev_[0], ev_[1]);
    return {hostScalars_->rebuild != 0, hostScalars_->bad != 0};
  }

  void secondHalf(bool energy) override {
    HOPSIM_CUDA_CHECK(cudaSetDevice(gpu_));
    const bool timed = config_.engine.timePhases;
    if (timed) HOPSIM_CUDA_CHECK(cudaEventRecord(ev_[0], stream_));
    computeForces(energy);
    if (timed) HOPSIM_CUDA_CHECK(cudaEventRecord(ev_[1], stream_));
    HOPSIM_CUDA_CHECK(cudaMemsetAsync(&ds_->twoKinetic, 0, sizeof(double), stream_));
    if (owned_ > 0) {
      integrateSecondKernel<S, P><<<blocksFor(owned_), kBlock, 0, stream_>>>(a_, params_, ds_);
      HOPSIM_CUDA_CHECK_LAUNCH("integrateSecondKernel");
    }
    kineticKernelScale<<<1, 1, 0, stream_>>>(ds_, mass_);
    HOPSIM_CUDA_CHECK_LAUNCH("kineticKernelScale");
    nextStepKernel<<<1, 1, 0, stream_>>>(ds_);
    HOPSIM_CUDA_CHECK_LAUNCH("nextStepKernel");
    if (timed) {
      HOPSIM_CUDA_CHECK(cudaEventRecord(ev_[2], stream_));
      HOPSIM_CUDA_CHECK(cudaEventSynchronize(ev_[2]));
      stats_.forceSeconds += elapsed(ev_[0], ev_[1]);
      stats_.integrateSeconds += elapsed(ev_[1], ev_[2]);
    }
  }

  void scaleVelocities(double s) override {
    hostScalars_->nhScale2 = s;
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(&ds_->nhScale2, &hostScalars_->nhScale2, sizeof(double), cudaMemcpyHostToDevice,
                                      stream_));
    if (owned_ > 0) {
      scaleVelocitiesKernel<S, P><<<blocksFor(owned_), kBlock, 0, stream_>>>(a_, ds_);
      HOPSIM_CUDA_CHECK_LAUNCH("scaleVelocitiesKernel");
    }
    kineticKernelScale<<<1, 1, 0, stream_>>>(ds_, s * s);
    HOPSIM_CUDA_CHECK_LAUNCH("kineticKernelScale (Nose-Hoover)");
  }

  void measureKinetic() override {
    // A second half-kick with zero dt is a plain reduction (as CudaMdEngine computes the initial kinetic energy).
    StepParams zero = params_;
    zero.dtf = 0;
    zero.useLangevin = false;
    HOPSIM_CUDA_CHECK(cudaMemsetAsync(&ds_->twoKinetic, 0, sizeof(double), stream_));
    if (owned_ > 0) {
      integrateSecondKernel<S, P><<<blocksFor(owned_), kBlock, 0, stream_>>>(a_, zero, ds_);
      HOPSIM_CUDA_CHECK_LAUNCH("integrateSecondKernel (kinetic energy)");
    }
    kineticKernelScale<<<1, 1, 0, stream_>>>(ds_, mass_);
    HOPSIM_CUDA_CHECK_LAUNCH("kineticKernelScale");
  }

  void restore(const LocalAtoms<S>& now, const std::vector<double>& forces, const RawThermo& sums) override {
    HOPSIM_CUDA_CHECK(cudaSetDevice(gpu_));
    HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const std::size_t n = static_cast<std::size_t>(owned_);
    if (n > 0) {
      // Positions x y z per atom through unpackGhostsKernel, which also sets pos (slots 0 .. n - 1 are the owned
      // atoms); x0 keeps the positions load() built the list from.
      std::vector<S> xyz(3 * n);
      std::vector<P> f[3];
      for (auto& v : f) v.resize(n);
      for (std::size_t i = 0; i < n; ++i) {
        xyz[3 * i] = now.x[i], xyz[3 * i + 1] = now.y[i], xyz[3 * i + 2] = now.z[i];
        for (int c = 0; c < 3; ++c) f[c][i] = P(forces[3 * i + c]);
      }
      S* staged = nullptr;
      deviceAlloc(staged, 3 * n);
      HOPSIM_CUDA_CHECK(cudaMemcpy(staged, xyz.data(), 3 * n * sizeof(S), cudaMemcpyHostToDevice));
      unpackGhostsKernel<S, P><<<blocksFor(owned_), kBlock, 0, stream_>>>(a_, staged, 0, owned_);
      HOPSIM_CUDA_CHECK_LAUNCH("unpackGhostsKernel (restored positions)");
      P* dst[3] = {a_.fx, a_.fy, a_.fz};
      for (int c = 0; c < 3; ++c)
        HOPSIM_CUDA_CHECK(cudaMemcpyAsync(dst[c], f[c].data(), n * sizeof(P), cudaMemcpyHostToDevice, stream_));
      HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
      deviceFree(staged);
    }
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(hostScalars_, ds_, sizeof(DeviceScalars), cudaMemcpyDeviceToHost, stream_));
    HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    hostScalars_->potential = sums.potential;
    hostScalars_->virial = sums.virial;
    hostScalars_->twoKinetic = sums.twoKinetic;
    hostScalars_->bad = 0;
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(ds_, hostScalars_, sizeof(DeviceScalars), cudaMemcpyHostToDevice, stream_));
    HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  std::span<const std::byte> packGhosts(std::size_t swap) override {
    const SwapSlots& s = swaps_.at(swap);
    if (s.sendCount > 0) {
      const int count = static_cast<int>(s.sendCount);
      packGhostsKernel<S, P><<<blocksFor(count), kBlock, 0, stream_>>>(a_, sendIndices_ + s.sendOffset, count, s.axis,
                                                                        s.shift, sendDev_ + 3 * s.sendOffset);
      HOPSIM_CUDA_CHECK_LAUNCH("packGhostsKernel");
      HOPSIM_CUDA_CHECK(cudaMemcpyAsync(sendHost_ + 3 * s.sendOffset, sendDev_ + 3 * s.sendOffset,
                                        3 * s.sendCount * sizeof(S), cudaMemcpyDeviceToHost, stream_));
      HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    }
    return std::as_bytes(std::span<const S>(sendHost_ + 3 * s.sendOffset, 3 * s.sendCount));
  }

  std::span<std::byte> ghostInbox(std::size_t swap) override {
    const SwapSlots& s = swaps_.at(swap);
    return std::as_writable_bytes(std::span<S>(recvHost_ + 3 * (s.first - owned_), 3 * s.count));
  }

  void unpackGhosts(std::size_t swap) override {
    const SwapSlots& s = swaps_.at(swap);
    if (s.count == 0) return;
    const std::size_t offset = 3 * (s.first - owned_);
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(recvDev_ + offset, recvHost_ + offset, 3 * s.count * sizeof(S),
                                      cudaMemcpyHostToDevice, stream_));
    unpackGhostsKernel<S, P><<<blocksFor(static_cast<int>(s.count)), kBlock, 0, stream_>>>(
        a_, recvDev_ + offset, static_cast<int>(s.first), static_cast<int>(s.count));
    HOPSIM_CUDA_CHECK_LAUNCH("unpackGhostsKernel");
  }

  void copyGhosts(std::size_t swap) override {
    const SwapSlots& s = swaps_.at(swap);
    if (s.count == 0) return;
    const int count = static_cast<int>(s.count);
    copyGhostsKernel<S, P><<<blocksFor(count), kBlock, 0, stream_>>>(a_, sendIndices_ + s.sendOffset, count, s.axis,
                                                                      s.shift, static_cast<int>(s.first));
    HOPSIM_CUDA_CHECK_LAUNCH("copyGhostsKernel");
  }

  RawThermo localSums() override {
    HOPSIM_CUDA_CHECK(cudaSetDevice(gpu_));
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(hostScalars_, ds_, sizeof(DeviceScalars), cudaMemcpyDeviceToHost, stream_));
    HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    RawThermo t;
    t.potential = hostScalars_->potential;
    t.virial = hostScalars_->virial;
    t.twoKinetic = hostScalars_->twoKinetic;
    t.finite = hostScalars_->bad == 0 && std::isfinite(t.potential) && std::isfinite(t.virial) &&
               std::isfinite(t.twoKinetic);
    return t;
  }

  EngineStats stats() const override {
    EngineStats s = stats_;
    if (!config_.engine.timePhases) s.forceSeconds = s.integrateSeconds = std::numeric_limits<double>::quiet_NaN();
    listCounts_.report(s, a_.ncount, owned_, stats_.neighborBuilds, gpu_, stream_);
    return s;
  }

  std::string deviceName() const override { return deviceName_; }

 private:
  // Where one swap's data sits: its send list in sendIndices_ (and its packed positions at 3x that offset in the send
  // buffers), its ghost slots (and their place in the receive buffers, counted from the first ghost).
  struct SwapSlots {
    int axis = 0;
    S shift = 0;
    std::size_t sendOffset = 0, sendCount = 0;
    std::size_t first = 0, count = 0;
    bool self = false;  // filled by copyGhosts() from this rank's own atoms
  };

  float elapsedMs(cudaEvent_t a, cudaEvent_t b) const {
    float ms = 0;
    HOPSIM_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    return ms;
  }
  double elapsed(cudaEvent_t a, cudaEvent_t b) const { return 1e-3 * elapsedMs(a, b); }

  int sortBits() const {
    int bits = 1;
    while ((1LL << bits) < ncell_) ++bits;
    return bits;
  }

  // Room for owned_ atoms, total_ atoms and `sends` sent positions; arrays grow by a quarter beyond what is needed so
  // that atoms drifting in do not reallocate at every rebuild. Contents are not kept: load() uploads all of them.
  void reserve(std::size_t sends) {
    const auto grown = [](std::size_t need) { return need + need / 4 + 64; };
    const std::size_t owned = static_cast<std::size_t>(owned_), total = static_cast<std::size_t>(total_);
    if (owned > ownedCap_) {
      ownedCap_ = grown(owned);
      for (S** p : {&a_.vx, &a_.vy, &a_.vz, &a_.x0, &a_.y0, &a_.z0}) deviceFree(*p), deviceAlloc(*p, ownedCap_);
      for (P** p : {&a_.fx, &a_.fy, &a_.fz}) deviceFree(*p), deviceAlloc(*p, ownedCap_);
      deviceFree(a_.id), deviceAlloc(a_.id, ownedCap_);
      deviceFree(a_.ncount), deviceAlloc(a_.ncount, ownedCap_);
      deviceFree(a_.nlist), deviceAlloc(a_.nlist, static_cast<std::size_t>(a_.stride) * ownedCap_);
    }
    if (total > totalCap_) {
      totalCap_ = grown(total);
      for (S** p : {&a_.x, &a_.y, &a_.z}) deviceFree(*p), deviceAlloc(*p, totalCap_);
      deviceFree(a_.pos), deviceAlloc(a_.pos, totalCap_);
      deviceFree(keys_), deviceFree(keysSorted_), deviceFree(values_), deviceFree(order_);
      deviceAlloc(keys_, totalCap_), deviceAlloc(keysSorted_, totalCap_);
      deviceAlloc(values_, totalCap_), deviceAlloc(order_, totalCap_);
      sortBytes_ = 0;
      HOPSIM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sortBytes_, keys_, keysSorted_, values_, order_,
                                                        static_cast<int>(totalCap_), 0, sortBits(), stream_));
      deviceFree(sortTemp_), deviceAlloc(sortTemp_, sortBytes_);
      // Ghosts never outnumber all atoms: the receive buffers hold total_ positions.
      deviceFree(recvDev_), deviceAlloc(recvDev_, 3 * totalCap_);
      if (recvHost_) HOPSIM_CUDA_CHECK(cudaFreeHost(recvHost_));
      HOPSIM_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&recvHost_), 3 * totalCap_ * sizeof(S)));
    }
    if (sends > sendCap_) {
      sendCap_ = grown(sends);
      deviceFree(sendIndices_), deviceAlloc(sendIndices_, sendCap_);
      deviceFree(sendDev_), deviceAlloc(sendDev_, 3 * sendCap_);
      if (sendHost_) HOPSIM_CUDA_CHECK(cudaFreeHost(sendHost_));
      HOPSIM_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&sendHost_), 3 * sendCap_ * sizeof(S)));
    }
  }

  // Pinned staging for load() and download(), at least `bytes`; grown by a quarter beyond the need, never shrunk, so
  // that rebuilds do not allocate. Callers have synchronised: no copy still reads the old buffer.
  void reserveStaging(std::size_t bytes) {
    if (bytes > staging_.size()) staging_ = PinnedBuffer<std::byte>(bytes + bytes / 4);
  }
  // Each staged array starts on its own 256-byte boundary (aligned copies).
  static std::size_t padded(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

  // Bin owned and ghost atoms, sort them by bin (indices only), find the bin ranges, build the list of every owned
  // atom (growing it when an atom has more neighbours). Synchronises once per attempt for the overflow check.
  void buildList() {
    HOPSIM_CUDA_CHECK(cudaEventRecord(nbEv_[0], stream_));
    if (total_ > 0) {
      Arrays<S, P> all = a_;  // binning covers the ghosts too
      all.n = total_;
      binKernel<S, P, false><<<blocksFor(total_), kBlock, 0, stream_>>>(all, region_, keys_, values_);
      HOPSIM_CUDA_CHECK_LAUNCH("binKernel<region>");
      HOPSIM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(sortTemp_, sortBytes_, keys_, keysSorted_, values_, order_,
                                                        total_, 0, sortBits(), stream_));
    }
    cellStartKernel<<<blocksFor(total_ + 1), kBlock, 0, stream_>>>(keysSorted_, total_, ncell_, cellStart_);
    HOPSIM_CUDA_CHECK_LAUNCH("cellStartKernel");
    for (;;) {
      HOPSIM_CUDA_CHECK(cudaMemsetAsync(&ds_->overflow, 0, sizeof(int), stream_));
      if (owned_ > 0) {
        buildListBinsKernel<S, P, false><<<blocksFor(owned_), kBlock, 0, stream_>>>(a_, region_, cellStart_, order_,
                                                                                     rangeSq_, ds_);
        HOPSIM_CUDA_CHECK_LAUNCH("buildListBinsKernel<region>");
      }
      HOPSIM_CUDA_CHECK(cudaEventRecord(nbEv_[1], stream_));
      if (listFits(a_, ownedCap_, ds_, hostScalars_, stream_)) break;
    }
    stats_.neighborSeconds += elapsed(nbEv_[0], nbEv_[1]);
    ++stats_.neighborBuilds;
  }

  void freeArrays() {
    for (S** p : {&a_.x, &a_.y, &a_.z, &a_.vx, &a_.vy, &a_.vz, &a_.x0, &a_.y0, &a_.z0}) deviceFree(*p);
    for (P** p : {&a_.fx, &a_.fy, &a_.fz}) deviceFree(*p);
    deviceFree(a_.pos), deviceFree(a_.id), deviceFree(a_.ncount), deviceFree(a_.nlist);
    deviceFree(keys_), deviceFree(keysSorted_), deviceFree(values_), deviceFree(order_), deviceFree(sortTemp_);
    deviceFree(sendIndices_), deviceFree(sendDev_), deviceFree(recvDev_);
    if (sendHost_) cudaFreeHost(sendHost_);
    if (recvHost_) cudaFreeHost(recvHost_);
    sendHost_ = recvHost_ = nullptr;
  }

  DomainDeviceConfig config_;
  int gpu_ = 0;
  std::string deviceName_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t ev_[3] = {nullptr, nullptr, nullptr};  // phase timing (timePhases)
  cudaEvent_t nbEv_[2] = {nullptr, nullptr};         // around each list build, timed in every mode
  DeviceScalars* ds_ = nullptr;
  DeviceScalars* hostScalars_ = nullptr;  // pinned
  LjCoefficients<P> coeff_;
  StepParams params_{};
  BoxParams region_{};
  P rangeSq_ = 0;
  Arrays<S, P> a_{};
  double mass_ = 1;
  int owned_ = 0, total_ = 0, ncell_ = 0;
  int smCount_ = 1;
  std::size_t ownedCap_ = 0, totalCap_ = 0, sendCap_ = 0;
  unsigned *keys_ = nullptr, *keysSorted_ = nullptr;
  int *values_ = nullptr, *order_ = nullptr, *cellStart_ = nullptr;
  unsigned char* sortTemp_ = nullptr;
  std::size_t sortBytes_ = 0;
  std::vector<SwapSlots> swaps_;
  int* sendIndices_ = nullptr;
  S *sendDev_ = nullptr, *recvDev_ = nullptr;    // packed positions on the device
  S *sendHost_ = nullptr, *recvHost_ = nullptr;  // and in pinned host memory, for MPI
  PinnedBuffer<std::byte> staging_;  // owned atoms and send lists between host vectors and the device, at rebuilds
  mutable ListCountCache listCounts_;
  EngineStats stats_;
};

}  // namespace

template <class S>
std::unique_ptr<DomainMdDevice<S>> makeDomainMdDevice(const DomainDeviceConfig& config) {
  const Precision p = config.engine.precision;
  if constexpr (std::is_same_v<S, float>) {
    if (p == Precision::Single) return std::make_unique<CudaDomainMdDevice<float, float, float>>(config);
  } else {
    if (p == Precision::Mixed) return std::make_unique<CudaDomainMdDevice<double, float, float>>(config);
    if (p == Precision::Double) return std::make_unique<CudaDomainMdDevice<double, double, double>>(config);
  }
  throw std::logic_error("the storage type of the atoms does not match the precision");
}

template std::unique_ptr<DomainMdDevice<float>> makeDomainMdDevice<float>(const DomainDeviceConfig&);
template std::unique_ptr<DomainMdDevice<double>> makeDomainMdDevice<double>(const DomainDeviceConfig&);

}  // namespace hopsim::md
