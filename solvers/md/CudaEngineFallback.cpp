// makeCudaEngine and the decomposed engine's GPU half in builds without CUDA: a clear error instead of a link failure.
#include "kernels/md/MdEngine.h"

#include <stdexcept>

#include "kernels/md/DomainMdDevice.h"

#if !HOPSIM_WITH_CUDA
namespace hopsim::md {

namespace {
[[noreturn]] void noCuda() {
  throw std::runtime_error("the cuda backend needs a build with CUDA (configure with -DHOPSIM_WITH_CUDA=ON)");
}
}  // namespace

std::unique_ptr<MdEngine> makeCudaEngine(const EngineConfig&, int) { noCuda(); }

template <class S>
std::unique_ptr<DomainMdDevice<S>> makeDomainMdDevice(const DomainDeviceConfig&) {
  noCuda();
}
template std::unique_ptr<DomainMdDevice<float>> makeDomainMdDevice<float>(const DomainDeviceConfig&);
template std::unique_ptr<DomainMdDevice<double>> makeDomainMdDevice<double>(const DomainDeviceConfig&);

}  // namespace hopsim::md
#endif
