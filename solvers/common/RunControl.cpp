// Signals and the wall-clock checkpoint interval, agreed over the ranks.
#include "solvers/common/RunControl.h"

#include <vector>

#include "core/Interrupt.h"

namespace hopsim {

RunControl::RunControl(const mpi::Comm& comm, const CheckpointSpec& checkpoint)
    : comm_(comm), wallSeconds_(60.0 * checkpoint.wallMinutes), since_(std::chrono::steady_clock::now()) {}

RunControl::Verdict RunControl::poll() const {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - since_).count();
  const bool wallDue = wallSeconds_ > 0 && comm_.isRoot() && elapsed >= wallSeconds_;
  // The largest signal number wins where ranks saw different ones: the same choice on every rank.
  std::vector<double> flags{static_cast<double>(interrupt::requested()), wallDue ? 1.0 : 0.0};
  if (comm_.size() > 1) comm_.allreduceMax(flags);
  return {static_cast<int>(flags[0]), flags[1] > 0};
}

}  // namespace hopsim
