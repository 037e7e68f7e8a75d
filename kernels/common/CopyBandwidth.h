// Device-to-device copy bandwidth, the memory roofline that benchmark figures are compared with.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace hopsim {

struct CopyBandwidth {
  double medianGBs = 0;          // bytes read + bytes written per second, 1e9 bytes per GB
  double minGBs = 0, maxGBs = 0;
  std::size_t bytes = 0;         // size of the buffer copied (each copy reads and writes this much)
  int repeats = 0;
};

// Copies a `bytes` buffer to another on `device` `repeats` times after a warm-up, timed with CUDA events.
// Empty when hopsim was built without CUDA or the device has no room for two buffers (the size is halved until
// they fit, down to 256 MiB).
std::optional<CopyBandwidth> measureCopyBandwidth(int device, std::size_t bytes = std::size_t(2) << 30, int repeats = 7);

}  // namespace hopsim
