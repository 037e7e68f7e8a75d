// `hopsim bench`: throughput of a case (LBM: MLUPS against the copy bandwidth; MD: atom-steps/s) as JSON on stdout.
#include <cstdio>
#include <fstream>

#include "apps/Commands.h"
#include "io/AtomicFile.h"
#include "io/CaseReader.h"
#include "solvers/md/MdBench.h"

namespace hopsim::app {

int benchCommand(const BenchArgs& args, const RunOptions& options) {
  nlohmann::json result;
  if (args.caseFile.empty()) throw std::runtime_error("the built-in LBM benchmark case needs the CUDA backend work");
  const io::CaseDocument doc = io::CaseDocument::load(args.caseFile, args.overrides);
  const std::string solver = doc.root().at("solver").choice({"lbm", "md"});
  if (solver == "md") {
    md::BenchOptions b;
    b.steps = args.steps;
    b.repeats = args.repeats;
    result = md::bench(doc, options, b);
  } else {
    throw std::runtime_error("LBM benchmarks need the CUDA backend work");
  }
  const std::string text = result.dump(2) + "\n";
  std::fputs(text.c_str(), stdout);
  if (!args.json.empty()) io::writeFileAtomic(args.json, text);
  return 0;
}

}  // namespace hopsim::app
