// What the run loops learn between chunks of steps: a recorded signal, and the wall-clock checkpoint interval.
#include <csignal>
#include <thread>

#include "CatchCompat.h"
#include "core/ExitCode.h"
#include "core/Interrupt.h"
#include "solvers/common/RunControl.h"

using hopsim::CheckpointSpec;
using hopsim::RunControl;
namespace interrupt = hopsim::interrupt;

TEST_CASE("a recorded signal reaches the run loop with its exit code and name", "[unit][signals]") {
  interrupt::clear();
  const RunControl control(hopsim::mpi::Comm::self(), {});
  CHECK(control.poll().signal == 0);
  const int signal = GENERATE(SIGINT, SIGTERM, SIGUSR1);
  interrupt::request(signal);
  CHECK(control.poll().signal == signal);
  CHECK_FALSE(control.poll().wallCheckpointDue);
  interrupt::clear();
  CHECK(control.poll().signal == 0);
  CHECK(hopsim::exitCodeForSignal(signal) == (signal == SIGINT ? 130 : signal == SIGTERM ? 143 : 75));
  CHECK(interrupt::signalName(signal) == (signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "SIGUSR1"));
}

TEST_CASE("the wall-clock checkpoint interval comes due and starts again after a checkpoint", "[unit][checkpoint]") {
  CheckpointSpec spec;
  spec.wallMinutes = 0.05 / 60;  // 50 ms
  RunControl control(hopsim::mpi::Comm::self(), spec);
  CHECK_FALSE(control.poll().wallCheckpointDue);
  std::this_thread::sleep_for(std::chrono::milliseconds(80));
  CHECK(control.poll().wallCheckpointDue);
  control.checkpointed();
  CHECK_FALSE(control.poll().wallCheckpointDue);
  // Without wall_minutes it never comes due.
  const RunControl steps(hopsim::mpi::Comm::self(), CheckpointSpec{100, 0});
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK_FALSE(steps.poll().wallCheckpointDue);
}
