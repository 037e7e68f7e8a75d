// Files that appear whole or not at all: written under a temporary name, renamed into place when complete.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace hopsim::io {

// Temporary name next to the final one, so the rename stays on one file system.
std::filesystem::path temporaryPathFor(const std::filesystem::path& finalPath);
// The same, named after process `owner` rather than this one: the name every rank uses for a file that all of
// them write together and one renames (a collective HDF5 file).
std::filesystem::path temporaryPathFor(const std::filesystem::path& finalPath, long owner);

// This process's id, the `owner` above.
long processId();

// Renames tmp to finalPath (replacing it); throws std::runtime_error naming both paths on failure.
void commitFile(const std::filesystem::path& tmp, const std::filesystem::path& finalPath);

// Makes finalPath's folder, calls write(tmp) to write the file under a temporary name, and renames it into place;
// if write throws, the temporary file is removed and the exception passes on. For writers that need a path (HDF5,
// VTK) rather than a stream.
template <class Write>
void writeFileVia(const std::filesystem::path& finalPath, Write&& write);

// Writes text to path atomically.
void writeFileAtomic(const std::filesystem::path& path, const std::string& content);

// Creates dir (and parents); a clear error if it exists as a file or cannot be made.
void ensureDirectory(const std::filesystem::path& dir);

template <class Write>
void writeFileVia(const std::filesystem::path& finalPath, Write&& write) {
  if (finalPath.has_parent_path()) ensureDirectory(finalPath.parent_path());
  const auto tmp = temporaryPathFor(finalPath);
  try {
    write(tmp);
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
    throw;
  }
  commitFile(tmp, finalPath);
}

// A text stream to a temporary file; commit() flushes, checks and renames. Destroyed uncommitted: removed.
class AtomicTextFile {
 public:
  explicit AtomicTextFile(std::filesystem::path finalPath);
  ~AtomicTextFile();
  AtomicTextFile(const AtomicTextFile&) = delete;
  AtomicTextFile& operator=(const AtomicTextFile&) = delete;
  std::ofstream& stream() { return out_; }
  void commit();

 private:
  std::filesystem::path final_, tmp_;
  std::ofstream out_;
  bool committed_ = false;
};

}  // namespace hopsim::io
