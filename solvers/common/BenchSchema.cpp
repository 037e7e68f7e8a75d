// The bench document: provenance, copy bandwidth, timing blocks and the schema check.
#include "solvers/common/BenchSchema.h"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <stdexcept>

#include "core/Mpi.h"
#include "kernels/common/CopyBandwidth.h"
#include "solvers/common/HostCopyBandwidth.h"
#include "solvers/common/RunInfo.h"

namespace hopsim {
namespace {

enum class Kind { String, Number, Integer, Boolean, Object, Array };

const char* kindName(Kind k) {
  switch (k) {
    case Kind::String: return "a string";
    case Kind::Number: return "a number";
    case Kind::Integer: return "an integer";
    case Kind::Boolean: return "true or false";
    case Kind::Object: return "an object";
    case Kind::Array: return "an array";
  }
  return "";
}

bool isKind(const nlohmann::json& v, Kind k) {
  switch (k) {
    case Kind::String: return v.is_string();
    case Kind::Number: return v.is_number();
    case Kind::Integer: return v.is_number_integer();
    case Kind::Boolean: return v.is_boolean();
    case Kind::Object: return v.is_object();
    case Kind::Array: return v.is_array();
  }
  return false;
}

// Collects "path: what is wrong, what is allowed"; each check returns the value when it is there and of its kind.
struct Checker {
  std::vector<std::string> problems;

  const nlohmann::json* need(const nlohmann::json& parent, const std::string& path, const std::string& key, Kind kind,
                             bool nullable = false) {
    const std::string where = path.empty() ? key : path + "." + key;
    const auto it = parent.find(key);
    if (it == parent.end()) {
      problems.push_back(
          fmt::format("{}: missing, {}{} is required", where, kindName(kind), nullable ? " or null" : ""));
      return nullptr;
    }
    if (nullable && it->is_null()) return nullptr;
    if (!isKind(*it, kind)) {
      problems.push_back(fmt::format("{}: {} where {}{} is required", where, it->type_name(), kindName(kind),
                                     nullable ? " or null" : ""));
      return nullptr;
    }
    return &*it;
  }

  void spread(const nlohmann::json& parent, const std::string& path, const std::string& key) {
    if (const auto* s = need(parent, path, key, Kind::Object))
      for (const char* part : {"median", "min", "max", "spread"}) need(*s, path + "." + key, part, Kind::Number);
  }

  void run(const nlohmann::json& r, const std::string& path) {
    if (!r.is_object()) {
      problems.push_back(path + ": " + r.type_name() + " where an object is required");
      return;
    }
    need(r, path, "id", Kind::String);
    const auto* solver = need(r, path, "solver", Kind::String);
    if (solver && *solver != "lbm" && *solver != "md")
      problems.push_back(path + ".solver: '" + solver->get<std::string>() + "', lbm or md is required");
    // A run that could not be built or ran out of memory carries its error and nothing measured.
    if (r.contains("error")) {
      need(r, path, "error", Kind::String);
      return;
    }
    need(r, path, "description", Kind::String);
    need(r, path, "kernels", Kind::String);
    need(r, path, "precision", Kind::String);
    need(r, path, "device_plan", Kind::Object);
    need(r, path, "steps", Kind::Integer);
    need(r, path, "repeats", Kind::Integer);
    spread(r, path, "step_time_ms");
    if (const auto* t = need(r, path, "throughput", Kind::Object)) {
      need(*t, path + ".throughput", "unit", Kind::String);
      for (const char* part : {"median", "min", "max", "spread"}) need(*t, path + ".throughput", part, Kind::Number);
    }
    need(r, path, "fraction_of_copy_bandwidth", Kind::Number, true);
    if (solver && *solver == "lbm") {
      need(r, path, "lattice", Kind::String);
      need(r, path, "layout", Kind::String);
      need(r, path, "domain", Kind::Array);
      need(r, path, "cells", Kind::Number);
      need(r, path, "bytes_per_cell_step", Kind::Number);
    } else if (solver && *solver == "md") {
      need(r, path, "atoms", Kind::Integer);
    }
  }
};

}  // namespace

std::string benchSchemaVersion() { return fmt::format("{}.{}", kBenchSchemaMajor, kBenchSchemaMinor); }

nlohmann::json benchProvenance(Backend backend, int gpu) {
  const nlohmann::json build = buildInfo();
  const nlohmann::json host = hostInfo();
  const nlohmann::json devices = devicesInfo();
  nlohmann::json gpuRecord = nullptr;
  if (backend == Backend::Cuda && gpu >= 0 && gpu < static_cast<int>(devices.size())) {
    gpuRecord = devices[gpu];
    const auto free = freeDeviceMemory(gpu);
    gpuRecord["memory_free_bytes"] = free ? nlohmann::json(*free) : nlohmann::json(nullptr);
  }
  return {{"hopsim_version", build["version"]},
          {"git_commit", build["git_commit"]},
          {"build", build},
          {"host", host},
          {"date_utc", host["date_utc"]},
          {"backend", toString(backend)},
          {"mpi_ranks", mpi::size()},
          {"gpu", gpuRecord},
          {"cuda_runtime", cudaRuntimeVersion()},
          {"cuda_driver", cudaDriverVersion()}};
}

nlohmann::json benchCopyBandwidth(Backend backend, int gpu, std::size_t bytes) {
  const bool device = backend == Backend::Cuda;
  // Every GPU benchmark measures its ceiling here before its runs, so that no figure of a compile-check build's
  // unoptimised kernels is taken.
  if (device && !buildInfo()["cuda_device_optimized"].get<bool>())
    throw std::runtime_error(
        "this build's CUDA device code is not optimised (HOPSIM_CUDA_DEVICE_OPT=OFF, a compile check): its kernels' "
        "times are not hopsim's; rebuild with -DHOPSIM_CUDA_DEVICE_OPT=ON to benchmark on the GPU");
  const mpi::Comm world = mpi::Comm::world();
  // With several ranks (which may share a GPU or a node) rank 0 alone measures while the others wait.
  std::optional<CopyBandwidth> measured;
  if (world.isRoot())
    measured = device ? measureCopyBandwidth(gpu, bytes ? bytes : std::size_t(4) << 30, 9)
                      : measureHostCopyBandwidth(bytes ? bytes : std::size_t(1) << 30, 9);
  std::vector<double> figures(5, 0.0);  // only rank 0's are non-zero: the sum hands them to every rank
  if (measured)
    figures = {measured->medianGBs, measured->minGBs, measured->maxGBs, static_cast<double>(measured->bytes),
               static_cast<double>(measured->repeats)};
  world.allreduceSum(figures);
  if (figures[0] <= 0) return nullptr;
  nlohmann::json j = {{"median_gbs", figures[0]},
                      {"min_gbs", figures[1]},
                      {"max_gbs", figures[2]},
                      {"bytes_per_buffer", static_cast<std::size_t>(figures[3])},
                      {"repeats", static_cast<int>(figures[4])},
                      {"memory", device ? "device" : "host"}};
  if (device) {
    j["gpu"] = gpu;
    j["method"] = "float4 copy kernel, bytes read + written, CUDA events, median";
  } else {
    j["threads"] = omp_get_max_threads();
    j["method"] = "OpenMP copy loop over doubles on every thread, bytes read + written, steady clock, median";
  }
  return j;
}

double copyBandwidthGBs(const nlohmann::json& copyBandwidth) {
  return copyBandwidth.is_object() ? copyBandwidth.value("median_gbs", 0.0) : 0.0;
}

nlohmann::json benchSpread(std::vector<double> values) {
  if (values.empty()) return nullptr;
  std::sort(values.begin(), values.end());
  const std::size_t half = values.size() / 2;
  const double median = values.size() % 2 ? values[half] : 0.5 * (values[half - 1] + values[half]);
  return {{"median", median},
          {"min", values.front()},
          {"max", values.back()},
          {"spread", median > 0 ? (values.back() - values.front()) / median : 0.0}};
}

nlohmann::json benchDocument(nlohmann::json provenance, nlohmann::json copyBandwidth, nlohmann::json runs) {
  return {{"schema", kBenchSchemaName},
          {"schema_version", benchSchemaVersion()},
          {"provenance", std::move(provenance)},
          {"copy_bandwidth", std::move(copyBandwidth)},
          {"runs", std::move(runs)}};
}

std::vector<std::string> checkBenchDocument(const nlohmann::json& doc) {
  Checker c;
  if (!doc.is_object()) return {std::string("the document is ") + doc.type_name() + ", a JSON object is required"};
  if (doc.value("schema", "") != kBenchSchemaName)
    return {
        fmt::format("schema: missing or not '{}': not a hopsim bench document (bench files written before "
                    "schema version 1 have no schema; run the bench again)",
                    kBenchSchemaName)};
  if (const auto* v = c.need(doc, "", "schema_version", Kind::String)) {
    const std::string text = v->get<std::string>();
    char* end = nullptr;
    const long major = std::strtol(text.c_str(), &end, 10);
    if (end == text.c_str() || *end != '.')
      c.problems.push_back("schema_version: '" + text + "', major.minor (e.g. '" + benchSchemaVersion() +
                           "') is required");
    else if (major != kBenchSchemaMajor)
      return {
          fmt::format("schema_version: {} has another major version than this hopsim reads ({}.x); compare files "
                      "written by hopsim versions of the same schema major version",
                      text, kBenchSchemaMajor)};
  }
  if (const auto* p = c.need(doc, "", "provenance", Kind::Object)) {
    for (const char* key : {"hopsim_version", "git_commit", "date_utc", "backend", "cuda_runtime", "cuda_driver"})
      c.need(*p, "provenance", key, Kind::String);
    if (const auto* b = c.need(*p, "provenance", "build", Kind::Object))
      for (const char* key : {"build_type", "compiler", "cuda_architectures"})
        c.need(*b, "provenance.build", key, Kind::String);
    if (const auto* h = c.need(*p, "provenance", "host", Kind::Object))
      c.need(*h, "provenance.host", "hostname", Kind::String);
    if (const auto* g = c.need(*p, "provenance", "gpu", Kind::Object, true)) {
      c.need(*g, "provenance.gpu", "name", Kind::String);
      c.need(*g, "provenance.gpu", "multiprocessors", Kind::Integer);
      c.need(*g, "provenance.gpu", "memory_bytes", Kind::Integer);
    }
  }
  if (const auto* b = c.need(doc, "", "copy_bandwidth", Kind::Object, true)) {
    for (const char* key : {"median_gbs", "min_gbs", "max_gbs"}) c.need(*b, "copy_bandwidth", key, Kind::Number);
    c.need(*b, "copy_bandwidth", "memory", Kind::String);
  }
  if (doc.contains("suite")) {
    if (const auto* s = c.need(doc, "", "suite", Kind::Object)) {
      c.need(*s, "suite", "name", Kind::String);
      c.need(*s, "suite", "version", Kind::Integer);
      c.need(*s, "suite", "scale", Kind::String);
      c.need(*s, "suite", "notes", Kind::Array);
    }
  }
  if (const auto* runs = c.need(doc, "", "runs", Kind::Array)) {
    if (runs->empty()) c.problems.push_back("runs: empty, at least one run is required");
    for (std::size_t k = 0; k < runs->size(); ++k) c.run((*runs)[k], fmt::format("runs[{}]", k));
  }
  return c.problems;
}

}  // namespace hopsim
