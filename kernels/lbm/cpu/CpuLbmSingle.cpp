// The CPU backend with single precision (float populations), every lattice.
#include "kernels/lbm/cpu/CpuLbm.h"

namespace hopsim::lbm::cpu {

template std::unique_ptr<LbmBackend> makeCpuLbm<float>(const LbmSetup&, CpuCellUpdate);

}  // namespace hopsim::lbm::cpu
