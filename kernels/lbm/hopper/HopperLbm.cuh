// The Hopper LBM backend (`device.kernels: hopper`, compute capability 9.0 and newer) for one lattice and one
// storage type. It keeps the portable backend's state and machinery (CudaLbm.cuh: two population arrays, cell
// classes, the list of boundary cells, graphs of steps, the fields and observables kernels of LbmKernels.cuh) and
// replaces only the bulk update: by the temporal kernel of TemporalStep.cuh (k = 1, 2 or 4 steps per launch) where
// every cell is bulk (periodic boxes without solids), otherwise by the thread block cluster kernel of ClusterStep.cuh
// (see those files for the designs, floors and predictions). Boundary cells go through the portable
// boundaryStepKernel, so every lattice and boundary type works; the cluster kernel's results equal the portable
// backend's bit for bit, the temporal kernel's to round-off (nvcc contracts collide() differently in it).
//
// Two lattices only (the cluster kernel pulls from a source array that no block writes during the step); a request
// for the in-place layout runs two lattices and says so in description(). D3Q27 and double precision run the
// portable bulk kernel (no cluster kernel is built for them yet), also said in description().
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/common/DeviceBuffer.cuh"
#include "kernels/lbm/cuda/CudaLbmCommon.cuh"
#include "kernels/lbm/cuda/CudaLbmFactory.h"
#include "kernels/lbm/cuda/LbmKernels.cuh"
#include "kernels/lbm/hopper/ClusterStep.cuh"
#include "kernels/lbm/hopper/TemporalStep.cuh"
#include "kernels/lbm/hopper/TensorMap.cuh"

namespace hopsim::lbm::hopper {

template <class L, class S>
class HopperLbm final : public LbmBackend {
  using Store = PopulationStorage<S>;
  using T = typename Store::Arith;
  static constexpr bool kCluster = clusterKernelBuilt<L, S>();
  static constexpr bool kTemporal = temporalKernelBuilt<L, S>();

 public:
  HopperLbm(const LbmSetup& s, const CudaLbmOptions& o, const HopperLbmOptions& h)
      : p_(convertDomain<T>(s.domain)), options_(o), hopper_(h), obstacles_(s.obstacles), deviceScope_(o.device) {
    if (p_.hasGhosts())
      throw std::runtime_error("the Hopper LBM kernels do not run a domain split over MPI ranks yet; use "
                               "device.kernels: portable (or auto) with several ranks");
    selectDevice();
    if (options_.layout == StreamingLayout::InPlace)
      note_ += "; in-place layout not used: the cluster kernel runs two lattices";
    const long long n = p_.cells;
    wide_ = static_cast<unsigned long long>(L::Q) * static_cast<unsigned long long>(n) > 0xFFFFFFFFull;
    configureLaunch();
    checkMemory();

    const std::size_t populations = static_cast<std::size_t>(L::Q) * static_cast<std::size_t>(n);
    f_[0] = DeviceBuffer<S>(populations);
    f_[1] = DeviceBuffer<S>(populations);
    flags_ = DeviceBuffer<std::uint8_t>(n);
    cls_ = DeviceBuffer<std::uint8_t>(n);
    forces_ = DeviceBuffer<double>(3 * std::max(1, obstacles_));
    partials_ = DeviceBuffer<double>(kObservables * blocks());
    result_ = DeviceBuffer<double>(kObservables);
    hostResult_ = PinnedBuffer<double>(std::max<std::size_t>(kObservables, 3 * std::max(1, obstacles_)));

    f_[0].zero(stream_.get());  // solid cells' slots, never written by a step, hold defined values
    f_[1].zero(stream_.get());
    forces_.zero(stream_.get());
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(flags_.get(), s.flags.data(), n, cudaMemcpyHostToDevice, stream_.get()));
    if (wide_) classify<unsigned long long>();
    else classify<unsigned>();
    listBoundaryCells();
    initialise(s);
    if constexpr (kCluster) configureCluster();
    configureTemporal();
    stream_.synchronize();
  }

  std::string name() const override { return "cuda/hopper"; }

  std::string description() const override {
    char buf[1024];
    std::snprintf(buf, sizeof buf,
                  "cuda/hopper on %s (cc %d.%d, %d SMs), %s %s, two lattices, %s indices, bulk: %s, %lld boundary "
                  "cells (portable boundary kernel), graphs of %d steps%s%s",
                  device_.name, device_.major, device_.minor, device_.multiProcessorCount, L::name, storageName(),
                  wide_ ? "64-bit" : "32-bit", bulkDescription_.c_str(), boundaryCount_, options_.graphSteps,
                  note_.c_str(), options_.note.c_str());
    return buf;
  }

  std::string layout() const override { return toString(StreamingLayout::TwoLattice); }

  double bytesPerCellUpdate() const override { return 2.0 * L::Q * sizeof(S); }

  void advance(long long steps, bool forcesOnLastStep) override {
    if (steps <= 0) return;
    const bool forces = forcesOnLastStep && obstacles_ > 0;  // never with the temporal kernel: no solids there
    runPlain(forces ? steps - 1 : steps);
    if (forces) {
      forces_.zero(stream_.get());
      enqueueStep(stream_.get(), parity_, forces_.get());
      parity_ ^= 1;
    }
  }

  double timeSteps(long long steps) override {
    start_.record(stream_.get());
    runPlain(steps);
    stop_.record(stream_.get());
    stream_.synchronize();
    return stop_.since(start_) * 1e-3;
  }

  void macroscopic(std::vector<double>& rho, std::vector<double>& u) override {
    const long long n = p_.cells;
    if (!rhoHost_.size()) {
      rhoHost_ = PinnedBuffer<T>(n);
      uHost_ = PinnedBuffer<T>(3 * static_cast<std::size_t>(n));
    }
    if (wide_) launchFields<unsigned long long>();
    else launchFields<unsigned>();
    stream_.synchronize();
    rho.assign(rhoHost_.get(), rhoHost_.get() + n);
    u.assign(uHost_.get(), uHost_.get() + 3 * n);
  }

  Observables observables() override {
    if (wide_) launchObservables<unsigned long long>();
    else launchObservables<unsigned>();
    return finishObservables(partials_.get(), blocks(), result_.get(), hostResult_, stream_);
  }

  std::vector<std::array<double, 3>> obstacleForces() override {
    return readObstacleForces(forces_.get(), obstacles_, hostResult_, stream_);
  }

 private:
  static const char* storageName() {
    if constexpr (sizeof(S) == 2) return "half (FP16 storage, FP32 arithmetic)";
    else if constexpr (sizeof(S) == 4) return "single";
    else return "double";
  }

  void selectDevice() {
    device_ = selectCudaDevice(options_.device);
    if (device_.major < 9)
      throw std::runtime_error(std::string("device.kernels: hopper needs a Hopper GPU (compute capability 9.0 or "
                                           "newer: thread block clusters, TMA); ") + device_.name + " is " +
                               std::to_string(device_.major) + "." + std::to_string(device_.minor) +
                               ": use device.kernels: portable or auto");
  }

  // The portable launch shape, for classify, init, fields, observables and the portable bulk kernel.
  void configureLaunch() {
    int threads = options_.blockThreads;
    if (threads != 64 && threads != 128 && threads != 256) threads = 256;
    int bx = 32;
    while (bx < threads && bx < p_.n[0]) bx *= 2;  // powers of two: the block reductions need them
    block_ = dim3(bx, threads / bx, 1);
    const long long gy = (p_.n[1] + block_.y - 1) / block_.y;
    if (gy > 65535 || p_.n[2] > 65535)
      throw std::runtime_error("domain too tall for the CUDA launch grid: at most 65535 blocks along y (" +
                               std::to_string(65535LL * block_.y) + " cells) and 65535 cells along z");
    grid_ = dim3((p_.n[0] + bx - 1) / bx, static_cast<unsigned>(gy), p_.n[2]);
    if (options_.graphSteps < 2) options_.graphSteps = 2;
    options_.graphSteps += options_.graphSteps & 1;
    bulkDescription_ = "portable bulk kernel (no cluster kernel is built for " + std::string(L::name) + " " +
                       storageName() + ")";
  }

  long long blocks() const { return static_cast<long long>(grid_.x) * grid_.y * grid_.z; }

  void checkMemory() {
    std::size_t freeBytes = 0, totalBytes = 0;
    HOPSIM_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
    const double perCell = 2.0 * L::Q * sizeof(S) + 2.0 + kObservables * 8.0 / (block_.x * block_.y);
    const double needed = perCell * static_cast<double>(p_.cells) + 256.0 * (1 << 20);
    if (needed <= static_cast<double>(freeBytes)) return;
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "not enough GPU memory for %lld cells of %s %s with the Hopper kernels (two lattices): needs %.2f "
                  "GiB, %s has %.2f GiB free; the portable kernels' in-place layout needs about half",
                  p_.cells, L::name, storageName(), needed / double(1 << 30), device_.name,
                  static_cast<double>(freeBytes) / double(1 << 30));
    throw std::runtime_error(buf);
  }

  // ---- the cluster kernel: shape, tile loads, tensor maps ----

  struct ClusterShape {
    int blocks = 0;              // C
    dim3 dims{1, 1, 1};          // (1, cy, cz)
    dim3 grid{1, 1, 1};          // padded to whole clusters
    int activeClusters = 0;      // cudaOccupancyMaxActiveClusters
    double score = 0;            // resident cells x (useful blocks / launched blocks)
  };

  // The padded grid of a cluster of C blocks (clusterDims: (1, cy, cz)), and the share of its blocks that hold cells.
  ClusterShape shapeFor(int c) const {
    ClusterShape s;
    s.blocks = c;
    int dims[3];
    clusterDims(c, p_.n[2] > 1, dims);
    s.dims = dim3(dims[0], dims[1], dims[2]);
    const long long tx = (p_.n[0] + Tile::x - 1) / Tile::x;
    const long long ty = (p_.n[1] + Tile::y - 1) / Tile::y;
    const long long tz = (p_.n[2] + Tile::z - 1) / Tile::z;
    const long long gy = (ty + s.dims.y - 1) / s.dims.y * s.dims.y;
    const long long gz = (tz + s.dims.z - 1) / s.dims.z * s.dims.z;
    if (gy > 65535 || gz > 65535) return s;  // score 0: not launchable
    s.grid = dim3(static_cast<unsigned>(tx), static_cast<unsigned>(gy), static_cast<unsigned>(gz));
    const double useful = static_cast<double>(tx * ty * tz) / static_cast<double>(tx * gy * gz);
    s.score = useful;  // times resident cells, once the occupancy is known
    return s;
  }

  template <class Index, bool Tma>
  auto clusterKernel() const {
    return hasBodyForce(p_.collision) ? &clusterStepKernel<L, S, Index, Tma, true>
                                      : &clusterStepKernel<L, S, Index, Tma, false>;
  }

  template <class Index, bool Tma>
  void prepareKernel() {
    const auto k = clusterKernel<Index, Tma>();
    HOPSIM_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    HOPSIM_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(clusterSmemBytes<L, S>())));
  }

  template <class Index, bool Tma>
  int activeClusters(const ClusterShape& s) const {
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = s.grid;
    cfg.blockDim = dim3(Tile::x, Tile::y, Tile::z);
    cfg.dynamicSmemBytes = clusterSmemBytes<L, S>();
    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = s.dims.x;
    attr.val.clusterDim.y = s.dims.y;
    attr.val.clusterDim.z = s.dims.z;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    int n = 0;
    if (cudaOccupancyMaxActiveClusters(&n, clusterKernel<Index, Tma>(), &cfg) != cudaSuccess) {
      (void)cudaGetLastError();  // a size this device cannot run: not a candidate
      return 0;
    }
    return n;
  }

  // Tile loads (TMA where the shape allows), then the cluster size: every candidate's resident clusters from
  // cudaOccupancyMaxActiveClusters, the most resident useful cells winning (the larger cluster on a tie).
  void configureCluster() {
    tma_ = hopper_.tileLoad != HopperLbmOptions::TileLoad::Plain;
    std::string load = "TMA (cp.async.bulk.tensor 4-D box + mbarrier)";
    if (tma_) {
      const std::string why = tensorMapRefusal(p_.n, L::Q, sizeof(S));
      if (!why.empty()) {
        tma_ = false;
        load = "plain loads (TMA not used: " + why + ")";
      } else {
        const int box[3] = {Tile::x, Tile::y, Tile::z};
        for (int k = 0; k < 2; ++k) maps_[k] = populationTensorMap(f_[k].get(), p_.n, L::Q, sizeof(S), box);
      }
    } else {
      load = "plain loads (asked for)";
    }
    if (wide_) chooseCluster<unsigned long long>();
    else chooseCluster<unsigned>();

    char buf[640];
    std::snprintf(buf, sizeof buf,
                  "cluster kernel, tiles of %dx%dx%d cells, clusters of %d blocks (%ux%ux%u, brick %ux%ux%u cells), "
                  "%d clusters resident (%lld cells), tile loads: %s, halos over DSMEM; candidates (blocks: resident "
                  "clusters)%s",
                  Tile::x, Tile::y, Tile::z, shape_.blocks, shape_.dims.x, shape_.dims.y, shape_.dims.z,
                  shape_.dims.x * Tile::x, shape_.dims.y * Tile::y, shape_.dims.z * Tile::z, shape_.activeClusters,
                  static_cast<long long>(shape_.activeClusters) * shape_.blocks * Tile::cells, load.c_str(),
                  candidates_.c_str());
    bulkDescription_ = buf;
  }

  template <class Index>
  void chooseCluster() {
    if (tma_) prepareKernel<Index, true>();
    else prepareKernel<Index, false>();
    const int forced = hopper_.clusterBlocks;
    if (forced && forced != 2 && forced != 4 && forced != 8 && forced != 16)
      throw std::runtime_error("Hopper cluster size " + std::to_string(forced) + ": expected 2, 4, 8 or 16");
    for (const int c : {2, 4, 8, 16}) {
      ClusterShape s = shapeFor(c);
      if (s.score > 0) s.activeClusters = tma_ ? activeClusters<Index, true>(s) : activeClusters<Index, false>(s);
      s.score *= static_cast<double>(s.activeClusters) * c * Tile::cells;
      candidates_ += " " + std::to_string(c) + ": " + std::to_string(s.activeClusters);
      if (forced ? c == forced : s.score > shape_.score || (s.score == shape_.score && s.score > 0)) shape_ = s;
    }
    if (shape_.blocks == 0 || shape_.activeClusters == 0)
      throw std::runtime_error(std::string("no thread block cluster of ") +
                               (forced ? std::to_string(forced) + " blocks" : std::string("2-16 blocks")) +
                               " of the Hopper LBM kernel fits on " + device_.name + " for this domain");
  }

  // ---- state, initialisation and the step ----

  template <class Index>
  StateView<L, S, Index> state(int parity) const {
    return {f_[parity].get(), static_cast<Index>(p_.cells), -1};
  }

  template <class Index>
  void classify() {
    classifyKernel<L, Index><<<grid_, block_, 0, stream_.get()>>>(p_, flags_.get(), cls_.get());
    HOPSIM_CUDA_CHECK_LAUNCH("classifyKernel");
  }

  void listBoundaryCells() {
    std::vector<std::uint8_t> cls(static_cast<std::size_t>(p_.cells));
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(cls.data(), cls_.get(), cls.size(), cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
    const std::vector<BoundaryCell> list = boundaryCellsOf(cls, p_.n);
    allBulk_ = std::all_of(cls.begin(), cls.end(), [](std::uint8_t c) { return c == kCellBulk; });
    boundaryCount_ = static_cast<long long>(list.size());
    boundary_ = uploadList(list, stream_.get());
    stream_.synchronize();  // the host vectors are freed on return
  }

  void initialise(const LbmSetup& s) {
    initialiseEquilibrium<L>(p_, s, grid_, block_, wide_, stream_,
                             [&]<class Index>(Index) { return state<Index>(0); });
  }

  template <class Index, bool Tma>
  void launchCluster(cudaStream_t st, int parity) const {
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = shape_.grid;
    cfg.blockDim = dim3(Tile::x, Tile::y, Tile::z);
    cfg.dynamicSmemBytes = clusterSmemBytes<L, S>();
    cfg.stream = st;
    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = shape_.dims.x;
    attr.val.clusterDim.y = shape_.dims.y;
    attr.val.clusterDim.z = shape_.dims.z;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    const S* src = f_[parity].get();
    S* dst = f_[parity ^ 1].get();
    HOPSIM_CUDA_CHECK(cudaLaunchKernelEx(&cfg, clusterKernel<Index, Tma>(), p_, maps_[parity],
                                         static_cast<const std::uint8_t*>(cls_.get()), src, dst));
    HOPSIM_CUDA_CHECK_LAUNCH("clusterStepKernel");
  }

  // One step: the bulk kernel over the box, then the boundary kernel over its list (each writes only its own
  // cells of the destination array and reads only the source array, so their order does not matter).
  template <class Index>
  void launchStep(cudaStream_t st, int parity, double* forces) const {
    const Index n = static_cast<Index>(p_.cells);
    if constexpr (kCluster) {
      if (tma_) launchCluster<Index, true>(st, parity);
      else launchCluster<Index, false>(st, parity);
    } else {
      const TwoLatticeStep<L, S, Index> access{f_[parity].get(), f_[parity ^ 1].get(), n};
      withForcing(p_, [&]<bool Forced>() {
        bulkStepKernel<L, Index, Forced><<<grid_, block_, 0, st>>>(p_, cls_.get(), access);
        HOPSIM_CUDA_CHECK_LAUNCH("bulkStepKernel");
      });
    }
    if (!boundaryCount_) return;
    const BoundaryArgs<T> args{p_, flags_.get(), boundary_.get(), boundaryCount_, forces};
    const auto blocksNeeded = static_cast<unsigned>((boundaryCount_ + kBoundaryBlockThreads - 1) / kBoundaryBlockThreads);
    const TwoLatticeStep<L, S, unsigned long long> access{f_[parity].get(), f_[parity ^ 1].get(),
                                                          static_cast<unsigned long long>(p_.cells)};
    boundaryStepKernel<L><<<blocksNeeded, kBoundaryBlockThreads, 0, st>>>(args, access);
    HOPSIM_CUDA_CHECK_LAUNCH("boundaryStepKernel");
  }

  void enqueueStep(cudaStream_t st, int parity, double* forces) const {
    if (wide_) launchStep<unsigned long long>(st, parity, forces);
    else launchStep<unsigned>(st, parity, forces);
  }

  // Graphs of graphSteps steps (a multiple of 2 k: an even number of launches, so each graph leaves the current
  // array where it found it), then launches of k steps, then single steps.
  void runPlain(long long steps) {
    const int chunk = options_.graphSteps;
    while (steps >= chunk) {
      CudaGraph& g = graphs_[parity_];
      if (!g) {
        const int start = parity_;
        g = CudaGraph::capture(stream_.get(), [&](cudaStream_t st) {
          for (int k = 0; k < chunk / steps_; ++k) enqueueLaunch(st, start ^ (k & 1), steps_);
        });
      }
      g.launch(stream_.get());
      steps -= chunk;
    }
    for (; steps > 0; steps -= steps >= steps_ ? steps_ : 1) {
      enqueueLaunch(stream_.get(), parity_, steps >= steps_ ? steps_ : 1);
      parity_ ^= 1;
    }
  }

  // k steps from f_[parity] into f_[parity ^ 1]: the temporal kernel, or (k = 1) one step of the other kernels.
  void enqueueLaunch(cudaStream_t st, int parity, int k) const {
    if (!temporal_) return enqueueStep(st, parity, nullptr);
    if constexpr (kTemporal) {
      if (k == 1) return launchTemporal<1, 1>(st, parity);
      if (k == 4) return launchTemporal<4, 1>(st, parity);
      if (k == 2) {
        if constexpr (L::D == 3) {
          if (cluster_ == 4) return launchTemporal<2, 4>(st, parity);
          if (cluster_ == 8) return launchTemporal<2, 8>(st, parity);
        }
        return launchTemporal<2, 1>(st, parity);
      }
    }
    throw std::logic_error("temporal kernel: no launch of " + std::to_string(k) + " steps");
  }

  template <class Index>
  void launchFields() {
    fieldsKernel<L, Index><<<grid_, block_, 0, stream_.get()>>>(p_, state<Index>(parity_), flags_.get(),
                                                                rhoHost_.device(), uHost_.device());
    HOPSIM_CUDA_CHECK_LAUNCH("fieldsKernel");
  }

  template <class Index>
  void launchObservables() {
    observablesKernel<L, Index><<<grid_, block_, 0, stream_.get()>>>(p_, state<Index>(parity_), flags_.get(),
                                                                     partials_.get());
    HOPSIM_CUDA_CHECK_LAUNCH("observablesKernel");
  }

  // ---- the temporal kernel (TemporalStep.cuh): k steps per launch where every cell is bulk ----

  // Steps per launch: the request (HopperLbmOptions::stepsPerLaunch), or where none, kAutoSteps on boxes the
  // temporal kernel can run; a request it cannot honour is an error. Likewise the cluster of the 2-step 3-D kernel.
  void configureTemporal() {
    const int asked = hopper_.stepsPerLaunch;
    if (asked == HopperLbmOptions::kTemporalOff) return;
    if (asked != HopperLbmOptions::kTemporalAuto && asked != 1 && asked != 2 && asked != 4)
      throw std::runtime_error("Hopper steps per launch " + std::to_string(asked) + ": expected 1, 2 or 4");
    std::string why;
    if (!kTemporal) why = std::string("no temporal kernel is built for ") + L::name + " " + storageName();
    else if (!allBulk_) why = "the box is not periodic on every axis or has solid cells";
    else if (wide_) why = "more than 2^32 populations";
    if (!why.empty()) {
      if (asked != HopperLbmOptions::kTemporalAuto)
        throw std::runtime_error("Hopper steps per launch " + std::to_string(asked) + ": the temporal kernel cannot "
                                 "run this case (" + why + "); leave it to auto or off");
      return;
    }
    if constexpr (kTemporal) {
      temporal_ = true;
      steps_ = asked ? asked : kAutoSteps;
      const int cluster = hopper_.temporalCluster;
      if (cluster && cluster != 1 && !(L::D == 3 && steps_ == 2 && (cluster == 4 || cluster == 8)))
        throw std::runtime_error("Hopper temporal cluster of " + std::to_string(cluster) +
                                 " blocks: clusters of 4 or 8 blocks run the 3-D lattices at 2 steps per launch");
      cluster_ = L::D == 3 && steps_ == 2 ? (cluster ? cluster : kAutoCluster) : 1;
      if (steps_ == 1) planTemporal<1, 1>();
      if (steps_ == 4) planTemporal<4, 1>();
      if (steps_ == 2) {
        if constexpr (L::D == 3) {
          if (cluster_ == 4) planTemporal<2, 4>();
          if (cluster_ == 8) planTemporal<2, 8>();
        }
        if (cluster_ == 1) planTemporal<2, 1>();
      }
      if (steps_ != 1) planTemporal<1, 1>(/*describe=*/false);  // the remainder steps
      const int even = 2 * steps_;
      options_.graphSteps = (options_.graphSteps + even - 1) / even * even;
    }
  }

  template <int K, int Cy, bool Forced>
  static auto temporalKernel() {
    return &temporalStepKernel<L, S, K, Cy, Forced>;
  }

  template <int K, int Cy>
  static cudaLaunchConfig_t temporalConfig(dim3 grid, cudaStream_t st, cudaLaunchAttribute& attr) {
    using G = MarchTile<L, K, S, Cy>;
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = grid;
    cfg.blockDim = dim3(G::cells, 1, 1);
    cfg.dynamicSmemBytes = G::smemBytes;
    cfg.stream = st;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = 1;
    attr.val.clusterDim.y = Cy;
    attr.val.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    return cfg;
  }

  // The launch of the K-step kernel: every instantiation allowed its shared memory, the segment length along the
  // march axis chosen for the fewest plane-iterations per SM (waves of resident tiles x planes per tile, the K - 1
  // planes of lead-in and lead-out on each side counted).
  template <int K, int Cy>
  void planTemporal(bool describe = true) {
    using G = MarchTile<L, K, S, Cy>;
    for (const auto k : {temporalKernel<K, Cy, false>(), temporalKernel<K, Cy, true>()})
      HOPSIM_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(G::smemBytes)));
    const int a = L::D - 1;
    const unsigned tilesX = static_cast<unsigned>((p_.n[0] + G::outX - 1) / G::outX);
    const unsigned tilesY = L::D == 3 ? static_cast<unsigned>((p_.n[1] + G::outY - 1) / G::outY) : 1;
    // Resident tiles: blocks per SM x SMs, or clusters of Cy blocks (cudaOccupancyMaxActiveClusters).
    int perSm = 0, resident = 0;
    const bool forced = hasBodyForce(p_.collision);
    const auto kernel = forced ? temporalKernel<K, Cy, true>() : temporalKernel<K, Cy, false>();
    HOPSIM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, G::cells, G::smemBytes));
    if constexpr (Cy > 1) {
      cudaLaunchAttribute attr{};
      const cudaLaunchConfig_t cfg = temporalConfig<K, Cy>(dim3(tilesX, tilesY * Cy, 1), nullptr, attr);
      HOPSIM_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&resident, kernel, &cfg));
    } else {
      resident = perSm * device_.multiProcessorCount;
    }
    if (resident < 1) throw std::runtime_error("the temporal LBM kernel does not fit on " + std::string(device_.name));
    const long long tiles = static_cast<long long>(tilesX) * tilesY;
    const int planes = p_.n[a];
    int best = planes;
    double bestCost = 0;
    for (int m = std::min(planes, 4 * K); m <= planes; ++m) {
      const long long segments = (planes + m - 1) / m;
      const long long waves = (tiles * segments + resident - 1) / resident;
      const double cost = static_cast<double>(waves) * (m + 2 * (K - 1));
      if (bestCost == 0 || cost < bestCost) best = m, bestCost = cost;
    }
    const unsigned segments = static_cast<unsigned>((planes + best - 1) / best);
    const dim3 grid(tilesX, L::D == 3 ? tilesY * Cy : segments, L::D == 3 ? segments : 1);
    if (grid.y > 65535 || grid.z > 65535) throw std::runtime_error("domain too large for the temporal LBM kernel grid");
    march_[K == 4 ? 2 : K - 1] = {grid, best};
    if (!describe) return;
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "temporal blocking, %d step%s per launch (every cell bulk): columns of %dx%d cells marching along %c "
                  "(%dx%d stored per column), %s, segments of %d planes, %d blocks per SM, %zu KB shared memory per "
                  "block",
                  K, K > 1 ? "s" : "", G::x, G::rows, "xyz"[a], G::outX, G::outY,
                  Cy > 1 ? ("clusters of " + std::to_string(Cy) + " blocks of " + std::to_string(G::x) + "x" +
                            std::to_string(G::y) + " cells sharing levels over DSMEM").c_str()
                         : "one block per column",
                  best, perSm, G::smemBytes / 1024);
    bulkDescription_ = buf;
  }

  template <int K, int Cy>
  void launchTemporal(cudaStream_t st, int parity) const {
    const March& m = march_[K == 4 ? 2 : K - 1];
    const S* src = f_[parity].get();
    S* dst = f_[parity ^ 1].get();
    withForcing(p_, [&]<bool Forced>() {
      cudaLaunchAttribute attr{};
      const cudaLaunchConfig_t cfg = temporalConfig<K, Cy>(m.grid, st, attr);
      HOPSIM_CUDA_CHECK(cudaLaunchKernelEx(&cfg, temporalKernel<K, Cy, Forced>(), p_, src, dst, m.segment));
      HOPSIM_CUDA_CHECK_LAUNCH("temporalStepKernel");
    });
  }

  // Steps per launch of the temporal kernel when the case does not say, the fastest measured on the H200
  // (docs/performance.md, "Temporal blocking"): 4 for D2Q9; 1 for D3Q19, whose 2-step kernel measured slower.
  static constexpr int kAutoSteps = L::D == 2 ? 4 : 1;
  static constexpr int kAutoCluster = 1;  // blocks per cluster of the 2-step 3-D kernel when the case does not say

  struct March {
    dim3 grid{1, 1, 1};
    int segment = 1;
  };

  DomainParams<T> p_;
  CudaLbmOptions options_;
  HopperLbmOptions hopper_;
  int obstacles_;
  bool wide_ = false;
  bool tma_ = false;
  bool allBulk_ = false;   // every cell bulk: periodic on every axis, no solids
  bool temporal_ = false;  // bulk steps by the temporal kernel, steps_ per launch
  int steps_ = 1;
  int cluster_ = 1;        // blocks per cluster of the temporal kernel (1: no cluster)
  March march_[3];         // launches of the temporal kernel for K = 1, 2, 4
  cudaDeviceProp device_{};
  dim3 block_, grid_;
  ClusterShape shape_;
  CUtensorMap maps_[2]{};  // TMA descriptors of f_[0] and f_[1] (zero when tiles are loaded plainly)
  std::string bulkDescription_, candidates_, note_;
  DeviceScope deviceScope_;  // before the streams and events: they belong to the device current at their creation
  CudaStream stream_;
  CudaEvent start_, stop_;
  DeviceBuffer<S> f_[2];
  DeviceBuffer<std::uint8_t> flags_, cls_;
  DeviceBuffer<double> forces_, partials_, result_;
  DeviceBuffer<BoundaryCell> boundary_;
  long long boundaryCount_ = 0;
  PinnedBuffer<double> hostResult_;
  PinnedBuffer<T> rhoHost_, uHost_;
  CudaGraph graphs_[2];
  int parity_ = 0;  // steps done mod 2: which array is current
};

template <class L>
std::unique_ptr<LbmBackend> makeHopperLbmFor(const LbmSetup& s, const CudaLbmOptions& o, const HopperLbmOptions& h) {
  switch (s.precision) {
    case Precision::Single: return std::make_unique<HopperLbm<L, float>>(s, o, h);
    case Precision::Double: return std::make_unique<HopperLbm<L, double>>(s, o, h);
    case Precision::Half: return std::make_unique<HopperLbm<L, __half>>(s, o, h);
  }
  throw std::logic_error("unknown precision");
}

}  // namespace hopsim::lbm::hopper
