// What run.json records about the build, the host and the GPUs, so a result can be traced to where it came from.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace hopsim {

// version, compiler, build_type, assertions, with_cuda, with_mpi, with_vtk, hdf5_parallel, cuda_architectures
// ("80,90"; "none" without CUDA), cuda_device_optimized (false where HOPSIM_CUDA_DEVICE_OPT compiled the device code
// unoptimised, a compile check) and git_commit (the source tree's commit when built, "-dirty" appended when tracked
// files differed from it, "unknown" outside a git checkout; CMakeLists.txt and cmake/HopsimGitCommit.cmake).
nlohmann::json buildInfo();

// hostname, os, cpu_model, hardware_threads, openmp_max_threads, date_utc (ISO 8601, e.g. 2026-01-31T12:00:00Z).
nlohmann::json hostInfo();

// One object per CUDA device: index, name, compute_capability ("9.0"), multiprocessors, memory_bytes, l2_bytes,
// shared_per_block_optin_bytes, cluster_launch, driver_version, runtime_version ("12.4"), form_factor (SXM, PCIe or
// unknown, from the board name), uuid, pci_bus_id, sm_clock_peak_mhz, memory_clock_peak_mhz, memory_bus_bits,
// theoretical_bandwidth_gbs, ecc_enabled, and from NVML where it is installed sm_clock_application_mhz,
// memory_clock_application_mhz, power_limit_w, mig_enabled. Empty array without CUDA.
nlohmann::json devicesInfo();

// The CUDA runtime hopsim was built with and the installed driver's CUDA version ("13.0"; "none" without CUDA or
// without a driver), known with or without a GPU.
std::string cudaRuntimeVersion();
std::string cudaDriverVersion();

// Free memory of CUDA device `gpu` now (cudaMemGetInfo, which creates a context there); empty without CUDA or
// when the device cannot be queried.
std::optional<std::size_t> freeDeviceMemory(int gpu);

// Pretty-printed, written atomically; creates the parent directory.
void writeRunJson(const std::filesystem::path& path, const nlohmann::json& doc);

}  // namespace hopsim
