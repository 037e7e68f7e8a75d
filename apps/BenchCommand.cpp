// `hopsim bench`: throughput of a case (LBM: MLUPS against the copy bandwidth; MD: atom-steps/s) as JSON on stdout,
// or of the standard suite (`--suite standard`) into one JSON file.
#include <fmt/format.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "apps/Commands.h"
#include "io/AtomicFile.h"
#include "io/CaseReader.h"
#include "io/LbmCaseParser.h"
#include "core/Log.h"
#include "core/Mpi.h"
#include "solvers/common/BenchSuite.h"
#include "solvers/lbm/LbmBench.h"
#include "solvers/lbm/LbmOutputBench.h"
#include "solvers/lbm/LbmRun.h"
#include "solvers/md/MdBench.h"
#include "solvers/md/MdOutputBench.h"

namespace hopsim::app {

namespace {

nlohmann::json benchLbm(lbm::LbmCase c, const BenchArgs& args, const RunOptions& options) {
  lbm::applyOptions(c, options);
  lbm::BenchOptions b;
  b.steps = args.steps;
  b.repeats = args.repeats;
  b.layouts = args.layouts;
  for (const auto& k : args.kernels) b.variants.push_back(*kernelVariantFrom(k));  // CLI11 checked the names
  return lbm::bench(c, b);
}

// The suite's file name: what ran where and when, e.g. suite-standard-nvidia-h200-20261201T160000Z.json.
std::string suiteFileName(const nlohmann::json& doc) {
  const nlohmann::json& p = doc["provenance"];
  std::string device = p["gpu"].is_object() ? p["gpu"]["name"].get<std::string>()
                                            : "cpu-" + p["host"]["hostname"].get<std::string>();
  std::string name;
  for (const char ch : device) {
    const bool keep = std::isalnum(static_cast<unsigned char>(ch));
    if (keep) name += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    else if (!name.empty() && name.back() != '-') name += '-';
  }
  std::string date;
  for (const char ch : p["date_utc"].get<std::string>())
    if (ch != '-' && ch != ':') date += ch;
  return fmt::format("suite-{}-{}-{}.json", doc["suite"]["name"].get<std::string>(), name, date);
}

int suiteCommand(const BenchArgs& args, const RunOptions& options) {
  SuiteOptions o;
  o.name = args.suite;
  o.backend = options.backend.value_or(Backend::Auto);
  o.scale = args.scale == "tiny" ? SuiteScale::Tiny : SuiteScale::Full;
  o.progress = [](const std::string& line) { log::info("{}", line); };
  const nlohmann::json doc = runSuite(o);
  if (!mpi::isRoot()) return 0;
  const std::filesystem::path file =
      args.json.empty() ? std::filesystem::path(args.outDir) / suiteFileName(doc) : std::filesystem::path(args.json);
  if (file.has_parent_path()) io::ensureDirectory(file.parent_path());
  io::writeFileAtomic(file, doc.dump(2) + "\n");
  std::printf("%s\n", file.string().c_str());
  return 0;
}

}  // namespace

int benchCommand(const BenchArgs& args, const RunOptions& options) {
  // What bench logs goes to stderr: stdout carries its JSON (or the suite file's name).
  log::setTerminal(log::verbosityOf(options), true);
  if (!args.suite.empty()) {
    if (args.withOutput) throw InputError("--with-output runs one case; it does not combine with --suite");
    return suiteCommand(args, options);
  }
  nlohmann::json result;
  bool lbmCase = true;
  if (args.caseFile.empty()) {
    if (!args.overrides.empty()) throw std::runtime_error("--set needs a case file");
    result = benchLbm(lbm::defaultBenchCase(), args, options);
  } else {
    const io::CaseDocument doc = io::CaseDocument::load(args.caseFile, args.overrides);
    const std::string solver = doc.root().at("solver").choice({"lbm", "md"});
    if (solver == "md") {
      // MD has one kernel family and no population layout: options that would choose among them are refused.
      if (!args.layouts.empty()) throw InputError("--layouts applies to LBM cases; an MD case has no population layout");
      lbmCase = false;
      RunOptions md = options;
      // One MD bench measures one kernel family (planMdDevice refuses hopper where it cannot run): a list would
      // otherwise measure only its last entry.
      if (args.kernels.size() > 1)
        throw InputError("--kernels takes one variant for an MD case (portable or hopper); run the bench once per "
                         "variant to compare them");
      if (!args.kernels.empty()) md.kernels = *kernelVariantFrom(args.kernels.front());
      md::BenchOptions b;
      b.steps = args.steps;
      b.repeats = args.repeats;
      result = md::bench(doc, md, b);
      if (args.withOutput) {
        md::OutputBenchOptions o;
        result["run_with_output"] = md::benchWithOutput(args.caseFile, args.overrides, md, o);
      }
    } else {
      result = benchLbm(io::parseLbmCase(doc), args, options);
    }
  }
  // The update-only figure first, then the same case as a user runs it, writing its output while it steps.
  if (args.withOutput && lbmCase) {
    lbm::OutputBenchOptions o;
    result["run_with_output"] = lbm::benchWithOutput(args.caseFile, args.overrides, options, o);
  }
  // Under mpiexec every rank took part; rank 0 reports.
  if (!mpi::isRoot()) return 0;
  const std::string text = result.dump(2) + "\n";
  std::fputs(text.c_str(), stdout);
  if (!args.json.empty()) io::writeFileAtomic(args.json, text);
  return 0;
}

}  // namespace hopsim::app
