// Entry point of the MPI test binary (run under mpiexec): MPI around Catch2, one verdict for all ranks.
#include "CatchSession.h"
#include "core/Mpi.h"

int main(int argc, char* argv[]) {
  hopsim::mpi::Session session(argc, argv);
  const int failed = hopsim::testing::runCatchSession(argc, argv);
  // A test that failed on one rank fails the run on every rank, so mpiexec's exit code says so whichever it reports.
  const double anyFailed = hopsim::mpi::allreduceMax(failed != 0 ? 1.0 : 0.0);
  return anyFailed > 0 ? 1 : 0;
}
