// Names of MD settings, as case files spell them, and the fcc lattice's geometry.
#include "core/md/MdCase.h"

#include <cmath>

namespace hopsim::md {

double fccCellSide(double density) { return std::cbrt(4.0 / density); }

Box FccLatticeSettings::box() const {
  const double a = fccCellSide(density);
  Box b;
  for (int d = 0; d < 3; ++d) b.length[d] = a * static_cast<double>(cells[d]);
  return b;
}

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
