// Molecular dynamics entry point: parse, run (or continue from a checkpoint with --restart), report.
#include "solvers/md/MdRun.h"

#include "core/ExitCode.h"
#include "core/Log.h"
#include "core/Mpi.h"
#include "io/md/MdCaseParser.h"
#include "solvers/md/MdSimulation.h"

namespace hopsim::md {

int runCase(const io::CaseDocument& doc, const RunOptions& options) {
  const MdCase c = io::md::parseMdCase(doc);
  // Under mpiexec every rank reads the case; rank 0 speaks for them. More than one rank decomposes the box. The run
  // puts these lines into its log file once it opens it.
  if (mpi::isRoot())
    for (const auto& w : doc.warnings()) log::warning("{}", w);
  const MdRunResult r = runMd(c, options, doc.toJson());
  if (!r.ok) return kExitUnstable;
  if (r.stopSignal == 0) return kExitOk;
  // SIGUSR1 wrote a checkpoint (kExitCheckpointed: a batch script requeues the job with --restart); SIGINT and
  // SIGTERM wrote one where the case sets output.checkpoint, and exit 130 and 143 all the same. A run whose output is
  // switched off writes no checkpoint: SIGUSR1 then ends it as SIGTERM does, so that nothing requeues a run that
  // can only start over.
  if (r.stopSignal == SIGUSR1 && !r.checkpointed) return kExitTerminated;
  return exitCodeForSignal(r.stopSignal);
}

}  // namespace hopsim::md
