// The portable bulk update (every GPU from sm_80): one cell per thread, or two per thread for FP16 storage with two
// lattices where the plan asks for pairs (HalfPairKernel.cuh); both layouts.
#pragma once

#include <stdexcept>
#include <string>
#include <type_traits>

#include "kernels/lbm/cuda/BulkStep.cuh"

namespace hopsim::lbm {

template <class L, class S>
class PortableBulk final : public BulkStep<L, S> {
  using T = typename PopulationStorage<S>::Arith;

 public:
  // `halfPairs`: the plan's KernelPlan::halfPairs; it only changes FP16 storage with two lattices.
  // `prefetchWaves`: KernelPlan::prefetchWaves (two lattices, one cell per thread, 32-bit indices; 0: no L2 prefetch).
  PortableBulk(const BulkTarget<L, S>& target, bool halfPairs, int prefetchWaves = 0)
      : t_(target), pairs_(halfPairs && sizeof(S) == 2 && !target.inPlace),
        ahead_(target.inPlace || pairs_ || target.wide ? 0 : prefetchWaves * cellsPerWave()) {}

  void enqueue(cudaStream_t st, int parity, const std::uint8_t* cls, int steps) const override {
    if (steps != 1) throw std::logic_error("the portable bulk update makes one step per launch");
    if (t_.wide) launch<unsigned long long>(st, parity, cls, nullptr);
    else launch<unsigned>(st, parity, cls, nullptr);
  }

  // Two lattices: the wall cells' loads are the bulk cells' with some addresses swapped (updateCellWithWalls).
  bool takesWalls() const override { return !t_.inPlace; }

  void enqueueWithWalls(cudaStream_t st, int parity, const std::uint8_t* cls, const std::uint8_t* flags) const override {
    if (!takesWalls()) throw std::logic_error("the in-place layout updates wall cells in the boundary kernel");
    if (t_.wide) launch<unsigned long long>(st, parity, cls, flags);
    else launch<unsigned>(st, parity, cls, flags);
  }

  // Two lattices, one cell per thread, 32-bit indices (bulkStepKernel): the bulk update with walls whose face cells
  // keep their values.
  bool keepsFaces() const override { return !t_.inPlace && !pairs_ && !t_.wide; }

  void enqueueKeepingFaces(cudaStream_t st, int parity, const std::uint8_t* cls, const std::uint8_t* flags,
                           const OpenFaceMoments<T>& keep) const override {
    if (!keepsFaces()) throw std::logic_error("this bulk update does not keep the face cells' values");
    launch<unsigned>(st, parity, cls, flags, keep);
  }

  // Two lattices, one cell per thread, 32-bit indices, FP32 storage on a 3-D lattice: the case measured (the
  // kernel is compiled for it alone, KernelPlan::openInBulk).
  bool takesOpenFaces() const override {
    return kOpenFacesCompiled && !t_.inPlace && !pairs_ && !t_.wide;
  }

  void enqueueWithFaces(cudaStream_t st, int parity, const std::uint8_t* cls, const std::uint8_t* flags,
                        const OpenFaceMoments<T>& open) const override {
    if (!takesOpenFaces()) throw std::logic_error("this bulk update does not update inlet and outlet cells");
    if constexpr (kOpenFacesCompiled) {
      t_.template withTwoLatticeAccess<unsigned>(parity, [&](const auto access) {
        withCollisionTerms(t_.p, [&]<int Terms>() {
          bulkFacesKernel<L, unsigned, Terms><<<t_.grid, t_.block, 0, st>>>(t_.p, cls, access, flags, open);
          HOPSIM_CUDA_CHECK_LAUNCH("bulkFacesKernel");
        });
      });
    }
  }

  // Two lattices, one cell per thread, 32-bit indices, FP32 storage: the kernel is compiled for that alone (each
  // variant is as long to compile as the plain step's); other runs sample with observablesKernel.
  bool takesSamples() const override { return kSamplesCompiled && !t_.inPlace && !pairs_ && !t_.wide; }

  void enqueueSampled(cudaStream_t st, int parity, const std::uint8_t* cls, const std::uint8_t* wallFlags,
                      const std::uint8_t* ownedFlags, double* partials) const override {
    if (!takesSamples()) throw std::logic_error("this bulk update does not sample");
    if constexpr (kSamplesCompiled) {
      t_.template withTwoLatticeAccess<unsigned>(parity, [&](const auto access) {
        withCollisionTerms(t_.p, [&]<int Terms>() {
          bulkSampleKernel<L, unsigned, Terms><<<t_.grid, t_.block, 0, st>>>(t_.p, cls, access, wallFlags, ownedFlags,
                                                                             partials);
          HOPSIM_CUDA_CHECK_LAUNCH("bulkSampleKernel");
        });
      });
    }
  }

  std::string description() const override {
    std::string d = pairs_ ? "2 cells/thread (portable bulk kernel" : "1 cell/thread (portable bulk kernel";
    if (ahead_) d += ", L2 prefetch " + std::to_string(ahead_) + " cells ahead";
    return d + ")";
  }

 private:
  static constexpr bool kOpenFacesCompiled = std::is_same_v<S, float> && L::D == 3;
  static constexpr bool kSamplesCompiled = std::is_same_v<S, float>;

  // wallFlags: the cell flags when the wall cells are updated too, else null; `keep`: where the face cells keep
  // their values (with wallFlags, one cell per thread).
  template <class Index>
  void launch(cudaStream_t st, int parity, const std::uint8_t* cls, const std::uint8_t* wallFlags,
              const OpenFaceMoments<T>& keep = {}) const {
    t_.template withAccess<Index>(
        parity,
        [&](const auto access) {
          if (launchBulkPairs<L>(st, t_.p, cls, access, t_.block, pairs_, wallFlags)) return;  // FP16, two lattices
          withCollisionTerms(t_.p, [&]<int Terms>() {
            // The prefetching variant is compiled for two lattices and 32-bit indices (boxes of up to 2^32 / Q cells).
            if constexpr (IsTwoLattice<std::remove_cvref_t<decltype(access)>>::value && sizeof(Index) == 4) {
              if (access.ahead) {
                bulkStepKernel<L, Index, Terms, true><<<t_.grid, t_.block, 0, st>>>(t_.p, cls, access, wallFlags, keep);
                HOPSIM_CUDA_CHECK_LAUNCH("bulkStepKernel");
                return;
              }
            }
            bulkStepKernel<L, Index, Terms><<<t_.grid, t_.block, 0, st>>>(t_.p, cls, access, wallFlags, keep);
            HOPSIM_CUDA_CHECK_LAUNCH("bulkStepKernel");
          });
        },
        ahead_);
  }

  // The cells that one wave of resident blocks of the one-cell kernel updates: the SMs times the threads per SM that
  // its launch bounds promise (bulkMinBlocks; ptxas gives it no more registers than that allows). L2Prefetch.cuh
  // says what it is for.
  long long cellsPerWave() const {
    return static_cast<long long>(t_.multiProcessors) * bulkMinBlocks<L, T>() * kMaxBlockThreads;
  }

  BulkTarget<L, S> t_;
  bool pairs_;
  long long ahead_;  // TwoLatticeStep::ahead of the bulk launches; 0: no L2 prefetch
};

}  // namespace hopsim::lbm
