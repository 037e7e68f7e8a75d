// run.json: build, host and device descriptions.
#include "solvers/common/RunInfo.h"

#include <fmt/format.h>
#include <omp.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <ctime>
#include <fstream>
#include <string>
#include <thread>

#include "io/AtomicFile.h"
#include "kernels/common/DeviceInfo.h"

namespace hopsim {
namespace {

std::string compilerName() {
#if defined(__clang__)
  return fmt::format("clang {}.{}.{}", __clang_major__, __clang_minor__, __clang_patchlevel__);
#elif defined(__GNUC__)
  return fmt::format("gcc {}.{}.{}", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#else
  return "unknown";
#endif
}

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t");
  const auto e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::string cpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  // x86 says "model name"; many ARM kernels only give "Hardware" or "CPU part".
  std::string fallback;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(line.substr(0, colon));
    const std::string value = trim(line.substr(colon + 1));
    if (key == "model name" && !value.empty()) return value;
    if ((key == "Hardware" || key == "CPU part") && fallback.empty()) fallback = value;
  }
  return fallback.empty() ? "unknown" : fallback;
}

std::string cudaVersion(int v) { return v > 0 ? fmt::format("{}.{}", v / 1000, (v % 1000) / 10) : "none"; }

}  // namespace

nlohmann::json buildInfo() {
  nlohmann::json j;
  j["version"] = HOPSIM_VERSION;
  j["compiler"] = compilerName();
#ifdef HOPSIM_BUILD_TYPE
  j["build_type"] = HOPSIM_BUILD_TYPE;
#endif
#ifdef NDEBUG
  j["assertions"] = false;
#else
  j["assertions"] = true;
#endif
  j["with_cuda"] = static_cast<bool>(HOPSIM_WITH_CUDA);
  j["with_mpi"] = static_cast<bool>(HOPSIM_WITH_MPI);
  j["with_vtk"] = static_cast<bool>(HOPSIM_WITH_VTK);
  j["hdf5_parallel"] = static_cast<bool>(HOPSIM_HDF5_PARALLEL);
#ifdef HOPSIM_CUDA_ARCHITECTURES
  j["cuda_architectures"] = HOPSIM_CUDA_ARCHITECTURES;
#endif
#ifdef HOPSIM_GIT_COMMIT
  j["git_commit"] = HOPSIM_GIT_COMMIT;
#endif
  return j;
}

nlohmann::json hostInfo() {
  nlohmann::json j;
  char name[256] = {};
  j["hostname"] = ::gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string("unknown");
  struct utsname u {};
  if (::uname(&u) == 0) j["os"] = fmt::format("{} {} {}", u.sysname, u.release, u.machine);
  j["cpu_model"] = cpuModel();
  j["hardware_threads"] = std::thread::hardware_concurrency();
  j["openmp_max_threads"] = omp_get_max_threads();
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &utc);
  j["date_utc"] = stamp;
  return j;
}

nlohmann::json devicesInfo() {
  auto list = nlohmann::json::array();
  for (const auto& g : cudaDevices()) {
    list.push_back({
        {"index", g.index},
        {"name", g.name},
        {"compute_capability", fmt::format("{}.{}", g.ccMajor, g.ccMinor)},
        {"multiprocessors", g.multiprocessors},
        {"memory_bytes", g.memoryBytes},
        {"l2_bytes", g.l2Bytes},
        {"shared_per_block_optin_bytes", g.sharedPerBlockOptin},
        {"cluster_launch", g.clusterLaunch},
        {"driver_version", cudaVersion(g.driverVersion)},
        {"runtime_version", cudaVersion(g.runtimeVersion)},
    });
  }
  return list;
}

void writeRunJson(const std::filesystem::path& path, const nlohmann::json& doc) {
  if (path.has_parent_path()) io::ensureDirectory(path.parent_path());
  // Strings from the case file or /proc may hold invalid UTF-8; replacing it beats losing run.json to an exception.
  io::writeFileAtomic(path, doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

}  // namespace hopsim
