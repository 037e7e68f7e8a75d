// The CPU backend with double precision (double populations), every lattice.
#include "kernels/lbm/cpu/CpuLbm.h"

namespace hopsim::lbm::cpu {

template std::unique_ptr<LbmBackend> makeCpuLbm<double>(const LbmSetup&, CpuCellUpdate);

}  // namespace hopsim::lbm::cpu
