// Molecular dynamics entry point: parse, run, report.
#include "solvers/md/MdRun.h"

#include <cstdio>

#include "core/ExitCode.h"
#include "core/Mpi.h"
#include "io/md/MdCaseParser.h"
#include "solvers/md/MdSimulation.h"

namespace hopsim::md {

int runCase(const io::CaseDocument& doc, const RunOptions& options) {
  const MdCase c = io::md::parseMdCase(doc);
  if (!options.restart.empty())
    throw InputError("--restart: MD runs do not write or read checkpoints yet (LBM runs do); start the MD case "
                     "afresh");
  // Under mpiexec every rank reads the case; rank 0 speaks for them. More than one rank decomposes the box.
  if (!options.quiet && mpi::isRoot())
    for (const auto& w : doc.warnings()) std::fprintf(stderr, "%s\n", w.c_str());
  const MdRunResult r = runMd(c, options, doc.toJson());
  if (!r.ok) return kExitUnstable;
  if (r.stopSignal == 0) return kExitOk;
  // MD writes no checkpoint yet: SIGUSR1 ends it as SIGTERM does, not with kExitCheckpointed, on which a batch script
  // would requeue a run that can only start over.
  return r.stopSignal == SIGUSR1 ? kExitTerminated : exitCodeForSignal(r.stopSignal);
}

}  // namespace hopsim::md
