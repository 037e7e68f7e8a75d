// The host memory a run may use (MemAvailable), and the refusal of a case that needs more than that.
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <string>

namespace hopsim {

// MemAvailable of /proc/meminfo in bytes; nullopt where the file or the line is missing (not Linux, a container
// without /proc), in which case no check is made.
std::optional<std::uint64_t> availableHostMemory();
// The same, read from the text of a meminfo file.
std::optional<std::uint64_t> parseMemAvailable(std::istream& meminfo);

// Throws InputError "<what> needs X GiB of host memory, Y GiB available" when `needBytes` exceeds `availableBytes`.
// The check is made before allocating: an allocation beyond the machine's memory is killed by the kernel, or, with
// overcommit, fails pages later with SIGSEGV/SIGKILL instead of an error the user can act on.
void checkHostMemory(double needBytes, std::optional<std::uint64_t> availableBytes, const std::string& what);
inline void checkHostMemory(double needBytes, const std::string& what) {
  checkHostMemory(needBytes, availableHostMemory(), what);
}

}  // namespace hopsim
