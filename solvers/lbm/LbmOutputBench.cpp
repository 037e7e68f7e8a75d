// The run-with-output bench: the case through runCase into a scratch folder, run.json read back, the disk measured.
#include "solvers/lbm/LbmOutputBench.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include "core/Mpi.h"
#include "io/CaseReader.h"
#include "solvers/common/OutputBench.h"
#include "solvers/lbm/LbmRun.h"

namespace hopsim::lbm {

std::string defaultBenchCaseText() {
  return "solver: lbm\nlattice: D3Q19\nprecision: single\ncollision: {model: bgk}\n"
         "domain: {cells: [256, 256, 256], periodic: [x, y, z]}\nfluid: {tau: 0.6}\n"
         "initial: {taylor_green: {u0: 0.05}}\nrun: {steps: 1000}\n";
}

nlohmann::json benchWithOutput(const std::string& caseFile, std::vector<std::string> overrides,
                               const RunOptions& options, const OutputBenchOptions& o) {
  overrides.push_back(fmt::format("run.steps={}", o.steps));
  overrides.push_back(fmt::format("output.every={}", o.fieldsEvery));
  overrides.push_back(fmt::format("output.observables.every={}", o.observablesEvery));
  overrides.push_back("output.fields=[density, velocity]");
  overrides.push_back("output.formats=[hdf5]");
  const io::CaseDocument doc = caseFile.empty()
                                   ? io::CaseDocument::fromString(defaultBenchCaseText(), "bench.yaml", overrides)
                                   : io::CaseDocument::load(caseFile, overrides);
  const mpi::Comm world = mpi::Comm::world();
  BenchRunFolder out(world, o.dir, "hopsim-bench-output");
  RunOptions run = options;
  run.outputDir = out.path().string();
  run.quiet = true;
  run.writeOutput = true;
  nlohmann::json result;
  const int status = runCase(doc, run);
  if (status != 0) throw std::runtime_error(fmt::format("the run with output ended with exit code {}", status));
  if (world.isRoot()) {
    std::ifstream in(out.path() / "run.json");
    const nlohmann::json j = nlohmann::json::parse(in);
    const nlohmann::json& t = j["timings"];
    const double wall = t["wall_seconds"].get<double>();
    const double update = t["phases"]["collide+stream+boundaries"].get<double>();
    result["case"] = caseFile.empty() ? std::string("(built-in benchmark case)") : caseFile;
    result["backend"] = j["backend_description"];
    result["steps"] = j["steps"];
    result["cells"] = j["cells"];
    result["fields_every"] = o.fieldsEvery;
    result["observables_every"] = o.observablesEvery;
    result["wall_seconds"] = wall;
    result["update_seconds"] = update;
    result["mlups_update"] = t["mlups"];
    result["mlups_wall"] = t["mlups_wall"];
    result["wall_over_update"] = update > 0 ? wall / update : 0.0;
    result["phases"] = t["phases"];
    result["field_output"] = j.value("field_output", nlohmann::json::object());
    // The disk under the same folder, after the run (its files still there, as a run's would be), with a file of
    // about two output steps' fields.
    const nlohmann::json& fields = result["field_output"];
    const double bytes = fields.value("bytes", 0.0);
    addDiskWrite(result, "field", out.path(), bytes / std::max(1.0, fields.value("steps", 1.0)), bytes,
                 fields.value("writer_seconds", 0.0), o.diskBytes);
  }
  out.remove();
  return result;
}

}  // namespace hopsim::lbm
