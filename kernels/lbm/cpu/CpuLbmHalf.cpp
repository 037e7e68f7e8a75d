// The CPU backend with FP16 storage (_Float16 populations), every lattice.
#include "kernels/lbm/cpu/CpuLbm.h"

namespace hopsim::lbm::cpu {

template std::unique_ptr<LbmBackend> makeCpuLbm<_Float16>(const LbmSetup&, CpuCellUpdate);

}  // namespace hopsim::lbm::cpu
