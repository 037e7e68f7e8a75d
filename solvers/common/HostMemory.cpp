// Reads MemAvailable and refuses cases that need more host memory than that.
#include "solvers/common/HostMemory.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "core/ExitCode.h"

namespace hopsim {

std::optional<std::uint64_t> parseMemAvailable(std::istream& meminfo) {
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream in(line);
    std::string key, unit;
    std::uint64_t value = 0;
    if (!(in >> key >> value) || key != "MemAvailable:") continue;
    in >> unit;
    return unit == "kB" ? value * 1024 : value;
  }
  return std::nullopt;
}

std::optional<std::uint64_t> availableHostMemory() {
  std::ifstream meminfo("/proc/meminfo");
  if (!meminfo) return std::nullopt;
  return parseMemAvailable(meminfo);
}

void checkHostMemory(double needBytes, std::optional<std::uint64_t> availableBytes, const std::string& what) {
  if (!availableBytes || needBytes <= static_cast<double>(*availableBytes)) return;
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  throw InputError(fmt::format("{} needs {:.1f} GiB of host memory, {:.1f} GiB available (MemAvailable); make it "
                               "smaller or run it on more nodes",
                               what, needBytes / kGiB, static_cast<double>(*availableBytes) / kGiB));
}

}  // namespace hopsim
