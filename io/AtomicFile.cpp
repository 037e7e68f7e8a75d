// Whole-or-nothing file writes.
#include "io/AtomicFile.h"

#include <fmt/format.h>
#include <unistd.h>

#include <stdexcept>
#include <system_error>

namespace hopsim::io {

std::filesystem::path temporaryPathFor(const std::filesystem::path& finalPath) {
  return temporaryPathFor(finalPath, processId());
}

std::filesystem::path temporaryPathFor(const std::filesystem::path& finalPath, long owner) {
  auto tmp = finalPath;
  tmp += fmt::format(".tmp-{}", owner);
  return tmp;
}

long processId() { return static_cast<long>(::getpid()); }

void commitFile(const std::filesystem::path& tmp, const std::filesystem::path& finalPath) {
  std::error_code ec;
  std::filesystem::rename(tmp, finalPath, ec);
  if (ec) {
    // The rename's cause is the message; removing the temporary file reuses no error state of it.
    const std::string cause = ec.message();
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw std::runtime_error(fmt::format("cannot move {} into place as {}: {}", tmp.string(), finalPath.string(),
                                         cause));
  }
}

void writeFileAtomic(const std::filesystem::path& path, const std::string& content) {
  AtomicTextFile f(path);
  f.stream() << content;
  f.commit();
}

void ensureDirectory(const std::filesystem::path& dir) {
  // Create first, then look: several ranks may create the same folder at once, and whoever loses that race finds it
  // made (checking first and creating second could see "exists" between the other rank's two steps).
  std::error_code ec, isDir;
  std::filesystem::create_directories(dir, ec);
  if (std::filesystem::is_directory(dir, isDir)) return;
  if (std::filesystem::exists(dir, isDir))
    throw std::runtime_error(fmt::format("output directory {} exists but is not a directory", dir.string()));
  throw std::runtime_error(fmt::format("cannot create output directory {}: {}", dir.string(), ec.message()));
}

AtomicTextFile::AtomicTextFile(std::filesystem::path finalPath)
    : final_(std::move(finalPath)), tmp_(temporaryPathFor(final_)), out_(tmp_) {
  if (!out_) throw std::runtime_error(fmt::format("cannot write {}", tmp_.string()));
}

AtomicTextFile::~AtomicTextFile() {
  if (!committed_) {
    out_.close();
    std::error_code ec;
    std::filesystem::remove(tmp_, ec);
  }
}

void AtomicTextFile::commit() {
  out_.flush();
  const bool ok = static_cast<bool>(out_);
  out_.close();
  if (!ok) throw std::runtime_error(fmt::format("writing {} failed (disk full?)", tmp_.string()));
  commitFile(tmp_, final_);
  committed_ = true;
}

}  // namespace hopsim::io
