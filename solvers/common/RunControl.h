// What the ranks of a run agree on between chunks of steps: whether a signal asks it to stop, and whether the
// wall-clock interval of output.checkpoint has passed. One small reduction per check.
#pragma once

#include <chrono>

#include "core/CheckpointSpec.h"
#include "core/Mpi.h"

namespace hopsim {

class RunControl {
 public:
  RunControl(const mpi::Comm& comm, const CheckpointSpec& checkpoint);

  struct Verdict {
    int signal = 0;                  // SIGINT, SIGTERM or SIGUSR1 received by some rank; 0: none
    bool wallCheckpointDue = false;  // wall_minutes have passed since the run started or last checkpointed
  };
  // Collective: every rank calls it at the same step and gets the same verdict (rank 0's clock decides the time).
  Verdict poll() const;
  // A checkpoint was written: the wall-clock interval starts again.
  void checkpointed() { since_ = std::chrono::steady_clock::now(); }

 private:
  mpi::Comm comm_;
  double wallSeconds_;
  std::chrono::steady_clock::time_point since_;
};

}  // namespace hopsim
