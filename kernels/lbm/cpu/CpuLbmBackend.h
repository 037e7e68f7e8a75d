// The CPU backend's choice of cell update, for the tests that hold the vectorised bulk rows to the per-cell update.
#pragma once

#include <memory>

#include "kernels/lbm/LbmBackend.h"

namespace hopsim::lbm {

enum class CpuCellUpdate {
  // Cells whose every upstream neighbour is fluid and inside the box (periodic wrap in y and z allowed), or beyond a
  // y or z wall face that bounces the population back (not a moving wall), in x runs that the compiler vectorises;
  // the others, and the first and last cell of each row, by gather(). The default.
  BulkRows,
  // Every cell by gather(), flag tests and wrapping per population: the update before issue 21, the reference.
  PerCell,
};

// The layout when neither the bench nor HOPSIM_LBM_LAYOUT names one: in place, where the case allows it
// (docs/performance.md, "The in-place layout on the cpu backend": faster on every case measured).
constexpr StreamingLayout kCpuDefaultLayout = StreamingLayout::InPlace;

// makeCpuBackend(setup) is makeCpuBackend(setup, CpuCellUpdate::BulkRows).
std::unique_ptr<LbmBackend> makeCpuBackend(const LbmSetup& setup, CpuCellUpdate update);

}  // namespace hopsim::lbm
