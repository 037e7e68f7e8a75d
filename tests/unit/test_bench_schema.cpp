// The bench document (solvers/common/BenchSchema) on crafted documents.
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "CatchCompat.h"
#include "solvers/common/BenchSchema.h"

using namespace hopsim;

namespace {

nlohmann::json timing(double median, double low, double high) {
  return {{"median", median}, {"min", low}, {"max", high}, {"spread", (high - low) / median}};
}

// An LBM run of 1e6 cells at `ms` per step (min, max), 152 bytes per cell-step.
nlohmann::json lbmRun(const std::string& id, double ms, double low, double high, double copyGBs) {
  const double mlups = 1e6 / (ms * 1e-3) / 1e6;
  return {{"id", id},
          {"solver", "lbm"},
          {"description", "crafted"},
          {"kernels", id.find("/hopper/") != std::string::npos ? "hopper" : "portable"},
          {"precision", "single"},
          {"device_plan", {{"backend", "cuda"}}},
          {"steps", 100},
          {"repeats", 3},
          {"step_time_ms", timing(ms, low, high)},
          {"throughput", {{"median", mlups}, {"min", 1e3 / high}, {"max", 1e3 / low}, {"spread", 0.1}, {"unit", "MLUPS"}}},
          {"fraction_of_copy_bandwidth", mlups * 1e6 * 152 / 1e9 / copyGBs},
          {"lattice", "D3Q19"},
          {"layout", "two-lattice"},
          {"domain", {100, 100, 100}},
          {"cells", 1e6},
          {"bytes_per_cell_step", 152}};
}

nlohmann::json mdRun(double ms) {
  return {{"id", "md/lj/mixed/portable/32000"},
          {"solver", "md"},
          {"description", "crafted"},
          {"kernels", "portable"},
          {"precision", "mixed"},
          {"device_plan", {{"backend", "cuda"}}},
          {"steps", 100},
          {"repeats", 3},
          {"step_time_ms", timing(ms, ms, ms)},
          {"throughput", {{"median", 32000 / (ms * 1e-3)}, {"min", 1}, {"max", 1}, {"spread", 0}, {"unit", "atom-steps/s"}}},
          {"fraction_of_copy_bandwidth", nullptr},
          {"atoms", 32000}};
}

nlohmann::json document(const std::string& gpu, const std::string& commit, double copyGBs, nlohmann::json runs) {
  const nlohmann::json provenance = {
      {"hopsim_version", "0.1.0"},
      {"git_commit", commit},
      {"build", {{"build_type", "Release"}, {"compiler", "gcc 12.2.0"}, {"cuda_architectures", "80,90"}}},
      {"host", {{"hostname", "node1"}}},
      {"date_utc", "2026-12-01T12:00:00Z"},
      {"backend", "cuda"},
      {"mpi_ranks", 1},
      {"gpu", {{"name", gpu}, {"multiprocessors", 132}, {"memory_bytes", 150000000000LL}, {"form_factor", "SXM"}}},
      {"cuda_runtime", "13.0"},
      {"cuda_driver", "13.0"}};
  const nlohmann::json copy = {{"median_gbs", copyGBs}, {"min_gbs", copyGBs}, {"max_gbs", copyGBs}, {"memory", "device"}};
  return benchDocument(provenance, copy, std::move(runs));
}

bool mentions(const std::vector<std::string>& problems, const std::string& part) {
  for (const auto& p : problems)
    if (p.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("benchSpread: median (mean of the middle two for an even count), extremes and relative spread", "[unit][bench]") {
  const nlohmann::json odd = benchSpread({3.0, 1.0, 2.0});
  CHECK(odd["median"] == 2.0);
  CHECK(odd["min"] == 1.0);
  CHECK(odd["max"] == 3.0);
  CHECK(odd["spread"].get<double>() == Approx(1.0));
  const nlohmann::json even = benchSpread({4.0, 1.0, 2.0, 3.0});
  CHECK(even["median"] == 2.5);
  CHECK(even["spread"].get<double>() == Approx(3.0 / 2.5));
}

TEST_CASE("a bench document passes the schema check; each required key of docs/bench-schema.json is checked",
          "[unit][bench]") {
  const nlohmann::json valid = document("NVIDIA H200", std::string(40, 'a'), 4000,
                                        {lbmRun("lbm/periodic/D3Q19/single/portable/two-lattice/100x100x100", 2, 1.9, 2.2, 4000),
                                         mdRun(0.1), {{"id", "lbm/failed"}, {"solver", "lbm"}, {"error", "out of memory"}}});
  INFO(valid.dump(2));
  CHECK(checkBenchDocument(valid).empty());
  CHECK(valid["schema_version"] == benchSchemaVersion());

  // The JSON Schema that documents the format and the C++ check must agree on what is required.
  std::ifstream in(std::string(HOPSIM_SOURCE_DIR) + "/docs/bench-schema.json");
  REQUIRE(in);
  const nlohmann::json schema = nlohmann::json::parse(in);
  const auto dropEach = [&](const nlohmann::json& required, const auto& pick, const std::string& where) {
    REQUIRE(required.is_array());
    REQUIRE(!required.empty());
    for (const auto& key : required) {
      nlohmann::json broken = valid;
      pick(broken).erase(key.get<std::string>());
      INFO(where << key.get<std::string>());
      CHECK(!checkBenchDocument(broken).empty());
    }
  };
  dropEach(schema["required"], [](nlohmann::json& d) -> nlohmann::json& { return d; }, "");
  dropEach(schema["properties"]["provenance"]["required"],
           [](nlohmann::json& d) -> nlohmann::json& { return d["provenance"]; }, "provenance.");
  dropEach(schema["properties"]["provenance"]["properties"]["build"]["required"],
           [](nlohmann::json& d) -> nlohmann::json& { return d["provenance"]["build"]; }, "provenance.build.");
  dropEach(schema["properties"]["provenance"]["properties"]["gpu"]["required"],
           [](nlohmann::json& d) -> nlohmann::json& { return d["provenance"]["gpu"]; }, "provenance.gpu.");
  dropEach(schema["properties"]["copy_bandwidth"]["required"],
           [](nlohmann::json& d) -> nlohmann::json& { return d["copy_bandwidth"]; }, "copy_bandwidth.");
  const nlohmann::json& run = schema["$defs"]["run"];
  dropEach(run["required"], [](nlohmann::json& d) -> nlohmann::json& { return d["runs"][0]; }, "runs[0].");
  dropEach(run["then"]["required"], [](nlohmann::json& d) -> nlohmann::json& { return d["runs"][0]; }, "runs[0].");
  dropEach(run["then"]["then"]["required"], [](nlohmann::json& d) -> nlohmann::json& { return d["runs"][0]; },
           "runs[0].");
  dropEach(run["then"]["else"]["required"], [](nlohmann::json& d) -> nlohmann::json& { return d["runs"][1]; },
           "runs[1].");
  dropEach(schema["$defs"]["spread"]["required"],
           [](nlohmann::json& d) -> nlohmann::json& { return d["runs"][0]["step_time_ms"]; }, "step_time_ms.");

  // Types, and where the problem is.
  nlohmann::json wrong = valid;
  wrong["runs"][0]["step_time_ms"]["median"] = "2 ms";
  const auto problems = checkBenchDocument(wrong);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0] == "runs[0].step_time_ms.median: string where a number is required");
  // Null is allowed for a GPU and a copy bandwidth (the cpu backend of a build without CUDA), not for a run's time.
  nlohmann::json cpu = valid;
  cpu["provenance"]["gpu"] = nullptr;
  cpu["copy_bandwidth"] = nullptr;
  CHECK(checkBenchDocument(cpu).empty());
}

TEST_CASE("the schema check refuses another major version and documents without a schema", "[unit][bench]") {
  nlohmann::json d = document("NVIDIA H200", "x", 4000, {mdRun(0.1)});
  d["schema_version"] = "1.7";  // a newer minor version adds keys a reader may ignore
  CHECK(checkBenchDocument(d).empty());
  d["schema_version"] = "2.0";
  auto problems = checkBenchDocument(d);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find("schema_version: 2.0 has another major version") != std::string::npos);
  d["schema_version"] = "one";
  CHECK(mentions(checkBenchDocument(d), "major.minor"));
  // What `hopsim bench` wrote before the schema: {"solver": "lbm", "runs": [...]} without "schema".
  problems = checkBenchDocument({{"solver", "lbm"}, {"runs", nlohmann::json::array()}});
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find("not a hopsim bench document") != std::string::npos);
}
