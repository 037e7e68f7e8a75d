// Names of backends, kernel variants, halo transports and bulk updates, as case files and logs spell them.
#include "core/DeviceSpec.h"

#include "core/DevicePlan.h"

namespace hopsim {

const char* toString(Backend b) {
  switch (b) {
    case Backend::Auto: return "auto";
    case Backend::Cpu: return "cpu";
    case Backend::Cuda: return "cuda";
  }
  return "?";
}

const char* toString(KernelVariant k) {
  switch (k) {
    case KernelVariant::Auto: return "auto";
    case KernelVariant::Portable: return "portable";
    case KernelVariant::Hopper: return "hopper";
  }
  return "?";
}

const char* toString(HaloTransport t) {
  switch (t) {
    case HaloTransport::Auto: return "auto";
    case HaloTransport::Staged: return "staged";
    case HaloTransport::Ipc: return "ipc";
  }
  return "?";
}

namespace {
// The value whose toString() is `name`, among the enum's values [0, count).
template <class E>
std::optional<E> fromName(std::string_view name, int count) {
  for (int i = 0; i < count; ++i)
    if (name == toString(static_cast<E>(i))) return static_cast<E>(i);
  return std::nullopt;
}
}  // namespace

std::optional<Backend> backendFrom(std::string_view name) { return fromName<Backend>(name, 3); }
std::optional<KernelVariant> kernelVariantFrom(std::string_view name) { return fromName<KernelVariant>(name, 3); }
std::optional<HaloTransport> haloTransportFrom(std::string_view name) { return fromName<HaloTransport>(name, 3); }

const char* lbm::toString(TileLoad t) {
  switch (t) {
    case TileLoad::Auto: return "auto";
    case TileLoad::Tma: return "tma";
    case TileLoad::Plain: return "plain";
  }
  return "?";
}

const char* lbm::toString(BulkUpdate b) {
  switch (b) {
    case BulkUpdate::Portable: return "portable";
    case BulkUpdate::HopperCluster: return "hopper-cluster";
    case BulkUpdate::HopperTemporal: return "hopper-temporal";
  }
  return "?";
}

}  // namespace hopsim
