// What run.json records about the build, the host and the GPUs, so a result can be traced to where it came from.
#pragma once

#include <filesystem>

#include <nlohmann/json.hpp>

namespace hopsim {

// version, compiler, build_type (when the build defines HOPSIM_BUILD_TYPE), assertions, with_cuda, with_mpi,
// with_vtk, cuda_architectures (HOPSIM_CUDA_ARCHITECTURES) and git_commit (HOPSIM_GIT_COMMIT) when defined.
nlohmann::json buildInfo();

// hostname, os, cpu_model, hardware_threads, openmp_max_threads, date_utc (ISO 8601, e.g. 2026-01-31T12:00:00Z).
nlohmann::json hostInfo();

// One object per CUDA device: index, name, compute_capability ("9.0"), multiprocessors, memory_bytes, l2_bytes,
// shared_per_block_optin_bytes, cluster_launch, driver_version, runtime_version ("12.4"). Empty array without CUDA.
nlohmann::json devicesInfo();

// Pretty-printed, written atomically; creates the parent directory.
void writeRunJson(const std::filesystem::path& path, const nlohmann::json& doc);

}  // namespace hopsim
