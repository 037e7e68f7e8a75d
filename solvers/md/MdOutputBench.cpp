// The MD run-with-output bench: the case through runMd into a scratch folder, run.json read back, the disk measured.
#include "solvers/md/MdOutputBench.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <stdexcept>
#include <system_error>

#include "core/Mpi.h"
#include "io/CaseReader.h"
#include "io/md/MdCaseParser.h"
#include "solvers/common/DiskWriteBandwidth.h"
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
  // One folder for every rank, named after rank 0's process.
  const long long pid = static_cast<long long>(world.allreduceMax(world.isRoot() ? double(::getpid()) : 0.0));
  const std::filesystem::path base = o.dir.empty() ? std::filesystem::temp_directory_path() : o.dir;
  const std::filesystem::path out = base / fmt::format("hopsim-bench-md-output-{}", pid);
  RunOptions run = options;
  run.outputDir = out.string();
  run.quiet = true;
  run.writeOutput = true;
  nlohmann::json result = nlohmann::json::object();
  try {
    const MdRunResult r = runMd(c, run, MdRanks{}, doc.toJson());
    if (!r.ok) throw std::runtime_error("the run with output went unstable: " + r.failure);
    if (world.isRoot()) {
      std::ifstream in(out / "run.json");
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
      // of about two frames: a write the size the writer makes, up to o.diskBytes.
      const double bytes = j["trajectory_output"].value("bytes", 0.0);
      const double frames = std::max(1.0, j["trajectory_output"].value("frames", 1.0));
      const std::size_t cap = std::max(o.diskBytes, std::size_t(16) << 20);
      const std::size_t diskBytes =
          std::clamp<std::size_t>(static_cast<std::size_t>(2 * bytes / frames), std::size_t(16) << 20, cap);
      const DiskWrite disk = measureDiskWrite(out, diskBytes);
      result["disk_write"] = {{"GBs", disk.gbPerSecond}, {"bytes", disk.bytes}, {"seconds", disk.seconds},
                              {"how", "one file in 8 MiB writes, then fsync, in the run's output folder"}};
      const double writer = j["trajectory_output"].value("writer_seconds", 0.0);
      const double trajectoryGBs = writer > 0 ? bytes / writer / 1e9 : 0.0;
      result["trajectory_write_GBs"] = trajectoryGBs;  // the writer's rate (page cache included, no fsync)
      result["trajectory_write_over_disk"] = disk.gbPerSecond > 0 ? trajectoryGBs / disk.gbPerSecond : 0.0;
    }
  } catch (...) {
    if (world.isRoot()) {
      std::error_code ec;
      std::filesystem::remove_all(out, ec);
    }
    throw;
  }
  world.barrier();
  if (world.isRoot()) {
    std::error_code ec;
    std::filesystem::remove_all(out, ec);
  }
  return result;
}

}  // namespace hopsim::md
