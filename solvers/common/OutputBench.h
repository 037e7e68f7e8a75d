// What the LBM and MD run-with-output benches (solvers/lbm/LbmOutputBench.h, solvers/md/MdOutputBench.h) share: the
// folder their run writes into, and the disk under it measured beside the output writer.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include "core/Mpi.h"

namespace hopsim {

// The folder a bench's run writes into: <base>/<name>-<pid> (base empty: the system's temporary folder), one for
// every rank, named after rank 0's process; constructing it is collective. remove() takes it away once every rank
// is done with it. A folder still there when this object ends (an exception on the way out) is removed by the root
// rank at once, without a barrier: the other ranks may not reach one.
class BenchRunFolder {
 public:
  BenchRunFolder(const mpi::Comm& world, const std::filesystem::path& base, std::string_view name);
  ~BenchRunFolder();
  BenchRunFolder(const BenchRunFolder&) = delete;
  BenchRunFolder& operator=(const BenchRunFolder&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // Collective: waits for every rank, then the root rank removes the folder.
  void remove();

 private:
  void removeOnRoot();

  mpi::Comm world_;
  std::filesystem::path path_;
  bool removed_ = false;
};

// Measures the disk under `dir` (measureDiskWrite) with a file of about two output steps, stepBytes each: a write the
// size the writer makes, at least 16 MiB and at most max(maxProbeBytes, 16 MiB). Adds to `result` "disk_write" (its
// GB/s, bytes, seconds and how it was measured), "<writer>_write_GBs" (writerBytes over writerSeconds: the writer's
// rate, page cache included, no fsync) and "<writer>_write_over_disk" (that rate as a fraction of the disk's).
void addDiskWrite(nlohmann::json& result, const std::string& writer, const std::filesystem::path& dir,
                  double stepBytes, double writerBytes, double writerSeconds, std::size_t maxProbeBytes);

}  // namespace hopsim
