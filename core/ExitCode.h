// The exit codes of every hopsim command (README, "Exit codes"), and the error that means "bad input".
#pragma once

#include <csignal>
#include <stdexcept>
#include <string>

namespace hopsim {

enum ExitCode : int {
  kExitOk = 0,        // done
  kExitFailure = 1,   // a failure: validation failed, an I/O or device error
  kExitBadInput = 2,  // bad input: the case file or the command line (CLI11's parse errors included)
  kExitUnstable = 3,  // the simulation became unstable (LBM and MD)
  // Stopped by SIGUSR1 after writing a checkpoint: sysexits.h's EX_TEMPFAIL, "try again later" (a batch script
  // requeues the job on it and the run continues with --restart).
  kExitCheckpointed = 75,
  kExitInterrupted = 130,  // stopped by SIGINT (128 + 2, what a shell reports for it)
  kExitTerminated = 143,   // stopped by SIGTERM (128 + 15)
};

// The exit code of a run stopped by `signal` (SIGINT, SIGTERM or SIGUSR1).
inline int exitCodeForSignal(int signal) {
  if (signal == SIGUSR1) return kExitCheckpointed;
  if (signal == SIGINT) return kExitInterrupted;
  return kExitTerminated;
}

// Input the user can correct that has no place in a case file to point at (a command-line value, an option the
// solver cannot honour). io::CaseError, which has one, derives from it. Commands exit kExitBadInput on it.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace hopsim
