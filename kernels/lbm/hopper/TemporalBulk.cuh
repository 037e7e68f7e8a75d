// The Hopper temporal bulk update (BulkUpdate::HopperTemporal) on the host: k steps per launch of TemporalStep.cuh's
// kernel on boxes whose every cell is bulk or a wall cell (its wall variant), the segment length along the march
// axis from occupancy, and single steps (k = 1) for the remainders. Its results equal k portable steps to round-off.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/DevicePlan.h"
#include "kernels/lbm/cuda/BulkStep.cuh"
#include "kernels/lbm/hopper/HopperBulk.cuh"
#include "kernels/lbm/hopper/TemporalStep.cuh"

namespace hopsim::lbm::hopper {

template <class L, class S>
class TemporalBulk final : public BulkStep<L, S> {
  static_assert(temporalKernelBuilt<L, S>(), "no temporal kernel is built for this lattice and storage type");

 public:
  // plan.stepsPerLaunch (1, 2 or 4) and plan.temporalCluster (4 or 8 only for 3-D lattices at 2 steps), settled
  // and checked against the case by the planner. A box with walls, moving walls or solid cells (not every owned cell
  // bulk) runs the kernel's wall variant: its wall cells bounce back inside the levels; so does a box with wrapped
  // inlet and outlet faces (target.wrapped: their cells are bulk or wall cells), whose 4-step launches (D2Q9) run
  // the Open variant: the faces' ghost values computed and wrapped inside the levels. The planner leaves out boxes
  // with other inlets or outlets, and with curved cells. Split over ranks, the k-step launches get every cell's
  // class, ghosts included (their lower levels are computed too).
  TemporalBulk(const BulkTarget<L, S>& target, const KernelPlan& plan)
      : t_(target), steps_(plan.stepsPerLaunch),
        cluster_(L::D == 3 && plan.stepsPerLaunch == 2 ? plan.temporalCluster : 1),
        walls_(!target.everyCellBulk || target.wrapped), open_(target.wrapped != 0 && steps_ > 1),
        openBlocks_(plan.temporalOpenBlocks) {
    if (t_.inPlace || t_.wide)
      throw std::logic_error("the temporal kernel runs two lattices and 32-bit indices (the planner's job)");
    if (walls_ && cluster_ > 1)
      throw std::logic_error("temporal kernel: walls with one block per column (the planner's job)");
    for (int f = 0; f < 6; ++f)
      if (t_.p.ghost[f] && t_.p.ghost[f] < steps_)
        throw std::logic_error("temporal kernel: ghost layers shallower than its steps per launch (the solver's job)");
    if (steps_ != 1 && steps_ != 2 && steps_ != 4)
      throw std::logic_error("temporal kernel: " + std::to_string(steps_) + " steps per launch");
    if (open_ && (L::D != 2 || steps_ != 4 || (target.wrapped & 3u) != 3u))
      throw std::logic_error("temporal kernel: wrapped inlet and outlet faces across x, at 4 steps per launch on "
                             "D2Q9 or one step (the planner's job)");
    if (open_ && openBlocks_ != 3 && openBlocks_ != 4)
      throw std::logic_error("temporal kernel: the Open variant at 3 or 4 blocks per SM (the planner's job)");
    if (plan.temporalCluster > 1 && cluster_ == 1)
      throw std::logic_error("temporal kernel: clusters only for the 3-D lattices at 2 steps per launch");
    if (walls_) {
      if (steps_ == 2) planLaunch<2, 1, true>();
      if constexpr (L::D == 2) {
        if (steps_ == 4 && open_ && openBlocks_ == 3) planLaunch<4, 1, true, 3>();
        if (steps_ == 4 && open_ && openBlocks_ == 4) planLaunch<4, 1, true, 4>();
      }
      if (steps_ == 4 && !open_) planLaunch<4, 1, true>();
      planLaunch<1, 1, true>(/*describe=*/steps_ == 1);
    } else {
      if (steps_ == 1) planLaunch<1, 1>();
      if (steps_ == 4) planLaunch<4, 1>();
      if (steps_ == 2) {
        if constexpr (L::D == 3) {
          if (cluster_ == 4) planLaunch<2, 4>();
          if (cluster_ == 8) planLaunch<2, 8>();
        }
        if (cluster_ == 1) planLaunch<2, 1>();
      }
      if (steps_ != 1) planLaunch<1, 1>(/*describe=*/false);  // the remainder steps
    }
    if (description_.empty())
      throw std::logic_error("temporal kernel: no launch of 2 steps in clusters of " + std::to_string(cluster_));
  }

  // k steps from f[parity] into f[parity ^ 1]. Every cell bulk: `cls` is not read. With walls, launches of k > 1
  // steps update the wall cells too; a single step updates the bulk cells of `cls` only (a step with obstacle
  // forces, whose wall cells the boundary kernel updates), enqueueWithWalls() both.
  void enqueue(cudaStream_t st, int parity, const std::uint8_t* cls, int k) const override {
    if (walls_) {
      if (k == 1) return launch<1, 1, true>(st, parity, cls, false);
      if (k == steps_ && (k == 2 || k == 4)) {
        if (k == 2) return launch<2, 1, true>(st, parity, cls, true);
        if constexpr (L::D == 2) {
          if (open_ && openBlocks_ == 3) return launch<4, 1, true, 3>(st, parity, cls, true);
          if (open_ && openBlocks_ == 4) return launch<4, 1, true, 4>(st, parity, cls, true);
        }
        return launch<4, 1, true>(st, parity, cls, true);
      }
    } else {
      if (k == 1) return launch<1, 1>(st, parity);
      if (k == 4 && steps_ == 4) return launch<4, 1>(st, parity);
      if (k == 2 && steps_ == 2) {
        if constexpr (L::D == 3) {
          if (cluster_ == 4) return launch<2, 4>(st, parity);
          if (cluster_ == 8) return launch<2, 8>(st, parity);
        }
        return launch<2, 1>(st, parity);
      }
    }
    throw std::logic_error("temporal kernel: no launch of " + std::to_string(k) + " steps");
  }

  bool takesWalls() const override { return walls_; }

  void enqueueWithWalls(cudaStream_t st, int parity, const std::uint8_t* cls, const std::uint8_t*) const override {
    if (!walls_) throw std::logic_error("the temporal kernel takes wall cells only on a box with walls");
    launch<1, 1, true>(st, parity, cls, true);
  }

  int stepsPerLaunch() const override { return steps_; }

  std::string description() const override { return description_; }

 private:
  template <int K, int Cy, int Terms, bool Walls, int Open = 0>
  static auto kernel() {
    return &temporalStepKernel<L, S, K, Cy, Terms, Walls, Open>;
  }

  template <int K, int Cy, bool Walls = false>
  static cudaLaunchConfig_t launchConfig(dim3 grid, cudaStream_t st, cudaLaunchAttribute& attr) {
    using G = MarchTile<L, K, S, Cy, Walls>;
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

  // The launch of the K-step kernel: the case's instantiation allowed its shared memory, the segment lengths along
  // the march axis from planMarchSegments(); with Open, shorter ones for the seam tiles (those holding cells of the
  // wrapped x faces), whose planes measured about kSeamWeight times as long as the others'.
  template <int K, int Cy, bool Walls = false, int Open = 0>
  void planLaunch(bool describe = true) {
    using G = MarchTile<L, K, S, Cy, Walls>;
    const auto& p = t_.p;
    decltype(kernel<K, Cy, 0, Walls, Open>()) k = nullptr;
    withCollisionTerms(p, [&]<int Terms>() { k = kernel<K, Cy, Terms, Walls, Open>(); });
    HOPSIM_CUDA_CHECK(
        cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(G::smemBytes)));
    const int a = L::D - 1;
    const unsigned tilesX = static_cast<unsigned>((p.n[0] + G::outX - 1) / G::outX);
    const unsigned tilesY = L::D == 3 ? static_cast<unsigned>((p.n[1] + G::outY - 1) / G::outY) : 1;
    // Resident tiles: blocks per SM x SMs, or clusters of Cy blocks (cudaOccupancyMaxActiveClusters).
    int perSm = 0, resident = 0;
    HOPSIM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, k, G::cells, G::smemBytes));
    if constexpr (Cy > 1) {
      cudaLaunchAttribute attr{};
      const cudaLaunchConfig_t cfg = launchConfig<K, Cy, Walls>(dim3(tilesX, tilesY * Cy, 1), nullptr, attr);
      HOPSIM_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&resident, k, &cfg));
    } else {
      resident = perSm * t_.multiProcessors;
    }
    if (resident < 1) throw std::runtime_error("the temporal LBM kernel does not fit on " + t_.deviceName);
    const long long tiles = static_cast<long long>(tilesX) * tilesY;
    const int planes = p.n[a];
    // Seam tiles (Open, 2-D, faces across x): tile 0 and those from seamFrom on, whose cells reach x = nx - 1.
    const int seamFrom = G::seamFrom(p.n[0]);
    const long long seamTiles = Open && (t_.wrapped & 3u) ? 1 + std::max(0, static_cast<int>(tilesX) - seamFrom) : 0;
    const MarchSegments m = planMarchSegments(planes, tiles, seamTiles, seamFrom, resident, K, kSeamWeight);
    const int shortest = std::min(m.planes, m.seam);
    const unsigned segments = static_cast<unsigned>((planes + shortest - 1) / shortest);
    const dim3 grid(tilesX, L::D == 3 ? tilesY * Cy : segments, L::D == 3 ? segments : 1);
    if (grid.y > 65535 || grid.z > 65535) throw std::runtime_error("domain too large for the temporal LBM kernel grid");
    march_[K == 4 ? 2 : K - 1] = {grid, m};
    if (!describe) return;
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "temporal blocking, %d step%s per launch (%s): columns of %dx%d cells marching along %c "
                  "(%dx%d stored per column), %s, segments of %d planes%s, %d blocks per SM, %zu KB shared memory "
                  "per block",
                  K, K > 1 ? "s" : "",
                  !Walls ? "every cell bulk"
                  : Open ? "walls and solid cells bounced back inside the levels, the wrapped inlet and outlet faces' "
                           "ghost values computed in them"
                         : "walls and solid cells bounced back inside the levels",
                  G::x, G::rows, "xyz"[a], G::outX, G::outY,
                  Cy > 1 ? ("clusters of " + std::to_string(Cy) + " blocks of " + std::to_string(G::x) + "x" +
                            std::to_string(G::y) + " cells sharing levels over DSMEM").c_str()
                         : "one block per column",
                  m.planes,
                  m.seam != m.planes ? (" (" + std::to_string(m.seam) + " in the " + std::to_string(seamTiles) +
                                        " tiles holding the wrapped faces)").c_str()
                                     : "",
                  perSm, G::smemBytes / 1024);
    description_ = buf;
  }

  // `cls` and `takeWalls`: the wall variant's cell classes and whether its wall cells are updated (Walls only).
  template <int K, int Cy, bool Walls = false, int Open = 0>
  void launch(cudaStream_t st, int parity, const std::uint8_t* cls = nullptr, bool takeWalls = false) const {
    const March& m = march_[K == 4 ? 2 : K - 1];
    const S* src = t_.f[parity];
    S* dst = t_.f[parity ^ 1];
    withCollisionTerms(t_.p, [&]<int Terms>() {
      cudaLaunchAttribute attr{};
      const cudaLaunchConfig_t cfg = launchConfig<K, Cy, Walls>(m.grid, st, attr);
      HOPSIM_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel<K, Cy, Terms, Walls, Open>(), t_.p, src, dst, m.segments,
                                           cls, t_.flags, takeWalls, t_.wrapped));
      HOPSIM_CUDA_CHECK_LAUNCH("temporalStepKernel");
    });
  }

  struct March {
    dim3 grid{1, 1, 1};
    MarchSegments segments;
  };

  // What a plane of a seam tile's block costs against another's in the Open variant (their face cells' ring stores
  // and ghost values hold every barrier of the block): ncu of the 2-D channel's 4-step launch with equal segments
  // (H100, 2026-12-05), its SMs active 714k of its 2,118k cycles. Measured against 5 on the H100 (2026-12-07): the
  // channel 63,066 MLUPS at 3, 54,381 at 5, whose longer normal segments (114 planes against 103) set the launch
  // (docs/performance.md, "The seam tiles on shorter segments, measured").
  static constexpr double kSeamWeight = 3.0;

  BulkTarget<L, S> t_;
  int steps_;            // steps per launch
  int cluster_;          // blocks per cluster of the 2-step 3-D kernel (1: no cluster)
  bool walls_;           // the wall variant: walls, moving walls or solid cells, or wrapped faces, in the box
  bool open_;            // its k-step launches compute the wrapped faces' ghost values in the levels (Open)
  int openBlocks_;       // the Open variant's blocks per SM asked of the compiler (3 or 4)
  March march_[3];       // launches for K = 1, 2, 4
  std::string description_;
};

// Instantiated for the backend by TemporalBulkD2Q9.cu and TemporalBulkD3Q19.cu.
template <class L, class S>
std::unique_ptr<BulkStep<L, S>> makeTemporalBulk(const BulkTarget<L, S>& target, const KernelPlan& plan) {
  return std::make_unique<TemporalBulk<L, S>>(target, plan);
}

}  // namespace hopsim::lbm::hopper
