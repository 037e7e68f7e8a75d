// run.json: build, host and device descriptions.
#include "solvers/common/RunInfo.h"

#include <fmt/format.h>
#include <omp.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cctype>
#include <ctime>
#include <fstream>
#include <string>
#include <thread>

#include "hopsim/GitCommit.h"  // generated at build time (cmake/HopsimGitCommit.cmake)
#include "io/AtomicFile.h"
#include "kernels/common/DeviceInfo.h"

#if HOPSIM_WITH_CUDA
#include <cuda_runtime.h>
#include <dlfcn.h>
#endif

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

// The CUDA runtime reports no form factor; the board names say it for the GPUs hopsim targets ("NVIDIA
// A100-SXM4-80GB", "NVIDIA A100-PCIE-40GB", "NVIDIA H100 PCIe", "NVIDIA H100 NVL", "NVIDIA H100 80GB HBM3" is the
// SXM board, "NVIDIA H200" the SXM and "NVIDIA H200 NVL" the PCIe one). Anything else: unknown, and the
// multiprocessor count, clocks and memory size in the same record tell the boards apart.
std::string formFactorFromName(std::string name) {
  for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  const auto has = [&](const char* part) { return name.find(part) != std::string::npos; };
  if (has("pcie") || has("nvl")) return "PCIe";
  if (has("sxm") || has("hbm3") || has("h200") || has("gh200")) return "SXM";
  return "unknown";
}

#if HOPSIM_WITH_CUDA
// What DeviceInfo does not carry: identity (UUID, PCI address), peak clocks, bus width and ECC. Attribute and
// property queries, which create no context on the device.
void addCudaDetails(nlohmann::json& j, int index) {
  const auto attribute = [&](cudaDeviceAttr a) {
    int v = 0;
    if (cudaDeviceGetAttribute(&v, a, index) != cudaSuccess) {
      cudaGetLastError();
      return -1;
    }
    return v;
  };
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, index) == cudaSuccess) {
    std::string uuid = "GPU-";
    for (int k = 0; k < 16; ++k) {
      if (k == 4 || k == 6 || k == 8 || k == 10) uuid += '-';
      uuid += fmt::format("{:02x}", static_cast<unsigned char>(p.uuid.bytes[k]));
    }
    j["uuid"] = uuid;  // the form nvidia-smi -L prints
  } else {
    cudaGetLastError();
  }
  j["pci_bus_id"] = fmt::format("{:08x}:{:02x}:{:02x}.0", attribute(cudaDevAttrPciDomainId),
                                attribute(cudaDevAttrPciBusId), attribute(cudaDevAttrPciDeviceId));
  const int smKhz = attribute(cudaDevAttrClockRate), memoryKhz = attribute(cudaDevAttrMemoryClockRate);
  const int busBits = attribute(cudaDevAttrGlobalMemoryBusWidth);
  j["sm_clock_peak_mhz"] = smKhz > 0 ? nlohmann::json(smKhz / 1000) : nlohmann::json(nullptr);
  j["memory_clock_peak_mhz"] = memoryKhz > 0 ? nlohmann::json(memoryKhz / 1000) : nlohmann::json(nullptr);
  j["memory_bus_bits"] = busBits > 0 ? nlohmann::json(busBits) : nlohmann::json(nullptr);
  // Double data rate: two transfers per memory clock.
  j["theoretical_bandwidth_gbs"] = memoryKhz > 0 && busBits > 0
                                       ? nlohmann::json(2.0 * memoryKhz * 1e3 * busBits / 8 / 1e9)
                                       : nlohmann::json(nullptr);
  j["ecc_enabled"] = attribute(cudaDevAttrEccEnabled) == 1;
}

// NVML, the library nvidia-smi reads, for what the CUDA runtime does not report: the application clocks the GPU
// runs kernels at, the power limit and the MIG mode. Loaded at run time: hopsim builds without NVML's header and
// runs where the library is missing (the record then says so). The functions are declared with NVML's C
// signatures (nvml.h, stable since NVML API version 2); return 0 is NVML_SUCCESS.
void addNvmlDetails(nlohmann::json& j) {
  if (!j.contains("uuid")) return;
  void* library = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    j["nvml"] = "libnvidia-ml.so.1 not found: no application clocks, power limit or MIG mode";
    return;
  }
  using Device = struct NvmlDevice*;
  constexpr int kClockSm = 1, kClockMemory = 2;  // nvmlClockType_t: NVML_CLOCK_SM, NVML_CLOCK_MEM
  const auto function = [&](const char* name) { return ::dlsym(library, name); };
  const auto init = reinterpret_cast<int (*)()>(function("nvmlInit_v2"));
  const auto shutdown = reinterpret_cast<int (*)()>(function("nvmlShutdown"));
  const auto byUuid = reinterpret_cast<int (*)(const char*, Device*)>(function("nvmlDeviceGetHandleByUUID"));
  const auto applicationClock =
      reinterpret_cast<int (*)(Device, int, unsigned*)>(function("nvmlDeviceGetApplicationsClock"));
  const auto powerLimit = reinterpret_cast<int (*)(Device, unsigned*)>(function("nvmlDeviceGetPowerManagementLimit"));
  const auto migMode = reinterpret_cast<int (*)(Device, unsigned*, unsigned*)>(function("nvmlDeviceGetMigMode"));
  Device device = nullptr;
  if (init && shutdown && byUuid && init() == 0) {
    if (byUuid(j["uuid"].get<std::string>().c_str(), &device) == 0) {
      unsigned value = 0, pending = 0;
      if (applicationClock && applicationClock(device, kClockSm, &value) == 0) j["sm_clock_application_mhz"] = value;
      if (applicationClock && applicationClock(device, kClockMemory, &value) == 0)
        j["memory_clock_application_mhz"] = value;
      if (powerLimit && powerLimit(device, &value) == 0) j["power_limit_w"] = value / 1000.0;  // NVML: milliwatts
      // Not supported (pre-Ampere, or a driver without MIG): no key.
      if (migMode && migMode(device, &value, &pending) == 0) j["mig_enabled"] = value == 1;
    }
    shutdown();
  }
  ::dlclose(library);
}
#endif

}  // namespace

nlohmann::json buildInfo() {
  nlohmann::json j;
  j["version"] = HOPSIM_VERSION;
  j["compiler"] = compilerName();
  j["build_type"] = HOPSIM_BUILD_TYPE;
#ifdef NDEBUG
  j["assertions"] = false;
#else
  j["assertions"] = true;
#endif
  j["with_cuda"] = static_cast<bool>(HOPSIM_WITH_CUDA);
  j["with_mpi"] = static_cast<bool>(HOPSIM_WITH_MPI);
  j["with_vtk"] = static_cast<bool>(HOPSIM_WITH_VTK);
  j["hdf5_parallel"] = static_cast<bool>(HOPSIM_HDF5_PARALLEL);
  j["cuda_architectures"] = HOPSIM_CUDA_ARCHITECTURES;
  j["cuda_device_optimized"] = static_cast<bool>(HOPSIM_CUDA_DEVICE_OPT);
  j["git_commit"] = HOPSIM_GIT_COMMIT;
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
        {"form_factor", formFactorFromName(g.name)},
    });
#if HOPSIM_WITH_CUDA
    addCudaDetails(list.back(), g.index);
    addNvmlDetails(list.back());
#endif
  }
  return list;
}

std::string cudaRuntimeVersion() {
  int version = 0;
#if HOPSIM_WITH_CUDA
  if (cudaRuntimeGetVersion(&version) != cudaSuccess) cudaGetLastError();
#endif
  return cudaVersion(version);
}

std::string cudaDriverVersion() {
  int version = 0;  // 0 where no driver is installed
#if HOPSIM_WITH_CUDA
  if (cudaDriverGetVersion(&version) != cudaSuccess) cudaGetLastError();
#endif
  return cudaVersion(version);
}

std::optional<std::size_t> freeDeviceMemory([[maybe_unused]] int gpu) {
#if HOPSIM_WITH_CUDA
  int previous = 0;
  std::size_t free = 0, total = 0;
  if (cudaGetDevice(&previous) == cudaSuccess && cudaSetDevice(gpu) == cudaSuccess &&
      cudaMemGetInfo(&free, &total) == cudaSuccess) {
    cudaSetDevice(previous);
    return free;
  }
  cudaGetLastError();
#endif
  return std::nullopt;
}

void writeRunJson(const std::filesystem::path& path, const nlohmann::json& doc) {
  if (path.has_parent_path()) io::ensureDirectory(path.parent_path());
  // Strings from the case file or /proc may hold invalid UTF-8; replacing it beats losing run.json to an exception.
  io::writeFileAtomic(path, doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

}  // namespace hopsim
