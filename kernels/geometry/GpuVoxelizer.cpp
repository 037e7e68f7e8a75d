// The GPU voxeliser in builds without CUDA: there is no device to run it on.
#include "kernels/geometry/GpuVoxelizer.h"

#if !HOPSIM_WITH_CUDA
#include <stdexcept>

namespace hopsim::geometry {

bool gpuVoxelizerBuilt() { return false; }

std::vector<std::uint8_t> voxelizeOnGpu(const TriangleMesh&, std::array<long long, 3>, std::array<long long, 3>, int,
                                        GpuVoxelizeTimes*) {
  throw std::runtime_error("GPU voxelisation needs hopsim built with CUDA");
}

}  // namespace hopsim::geometry
#endif
