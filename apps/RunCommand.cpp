// `hopsim run CASE`: load the case, dispatch on its solver.
#include "apps/Commands.h"
#include "io/CaseReader.h"
#include "solvers/lbm/LbmRun.h"
#include "solvers/md/MdRun.h"

namespace hopsim::app {

int runCommand(const std::string& caseFile, const std::vector<std::string>& overrides, const RunOptions& options) {
  const io::CaseDocument doc = io::CaseDocument::load(caseFile, overrides);
  const std::string solver = doc.root().at("solver").choice({"lbm", "md"});
  if (solver == "lbm") return lbm::runCase(doc, options);
  return md::runCase(doc, options);
}

}  // namespace hopsim::app
