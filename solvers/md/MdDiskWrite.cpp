// Disk write bandwidth: write, fsync, remove (a copy of async-output's solvers/common/DiskWriteBandwidth.cpp).
#include "solvers/md/MdDiskWrite.h"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <system_error>
#include <vector>

namespace hopsim::md {

DiskWrite measureDiskWrite(const std::filesystem::path& dir, std::size_t bytes) {
  const std::filesystem::path file = dir / fmt::format(".hopsim-disk-bandwidth-{}", static_cast<long>(::getpid()));
  const std::size_t block = std::size_t(8) << 20;
  // Not zeros: a file system that compresses or skips zero pages would report a bandwidth no field file gets.
  std::vector<unsigned char> data(block);
  for (std::size_t k = 0; k < block; ++k) data[k] = static_cast<unsigned char>((k * 2654435761u) >> 13);
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw std::runtime_error(fmt::format("cannot create {}: {}", file.string(), std::strerror(errno)));
  const auto fail = [&](const char* what) {
    const int e = errno;
    ::close(fd);
    std::error_code ec;
    std::filesystem::remove(file, ec);
    throw std::runtime_error(fmt::format("{} {} failed: {}", what, file.string(), std::strerror(e)));
  };
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t written = 0;
  while (written < bytes) {
    const std::size_t n = std::min(block, bytes - written);
    const ssize_t w = ::write(fd, data.data(), n);
    if (w <= 0) fail("write to");
    written += static_cast<std::size_t>(w);
  }
  if (::fsync(fd) != 0) fail("fsync of");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ::close(fd);
  std::error_code ec;
  std::filesystem::remove(file, ec);
  return {seconds > 0 ? static_cast<double>(written) / seconds / 1e9 : 0.0, seconds, written};
}

}  // namespace hopsim::md
