// Host memory copy bandwidth with every OpenMP thread: the memory roofline of the CPU backends.
#pragma once

#include <cstddef>
#include <optional>

#include "kernels/common/CopyBandwidth.h"

namespace hopsim {

// Copies a `bytes` buffer of doubles to another with an OpenMP loop over all threads (static schedule, the pages
// first touched by the thread that copies them), `repeats` times after one warm-up copy; bytes read + written per
// second, as the GPU figure and STREAM's copy count them. The buffer is limited to a quarter of MemAvailable and
// halved while it cannot be allocated; empty below 16 MiB.
std::optional<CopyBandwidth> measureHostCopyBandwidth(std::size_t bytes = std::size_t(1) << 30, int repeats = 9);

}  // namespace hopsim
