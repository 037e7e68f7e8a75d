// makeCudaEngine in builds without CUDA: a clear error instead of a link failure.
#include "solvers/md/MdEngine.h"

#include <stdexcept>

#if !HOPSIM_WITH_CUDA
namespace hopsim::md {
std::unique_ptr<MdEngine> makeCudaEngine(const EngineConfig&, int) {
  throw std::runtime_error("the cuda backend needs a build with CUDA (configure with -DHOPSIM_WITH_CUDA=ON)");
}
}  // namespace hopsim::md
#endif
