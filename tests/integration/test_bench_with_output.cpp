// `hopsim bench --with-output` (issue 22): beside the update-only figure, the case run as a user runs it (fields every
// 100 steps, observables every 10) timed whole, and the disk's write bandwidth measured in the same process. In
// process, with a small copy-bandwidth buffer: the command's own copy measurement would take most of the time.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "CatchCompat.h"
#include "ScratchDir.h"
#include "core/RunOptions.h"
#include "io/CaseReader.h"
#include "io/LbmCaseParser.h"
#include "solvers/common/BenchSchema.h"
#include "solvers/lbm/LbmBench.h"
#include "solvers/lbm/LbmOutputBench.h"
#include "solvers/lbm/LbmRun.h"

namespace fs = std::filesystem;

TEST_CASE("bench --with-output reports the run with output beside the disk bandwidth, and cleans up",
          "[integration][bench]") {
  ScratchDir dir("bench_with_output");
  fs::create_directories(dir.path());
  const std::string caseFile = std::string(HOPSIM_SOURCE_DIR) + "/inputs/lbm/cavity3d.yaml";
  const std::vector<std::string> overrides{"domain.cells=[12,12,12]"};
  hopsim::RunOptions options;
  options.backend = hopsim::Backend::Cpu;
  hopsim::lbm::LbmCase c = hopsim::io::parseLbmCase(hopsim::io::CaseDocument::load(caseFile, overrides));
  hopsim::lbm::applyOptions(c, options);
  hopsim::lbm::BenchOptions b;
  b.steps = 10;
  b.repeats = 1;
  b.copyBytes = std::size_t(32) << 20;
  nlohmann::json doc = hopsim::lbm::bench(c, b);
  hopsim::lbm::OutputBenchOptions o;
  o.dir = dir.path();
  doc["run_with_output"] = hopsim::lbm::benchWithOutput(caseFile, overrides, options, o);

  std::string problems;
  for (const auto& p : hopsim::checkBenchDocument(doc)) problems += p + "\n";
  INFO(problems);
  CHECK(problems.empty());
  const nlohmann::json& w = doc["run_with_output"];
  INFO(w.dump(1));
  CHECK(w["steps"] == 1000);
  CHECK(w["fields_every"] == 100);
  CHECK(w["observables_every"] == 10);
  CHECK(w["field_output"]["steps"] == 11);
  CHECK(w["field_output"]["bytes"].get<double>() > 0);
  CHECK(w["disk_write"]["GBs"].get<double>() > 0);
  CHECK(w["mlups_wall"].get<double>() <= w["mlups_update"].get<double>());
  CHECK(w["wall_over_update"].get<double>() >= 1.0);
  CHECK(fs::is_empty(dir.path()));  // the run's folder and the disk's file are gone
}
