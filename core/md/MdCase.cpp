// Names of MD settings, as case files spell them.
#include "core/md/MdCase.h"

namespace hopsim::md {
const char* toString(Precision p) {
  switch (p) {
    case Precision::Single: return "single";
    case Precision::Mixed: return "mixed";
    case Precision::Double: return "double";
  }
  return "?";
}
const char* toString(IntegratorType t) {
  switch (t) {
    case IntegratorType::Nve: return "nve";
    case IntegratorType::Langevin: return "langevin";
    case IntegratorType::NoseHoover: return "nose_hoover";
  }
  return "?";
}
}  // namespace hopsim::md
