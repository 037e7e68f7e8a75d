// When a run writes checkpoints (the case's output.checkpoint): every N steps, every M minutes of wall time, or both.
#pragma once

namespace hopsim {

struct CheckpointSpec {
  long long every = 0;     // steps between checkpoints; 0: not by steps
  double wallMinutes = 0;  // wall-clock minutes between checkpoints; 0: not by time
  bool enabled() const { return every > 0 || wallMinutes > 0; }
};

}  // namespace hopsim
