// A scratch directory for a test's files, removed at the end unless HOPSIM_TEST_OUTPUT_DIR names a place to keep
// them (to open them in ParaView: tests/integration/paraview_reads_writer_output.sh, check_paraview.py).
#pragma once

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name) {
    if (const char* keep = std::getenv("HOPSIM_TEST_OUTPUT_DIR"); keep && *keep) {
      path_ = std::filesystem::path(keep) / name;
      keep_ = true;
    } else {
      path_ = std::filesystem::temp_directory_path() /
              fmt::format("hopsim_test_{}_{}", name, static_cast<long>(::getpid()));
    }
    std::filesystem::remove_all(path_);
  }
  ~ScratchDir() {
    if (!keep_) {
      std::error_code ec;
      std::filesystem::remove_all(path_, ec);
    }
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  bool keep_ = false;
};
