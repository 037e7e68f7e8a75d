// Molecular dynamics entry point (the solver lands with the MD work).
#include "solvers/md/MdRun.h"

namespace hopsim::md {
int runCase(const io::CaseDocument& doc, const RunOptions&) {
  doc.root().fail("the md solver is not built yet");
}
}  // namespace hopsim::md
