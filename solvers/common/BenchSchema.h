// The one JSON schema of `hopsim bench` for LBM and MD (docs/bench-schema.json): the document around the runs, its
// provenance and copy bandwidth, the per-run timing blocks, and the check `hopsim compare` and the tests apply.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/DevicePlan.h"

namespace hopsim {

inline constexpr const char* kBenchSchemaName = "hopsim-bench";
// The major version changes when a reader of the old one would misread a document; the minor one when keys are
// added. `hopsim compare` refuses another major version.
inline constexpr int kBenchSchemaMajor = 1;
inline constexpr int kBenchSchemaMinor = 0;

// Where a result came from: hopsim_version, git_commit, build (RunInfo's buildInfo), host (hostInfo), date_utc,
// backend, mpi_ranks, gpu (the devicesInfo record of the GPU measured, with memory_free_bytes; null on the cpu
// backend), cuda_runtime (the one built with) and cuda_driver ("none" without CUDA or without a driver).
nlohmann::json benchProvenance(Backend backend, int gpu);

// The copy bandwidth the runs are compared with, measured in this process before any run allocates: on the cuda
// backend GPU `gpu`'s (float4 copy kernel), on the cpu backend host memory's with every OpenMP thread. `bytes` is
// the buffer size, 0 for the default (4 GiB on a GPU, 1 GiB on the host, less where memory is short). Under MPI
// rank 0 measures and every rank gets the figure. Null where nothing could be measured (a build without CUDA).
// Throws on the cuda backend of a build whose device code is not optimised (HOPSIM_CUDA_DEVICE_OPT=OFF).
nlohmann::json benchCopyBandwidth(Backend backend, int gpu, std::size_t bytes = 0);

// The median copy bandwidth in GB/s of a benchCopyBandwidth block; 0 for null.
double copyBandwidthGBs(const nlohmann::json& copyBandwidth);

// {median, min, max, spread} of per-repeat values (the median of an even count is the mean of the middle two);
// spread = (max - min) / median.
nlohmann::json benchSpread(std::vector<double> values);

// {schema, schema_version, provenance, copy_bandwidth, runs}.
nlohmann::json benchDocument(nlohmann::json provenance, nlohmann::json copyBandwidth, nlohmann::json runs);

// "major.minor" of this hopsim's schema.
std::string benchSchemaVersion();

// What makes `doc` unreadable as a bench document of this major version, one "path: what is wrong, what is allowed"
// per problem (e.g. "runs[2].step_time_ms.median: missing, a number is required"); empty when it is valid.
std::vector<std::string> checkBenchDocument(const nlohmann::json& doc);

}  // namespace hopsim
