// Physical (SI) units of an LBM case: the scales a case's `units:` section gives, the lattice spacing and time step
// they fix, and the one place that converts a dimensional value between SI and lattice units.
#pragma once

namespace hopsim::lbm {

// A dimensional quantity a case reads or a run writes. In 2-D, Mass, Force and Energy are per metre of depth: a 2-D
// lattice is one cell thick, and its sums stand for a slab of unit depth.
// Enstrophy is a mean of |curl u|^2 / 2 (1/s^2); PowerDensity a rate of energy per volume (W/m^3, the kinetic-energy
// dissipation rate).
enum class Quantity {
  Length, Area, Time, Velocity, Viscosity, Density, Pressure, Acceleration, Mass, Force, Energy, Enstrophy,
  PowerDensity
};

// What a `units:` section gives (README, "Physical units"): L, U, rho_ref, cells per L and the lattice Mach number
// of U. The viscosity is not among them: it is the case's, converted like any other value.
struct UnitScales {
  double length = 1;      // L [m]
  double velocity = 1;    // U [m/s]
  double density = 1;     // rho_ref [kg/m^3], lattice density 1
  double resolution = 1;  // cells per L
  double mach = 0;        // lattice Mach number of U: u_lat = mach * c_s
};

// SI value = lattice value * factor(q). Default-constructed it is lattice units: every factor 1 and isPhysical()
// false, so a lattice-unit case converts through the same calls and nothing changes.
class UnitSystem {
 public:
  UnitSystem() = default;
  // dx = L / resolution, u_lat = mach / sqrt(3), dt = u_lat dx / U. Throws std::invalid_argument unless every scale
  // is positive and finite and dimensions is 2 or 3.
  static UnitSystem physical(const UnitScales& scales, int dimensions);

  bool isPhysical() const { return physical_; }
  const UnitScales& scales() const { return scales_; }
  int dimensions() const { return dimensions_; }
  double dx() const { return dx_; }                           // m per lattice spacing
  double dt() const { return dt_; }                           // s per time step
  double latticeVelocity() const { return latticeVelocity_; }  // U in lattice units

  double factor(Quantity q) const;
  double toLattice(Quantity q, double si) const { return si / factor(q); }
  double toPhysical(Quantity q, double lattice) const { return lattice * factor(q); }
  // The SI unit of q ("m/s", "N/m" for a 2-D force); "" in lattice units.
  const char* unit(Quantity q) const;

  // The lattice density of a pressure relative to the reference (p = c_s^2 (rho - 1) in lattice units), and back.
  double densityFromPressure(double pascal) const;
  double pressureFromDensity(double latticeDensity) const;
  // The time of a step: step * dt (the step itself in lattice units).
  double time(long long step) const { return static_cast<double>(step) * dt_; }

  // The relative compressibility error LBM makes at lattice Mach number `mach`: of the order of Ma^2.
  static double compressibilityError(double mach) { return mach * mach; }

 private:
  bool physical_ = false;
  UnitScales scales_;
  int dimensions_ = 3;
  double dx_ = 1, dt_ = 1, latticeVelocity_ = 1;
};

// The lattice speed of sound, 1/sqrt(3), and its square.
inline constexpr double kLatticeSoundSpeed = 0.57735026918962576;
inline constexpr double kLatticeSoundSpeed2 = 1.0 / 3.0;

const char* toString(Quantity q);

}  // namespace hopsim::lbm
