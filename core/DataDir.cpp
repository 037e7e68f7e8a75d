// Finding hopsim's shipped files: installed beside the binary, or in the source tree it was built from.
#include "core/DataDir.h"

#include <cstdlib>
#include <stdexcept>
#include <system_error>

namespace hopsim {

namespace fs = std::filesystem;

fs::path installedDataDir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const fs::path share = exe.parent_path().parent_path() / "share" / "hopsim";
  return fs::is_directory(share, ec) ? share : fs::path();
}

fs::path dataDir() {
  if (const char* env = std::getenv("HOPSIM_DATA_DIR"); env && *env) return env;
  if (fs::path installed = installedDataDir(); !installed.empty()) return installed;
  std::error_code ec;
  const fs::path source = HOPSIM_SOURCE_DIR;
  if (fs::is_directory(source / "validation", ec)) return source;
  throw std::runtime_error("hopsim's data files (validation/, inputs/) are neither in share/hopsim beside this "
                           "binary nor in the source tree it was built from (" + source.string() +
                           "); reinstall hopsim, or set HOPSIM_DATA_DIR to the folder that holds them");
}

}  // namespace hopsim
