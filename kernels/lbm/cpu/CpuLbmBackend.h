// The CPU backend's choice of cell update, for the tests that hold the vectorised bulk rows to the per-cell update.
#pragma once

#include <memory>

#include "kernels/lbm/LbmBackend.h"

namespace hopsim::lbm {

enum class CpuCellUpdate {
  // Cells whose every upstream neighbour is fluid and inside the box (periodic wrap in y and z allowed), or beyond a
  // y or z wall face that bounces the population back (moving or not), in x runs that the compiler vectorises; the
  // others, and the first and last cell of each row, by gather(). The runs' loop is compiled for AVX2 as well where
  // the build targets less (the x86-64 baseline of packages) and runs so where the CPU has it. The default.
  BulkRows,
  // Every cell by gather(), flag tests and wrapping per population: the update before issue 21, the reference.
  PerCell,
  // BulkRows with the runs' loop of the build's own instruction set even where AVX2 is there: what a CPU without
  // AVX2 runs, for the tests on one that has it.
  BulkRowsBuildTarget,
};

// The layout when neither the bench nor HOPSIM_LBM_LAYOUT names one: in place, where the case allows it
// (docs/performance.md, "The in-place layout on the cpu backend": faster on every case measured).
constexpr StreamingLayout kCpuDefaultLayout = StreamingLayout::InPlace;

// makeCpuBackend(setup) is makeCpuBackend(setup, CpuCellUpdate::BulkRows).
std::unique_ptr<LbmBackend> makeCpuBackend(const LbmSetup& setup, CpuCellUpdate update);

}  // namespace hopsim::lbm
