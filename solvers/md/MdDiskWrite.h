// The write bandwidth of the disk under a folder, as a run's output sees it: what the trajectory writer is held to.
// A copy of async-output's solvers/common/DiskWriteBandwidth.h (the LBM half of issue 22) in hopsim::md until the
// branches meet; then this file and its .cpp go, MdOutputBench.cpp includes solvers/common/DiskWriteBandwidth.h, and
// its unqualified measureDiskWrite() call finds hopsim::measureDiskWrite.
#pragma once

#include <cstddef>
#include <filesystem>

namespace hopsim::md {

struct DiskWrite {
  double gbPerSecond = 0;  // bytes / (write + fsync seconds) / 1e9
  double seconds = 0;
  std::size_t bytes = 0;
};

// Writes a `bytes` file into `dir` in 8 MiB blocks, fsyncs it (so that the page cache does not flatter the figure)
// and removes it. Throws std::runtime_error naming the file when a write fails.
DiskWrite measureDiskWrite(const std::filesystem::path& dir, std::size_t bytes = std::size_t(512) << 20);

}  // namespace hopsim::md
