// The Hopper cluster bulk update (BulkUpdate::HopperCluster) on the host: the cluster shape from occupancy, the TMA
// tensor maps of both arrays (or plain loads where TMA refuses the shape), and the launch of ClusterStep.cuh's
// kernel. Its results equal the portable bulk kernel's bit for bit.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/DevicePlan.h"
#include "kernels/lbm/cuda/BulkStep.cuh"
#include "kernels/lbm/hopper/HopperBulk.cuh"
#include "kernels/lbm/hopper/ClusterStep.cuh"
#include "kernels/lbm/hopper/TensorMap.cuh"

namespace hopsim::lbm::hopper {

template <class L, class S>
class ClusterBulk final : public BulkStep<L, S> {
  static_assert(clusterKernelBuilt<L, S>(), "no cluster kernel is built for this lattice and storage type");

 public:
  // Tile loads (TMA where the plan allows and the shape too), then the cluster size: plan.clusterBlocks, or where 0
  // every candidate's resident clusters from cudaOccupancyMaxActiveClusters, the most resident useful cells winning
  // (the larger cluster on a tie).
  ClusterBulk(const BulkTarget<L, S>& target, const KernelPlan& plan) : t_(target) {
    // A decomposed box: the interior's classes skip the shell and the ghost cells, so no cell it updates pulls
    // across the box's edge on a split axis; the shell goes through the portable region kernel.
    if (t_.inPlace) throw std::logic_error("the cluster kernel runs two lattices (the planner's job)");
    tma_ = plan.tileLoad != TileLoad::Plain;
    std::string load = "TMA (cp.async.bulk.tensor 4-D box + mbarrier)";
    if (tma_) {
      const std::string why = tensorMapRefusal(t_.p.n, L::Q, sizeof(S));
      if (!why.empty()) {
        tma_ = false;
        load = "plain loads (TMA not used: " + why + ")";
      } else {
        const int box[3] = {Tile::x, Tile::y, Tile::z};
        for (int k = 0; k < 2; ++k) maps_[k] = populationTensorMap(t_.f[k], t_.p.n, L::Q, sizeof(S), box);
      }
    } else {
      load = "plain loads (asked for)";
    }
    if (t_.wide) chooseCluster<unsigned long long>(plan.clusterBlocks);
    else chooseCluster<unsigned>(plan.clusterBlocks);

    char buf[640];
    std::snprintf(buf, sizeof buf,
                  "cluster kernel, tiles of %dx%dx%d cells, clusters of %d blocks (%ux%ux%u, brick %ux%ux%u cells), "
                  "%d clusters resident (%lld cells), tile loads: %s, halos over DSMEM; candidates (blocks: resident "
                  "clusters)%s",
                  Tile::x, Tile::y, Tile::z, shape_.blocks, shape_.dims.x, shape_.dims.y, shape_.dims.z,
                  shape_.dims.x * Tile::x, shape_.dims.y * Tile::y, shape_.dims.z * Tile::z, shape_.activeClusters,
                  static_cast<long long>(shape_.activeClusters) * shape_.blocks * Tile::cells, load.c_str(),
                  candidates_.c_str());
    description_ = buf;
  }

  void enqueue(cudaStream_t st, int parity, const std::uint8_t* cls, int steps) const override {
    if (steps != 1) throw std::logic_error("the cluster kernel makes one step per launch");
    if (t_.wide) {
      if (tma_) launch<unsigned long long, true>(st, parity, cls);
      else launch<unsigned long long, false>(st, parity, cls);
    } else {
      if (tma_) launch<unsigned, true>(st, parity, cls);
      else launch<unsigned, false>(st, parity, cls);
    }
  }

  std::string description() const override { return description_; }

 private:
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
    clusterDims(c, t_.p.n[2] > 1, dims);
    s.dims = dim3(dims[0], dims[1], dims[2]);
    const long long tx = (t_.p.n[0] + Tile::x - 1) / Tile::x;
    const long long ty = (t_.p.n[1] + Tile::y - 1) / Tile::y;
    const long long tz = (t_.p.n[2] + Tile::z - 1) / Tile::z;
    const long long gy = (ty + s.dims.y - 1) / s.dims.y * s.dims.y;
    const long long gz = (tz + s.dims.z - 1) / s.dims.z * s.dims.z;
    if (gy > 65535 || gz > 65535) return s;  // score 0: not launchable
    s.grid = dim3(static_cast<unsigned>(tx), static_cast<unsigned>(gy), static_cast<unsigned>(gz));
    const double useful = static_cast<double>(tx * ty * tz) / static_cast<double>(tx * gy * gz);
    s.score = useful;  // times resident cells, once the occupancy is known
    return s;
  }

  template <class Index, bool Tma>
  auto kernel() const {
    decltype(&clusterStepKernel<L, S, Index, Tma, 0>) k = nullptr;
    withCollisionTerms(t_.p, [&]<int Terms>() { k = &clusterStepKernel<L, S, Index, Tma, Terms>; });
    return k;
  }

  template <class Index, bool Tma>
  void prepareKernel() const {
    const auto k = kernel<Index, Tma>();
    HOPSIM_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    HOPSIM_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(clusterSmemBytes<L, S>())));
  }

  // The launch configuration of `shape` on `st` (attr: its cluster dimension, kept alive by the caller).
  static cudaLaunchConfig_t launchConfig(const ClusterShape& shape, cudaStream_t st, cudaLaunchAttribute& attr) {
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = shape.grid;
    cfg.blockDim = dim3(Tile::x, Tile::y, Tile::z);
    cfg.dynamicSmemBytes = clusterSmemBytes<L, S>();
    cfg.stream = st;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = shape.dims.x;
    attr.val.clusterDim.y = shape.dims.y;
    attr.val.clusterDim.z = shape.dims.z;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    return cfg;
  }

  template <class Index, bool Tma>
  int activeClusters(const ClusterShape& s) const {
    cudaLaunchAttribute attr{};
    const cudaLaunchConfig_t cfg = launchConfig(s, nullptr, attr);
    int n = 0;
    if (cudaOccupancyMaxActiveClusters(&n, kernel<Index, Tma>(), &cfg) != cudaSuccess) {
      (void)cudaGetLastError();  // a size this device cannot run: not a candidate
      return 0;
    }
    return n;
  }

  // `forced`: the plan's clusterBlocks (2, 4, 8 or 16, validated by the planner), 0 for the best measured here.
  template <class Index>
  void chooseCluster(int forced) {
    if (tma_) prepareKernel<Index, true>();
    else prepareKernel<Index, false>();
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
                               " of the Hopper LBM kernel fits on " + t_.deviceName + " for this domain");
  }

  template <class Index, bool Tma>
  void launch(cudaStream_t st, int parity, const std::uint8_t* cls) const {
    cudaLaunchAttribute attr{};
    const cudaLaunchConfig_t cfg = launchConfig(shape_, st, attr);
    const S* src = t_.f[parity];
    S* dst = t_.f[parity ^ 1];
    HOPSIM_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel<Index, Tma>(), t_.p, maps_[parity], cls, src, dst));
    HOPSIM_CUDA_CHECK_LAUNCH("clusterStepKernel");
  }

  BulkTarget<L, S> t_;
  bool tma_ = false;
  ClusterShape shape_;
  CUtensorMap maps_[2]{};  // TMA descriptors of f[0] and f[1] (zero when tiles are loaded plainly)
  std::string candidates_, description_;
};

// Instantiated for the backend by ClusterBulkD2Q9.cu and ClusterBulkD3Q19.cu.
template <class L, class S>
std::unique_ptr<BulkStep<L, S>> makeClusterBulk(const BulkTarget<L, S>& target, const KernelPlan& plan) {
  return std::make_unique<ClusterBulk<L, S>>(target, plan);
}

}  // namespace hopsim::lbm::hopper
