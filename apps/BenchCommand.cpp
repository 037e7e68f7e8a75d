// `hopsim bench`: throughput against the device's copy bandwidth (wired to the solvers' benchmarks).
#include "apps/Commands.h"
#include "io/CaseReader.h"

namespace hopsim::app {

int benchCommand(const BenchArgs&, const RunOptions&) {
  throw std::runtime_error("hopsim bench is not available in this build yet");
}

}  // namespace hopsim::app
