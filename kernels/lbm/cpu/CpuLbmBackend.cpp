// The CPU backend's factory: the storage type's backend (kernels/lbm/cpu/CpuLbm.h, one source file per type).
#include "kernels/lbm/cpu/CpuLbmBackend.h"

#include <stdexcept>

namespace hopsim::lbm {

namespace cpu {
template <class S>
std::unique_ptr<LbmBackend> makeCpuLbm(const LbmSetup& s, CpuCellUpdate update);
}  // namespace cpu

std::unique_ptr<LbmBackend> makeCpuBackend(const LbmSetup& s, CpuCellUpdate update) {
  switch (s.precision) {
    case Precision::Double: return cpu::makeCpuLbm<double>(s, update);
    case Precision::Single: return cpu::makeCpuLbm<float>(s, update);
    case Precision::Half: return cpu::makeCpuLbm<_Float16>(s, update);
  }
  throw std::logic_error("unknown precision");
}

std::unique_ptr<LbmBackend> makeCpuBackend(const LbmSetup& s) { return makeCpuBackend(s, CpuCellUpdate::BulkRows); }

#if !HOPSIM_WITH_CUDA
std::unique_ptr<LbmBackend> makeCudaBackend(const LbmSetup&, const DevicePlan&) {
  throw std::runtime_error("this hopsim was built without CUDA; configure with -DHOPSIM_WITH_CUDA=ON");
}
#endif

}  // namespace hopsim::lbm
