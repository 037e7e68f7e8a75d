// `hopsim bench --with-output` (issue 22): beside the update-only figure, the case run as a user runs it (fields every
// 100 steps, observables every 10) timed whole, and the disk's write bandwidth measured in the same process.
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "CatchCompat.h"
#include "CommandRun.h"
#include "ScratchDir.h"
#include "solvers/common/BenchSchema.h"

namespace fs = std::filesystem;

TEST_CASE("bench --with-output reports the run with output beside the disk bandwidth, and cleans up",
          "[integration][bench]") {
  ScratchDir dir("bench_with_output");
  fs::create_directories(dir.path() / "tmp");
  const fs::path json = dir.path() / "bench.json";
  // TMPDIR: the run's temporary folder goes where the test can see that it is gone afterwards.
  const CommandResult r = runCommand("TMPDIR=" + (dir.path() / "tmp").string() + " " + HOPSIM_BINARY + " bench " +
                                     std::string(HOPSIM_SOURCE_DIR) + "/inputs/lbm/cavity3d.yaml" +
                                     " --set 'domain.cells=[12,12,12]' --backend cpu --steps 10 --repeats 1" +
                                     " --with-output --json " + json.string() + " 2>&1 >/dev/null");
  INFO(r.output);
  REQUIRE(r.code == 0);
  std::ifstream in(json);
  const nlohmann::json doc = nlohmann::json::parse(in);
  std::string problems;
  for (const auto& p : hopsim::checkBenchDocument(doc)) problems += p + "\n";
  INFO(problems);
  CHECK(problems.empty());
  REQUIRE(doc.contains("run_with_output"));
  const nlohmann::json& w = doc["run_with_output"];
  CHECK(w["steps"] == 1000);
  CHECK(w["fields_every"] == 100);
  CHECK(w["observables_every"] == 10);
  CHECK(w["field_output"]["steps"] == 11);
  CHECK(w["field_output"]["bytes"].get<double>() > 0);
  CHECK(w["disk_write"]["GBs"].get<double>() > 0);
  CHECK(w["mlups_wall"].get<double>() <= w["mlups_update"].get<double>());
  CHECK(w["wall_over_update"].get<double>() >= 1.0);
  CHECK(fs::is_empty(dir.path() / "tmp"));
}
