// `hopsim bench`: throughput of a case (LBM: MLUPS against the copy bandwidth; MD: atom-steps/s) as JSON on stdout.
#include <cstdio>
#include <fstream>

#include "apps/Commands.h"
#include "io/AtomicFile.h"
#include "io/CaseReader.h"
#include "io/LbmCaseParser.h"
#include "core/Mpi.h"
#include "solvers/lbm/LbmBench.h"
#include "solvers/lbm/LbmRun.h"
#include "solvers/md/MdBench.h"

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

}  // namespace

int benchCommand(const BenchArgs& args, const RunOptions& options) {
  nlohmann::json result;
  if (args.caseFile.empty()) {
    if (!args.overrides.empty()) throw std::runtime_error("--set needs a case file");
    result = benchLbm(lbm::defaultBenchCase(), args, options);
  } else {
    const io::CaseDocument doc = io::CaseDocument::load(args.caseFile, args.overrides);
    const std::string solver = doc.root().at("solver").choice({"lbm", "md"});
    if (solver == "md") {
      // MD has one kernel family and no population layout: options that would choose among them are refused.
      if (!args.layouts.empty()) throw InputError("--layouts applies to LBM cases; an MD case has no population layout");
      RunOptions md = options;
      for (const auto& k : args.kernels) md.kernels = *kernelVariantFrom(k);  // planMdDevice refuses hopper
      md::BenchOptions b;
      b.steps = args.steps;
      b.repeats = args.repeats;
      result = md::bench(doc, md, b);
    } else {
      result = benchLbm(io::parseLbmCase(doc), args, options);
    }
  }
  // Under mpiexec every rank took part; rank 0 reports.
  if (!mpi::isRoot()) return 0;
  const std::string text = result.dump(2) + "\n";
  std::fputs(text.c_str(), stdout);
  if (!args.json.empty()) io::writeFileAtomic(args.json, text);
  return 0;
}

}  // namespace hopsim::app
