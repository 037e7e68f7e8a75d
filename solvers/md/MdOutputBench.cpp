// The MD run-with-output bench: the case through runMd into a scratch folder, run.json read back, the disk measured.
#include "solvers/md/MdOutputBench.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include "core/Mpi.h"
#include "io/CaseReader.h"
#include "io/md/MdCaseParser.h"
#include "solvers/common/OutputBench.h"
#include "solvers/md/MdSimulation.h"

namespace hopsim::md {

nlohmann::json benchWithOutput(const std::string& caseFile, std::vector<std::string> overrides,
                               const RunOptions& options, const OutputBenchOptions& o) {
  if (caseFile.empty()) throw std::invalid_argument("the MD run-with-output bench needs a case file");
  overrides.push_back(fmt::format("run.steps={}", o.steps));
  overrides.push_back(fmt::format("thermo.every={}", o.thermoEvery));
  overrides.push_back(fmt::format("output.every={}", o.trajectoryEvery));
  overrides.push_back("output.formats=[h5md]");
  const io::CaseDocument doc = io::CaseDocument::load(caseFile, overrides);
  const MdCase c = io::md::parseMdCase(doc);
  const mpi::Comm world = mpi::Comm::world();
  BenchRunFolder out(world, o.dir, "hopsim-bench-md-output");
  RunOptions run = options;
  run.outputDir = out.path().string();
  run.quiet = true;
  run.writeOutput = true;
  nlohmann::json result = nlohmann::json::object();
  const MdRunResult r = runMd(c, run, MdRanks{}, doc.toJson());
  if (!r.ok) throw std::runtime_error("the run with output went unstable: " + r.failure);
  if (world.isRoot()) {
    std::ifstream in(out.path() / "run.json");
    const nlohmann::json j = nlohmann::json::parse(in);
    const nlohmann::json& t = j["timings"];
    const double loop = t["loop_seconds"].get<double>();
    const double update = t["phases"]["steps"].get<double>();
    const double atomSteps = static_cast<double>(j["atoms"].get<long long>()) *
                             static_cast<double>(j["last_step"].get<long long>() - j["first_step"].get<long long>());
    result["case"] = caseFile;
    result["backend"] = j["backend"];
    result["atoms"] = j["atoms"];
    result["steps"] = o.steps;
    result["thermo_every"] = o.thermoEvery;
    result["trajectory_every"] = o.trajectoryEvery;
    result["wall_seconds"] = loop;
    result["update_seconds"] = update;
    result["atom_steps_per_second_update"] = update > 0 ? atomSteps / update : 0.0;
    result["atom_steps_per_second_wall"] = loop > 0 ? atomSteps / loop : 0.0;
    result["wall_over_update"] = update > 0 ? loop / update : 0.0;
    result["phases"] = t["phases"];
    result["trajectory_output"] = j["trajectory_output"];
    // The disk under the same folder, after the run (its trajectory still there, as a run's would be), with a file
    // of about two frames.
    const nlohmann::json& trajectory = j["trajectory_output"];
    const double bytes = trajectory.value("bytes", 0.0);
    addDiskWrite(result, "trajectory", out.path(), bytes / std::max(1.0, trajectory.value("frames", 1.0)), bytes,
                 trajectory.value("writer_seconds", 0.0), o.diskBytes);
  }
  out.remove();
  return result;
}

}  // namespace hopsim::md
