// The run-with-output benches' folder and disk measurement.
#include "solvers/common/OutputBench.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <system_error>

#include "solvers/common/DiskWriteBandwidth.h"

namespace hopsim {

BenchRunFolder::BenchRunFolder(const mpi::Comm& world, const std::filesystem::path& base, std::string_view name)
    : world_(world) {
  const long long pid = static_cast<long long>(world.allreduceMax(world.isRoot() ? double(::getpid()) : 0.0));
  path_ = (base.empty() ? std::filesystem::temp_directory_path() : base) / fmt::format("{}-{}", name, pid);
}

BenchRunFolder::~BenchRunFolder() {
  if (!removed_) removeOnRoot();
}

void BenchRunFolder::remove() {
  world_.barrier();
  removeOnRoot();
}

void BenchRunFolder::removeOnRoot() {
  removed_ = true;
  if (!world_.isRoot()) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

void addDiskWrite(nlohmann::json& result, const std::string& writer, const std::filesystem::path& dir,
                  double stepBytes, double writerBytes, double writerSeconds, std::size_t maxProbeBytes) {
  const std::size_t least = std::size_t(16) << 20;
  const std::size_t probeBytes =
      std::clamp<std::size_t>(static_cast<std::size_t>(2 * stepBytes), least, std::max(maxProbeBytes, least));
  const DiskWrite disk = measureDiskWrite(dir, probeBytes);
  result["disk_write"] = {{"GBs", disk.gbPerSecond}, {"bytes", disk.bytes}, {"seconds", disk.seconds},
                          {"how", "one file in 8 MiB writes, then fsync, in the run's output folder"}};
  const double writerGBs = writerSeconds > 0 ? writerBytes / writerSeconds / 1e9 : 0.0;
  result[writer + "_write_GBs"] = writerGBs;
  result[writer + "_write_over_disk"] = disk.gbPerSecond > 0 ? writerGBs / disk.gbPerSecond : 0.0;
}

}  // namespace hopsim
