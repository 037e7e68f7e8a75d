// Parser of the `device` section.
#include "io/DeviceSpecParser.h"

namespace hopsim::io {

DeviceSpec parseDeviceSpec(const CaseNode& root) {
  DeviceSpec spec;
  const auto device = root.find("device");
  if (!device) return spec;
  device->checkKeys({"backend", "kernels", "gpu", "ranks", "halo"});
  if (const auto b = device->find("backend")) {
    spec.backend = *backendFrom(b->choice({"auto", "cpu", "cuda"}));
    if (spec.backend == Backend::Cuda && !HOPSIM_WITH_CUDA)
      b->fail("backend 'cuda' needs a build with CUDA (configure with -DHOPSIM_WITH_CUDA=ON and nvcc on the PATH)");
  }
  if (const auto k = device->find("kernels")) spec.kernels = *kernelVariantFrom(k->choice({"auto", "portable", "hopper"}));
  if (const auto g = device->find("gpu")) spec.gpu = static_cast<int>(g->integer(0, 1023));
  if (const auto r = device->find("ranks")) {
    const auto v = r->integers(1, 3);
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (v[i] < 1) (*r)[i].fail("ranks must be at least 1 along each axis");
      spec.ranks[i] = static_cast<int>(v[i]);
    }
    for (std::size_t i = v.size(); i < 3; ++i) spec.ranks[i] = 1;
  }
  if (const auto h = device->find("halo")) spec.halo = *haloTransportFrom(h->choice({"auto", "staged", "ipc"}));
  return spec;
}

}  // namespace hopsim::io
