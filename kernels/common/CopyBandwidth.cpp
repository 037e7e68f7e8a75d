// Copy bandwidth for builds without CUDA: there is no device to measure.
#include "kernels/common/CopyBandwidth.h"

#if !HOPSIM_WITH_CUDA
namespace hopsim {
std::optional<CopyBandwidth> measureCopyBandwidth(int, std::size_t, int) { return std::nullopt; }
}  // namespace hopsim
#endif
