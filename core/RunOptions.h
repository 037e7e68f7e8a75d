// What the command line adds to a case when it is run (hopsim run/validate/bench).
#pragma once

#include <optional>
#include <string>

#include "core/DeviceSpec.h"

namespace hopsim {

struct RunOptions {
  std::string outputDir;                  // replaces output.dir when not empty
  std::string restart;                    // --restart: continue from this checkpoint (or the newest in a folder)
  std::optional<Backend> backend;         // --backend
  std::optional<KernelVariant> kernels;   // --kernels
  bool quiet = false;                     // the terminal shows warnings and errors only (--quiet; validate, tests)
  bool verbose = false;                   // debug lines too, on the terminal and in hopsim.log (--verbose)
  bool writeOutput = true;                // false: run in memory only (tests, validation)
  bool syncOutput = false;                // fields written and observables read back before the run goes on, as
                                          // HOPSIM_SYNC_OUTPUT=1 (the reference for the overlapped output's tests)
};

}  // namespace hopsim
