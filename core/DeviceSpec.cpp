// Names of backends, kernel variants and halo transports, as case files and logs spell them.
#include "core/DeviceSpec.h"

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

}  // namespace hopsim
