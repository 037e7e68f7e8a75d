// Host copy bandwidth: a parallel copy loop of the kind the CPU LBM and MD loops are, timed with a steady clock.
#include "solvers/common/HostCopyBandwidth.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include "solvers/common/HostMemory.h"

namespace hopsim {

std::optional<CopyBandwidth> measureHostCopyBandwidth(std::size_t bytes, int repeats) {
  constexpr std::size_t kSmallest = std::size_t(16) << 20;
  if (const auto available = availableHostMemory()) bytes = std::min<std::size_t>(bytes, *available / 4);
  std::unique_ptr<double[]> source, target;
  for (; bytes >= kSmallest; bytes /= 2) {
    // Not value-initialised: the first touch below, by the threads that later copy, places the pages.
    source.reset(new (std::nothrow) double[bytes / sizeof(double)]);
    target.reset(new (std::nothrow) double[bytes / sizeof(double)]);
    if (source && target) break;
    source.reset();
    target.reset();
  }
  if (!source || !target) return std::nullopt;
  const auto n = static_cast<std::int64_t>(bytes / sizeof(double));
  double* const from = source.get();
  double* const to = target.get();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    from[i] = static_cast<double>(i & 1023);
    to[i] = 0.0;
  }
  const auto copy = [&] {
    const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) to[i] = from[i];
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  (void)copy();  // page faults, frequency ramp-up
  std::vector<double> rates;
  for (int r = 0; r < std::max(1, repeats); ++r)
    rates.push_back(2.0 * static_cast<double>(n) * sizeof(double) / copy() / 1e9);
  std::sort(rates.begin(), rates.end());
  CopyBandwidth b;
  b.medianGBs = rates[rates.size() / 2];
  b.minGBs = rates.front();
  b.maxGBs = rates.back();
  b.bytes = static_cast<std::size_t>(n) * sizeof(double);
  b.repeats = static_cast<int>(rates.size());
  return b;
}

}  // namespace hopsim
