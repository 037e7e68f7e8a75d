// The SI <-> lattice conversion factors of an LBM case, all derived from dx, dt and rho_ref.
#include "core/lbm/Units.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace hopsim::lbm {

UnitSystem UnitSystem::physical(const UnitScales& s, int dimensions) {
  for (const auto& [name, v] : {std::pair<const char*, double>{"length", s.length}, {"velocity", s.velocity},
                                {"density", s.density}, {"resolution", s.resolution}, {"mach", s.mach}})
    if (!(v > 0) || !std::isfinite(v))
      throw std::invalid_argument(std::string("unit scale ") + name + " must be positive and finite");
  if (dimensions != 2 && dimensions != 3) throw std::invalid_argument("a lattice has 2 or 3 dimensions");
  UnitSystem u;
  u.physical_ = true;
  u.scales_ = s;
  u.dimensions_ = dimensions;
  u.dx_ = s.length / s.resolution;
  u.latticeVelocity_ = s.mach * kLatticeSoundSpeed;
  u.dt_ = u.latticeVelocity_ * u.dx_ / s.velocity;
  return u;
}

double UnitSystem::factor(Quantity q) const {
  if (!physical_) return 1.0;
  const double dx = dx_, dt = dt_, rho = scales_.density;
  // A 2-D lattice sum covers a slab of one cell's depth: per metre of depth it is divided by dx.
  const double depth = dimensions_ == 2 ? dx : dx * dx;
  switch (q) {
    case Quantity::Length: return dx;
    case Quantity::Area: return dx * dx;
    case Quantity::Time: return dt;
    case Quantity::Velocity: return dx / dt;
    case Quantity::Viscosity: return dx * dx / dt;
    case Quantity::Density: return rho;
    case Quantity::Pressure: return rho * (dx / dt) * (dx / dt);
    case Quantity::Acceleration: return dx / (dt * dt);
    case Quantity::Mass: return rho * dx * depth;
    case Quantity::Force: return rho * dx * depth * dx / (dt * dt);
    case Quantity::Energy: return rho * dx * depth * (dx / dt) * (dx / dt);
    case Quantity::Enstrophy: return 1.0 / (dt * dt);
    case Quantity::PowerDensity: return rho * (dx / dt) * (dx / dt) / dt;
  }
  return 1.0;
}

const char* UnitSystem::unit(Quantity q) const {
  if (!physical_) return "";
  const bool plane = dimensions_ == 2;
  switch (q) {
    case Quantity::Length: return "m";
    case Quantity::Area: return "m^2";
    case Quantity::Time: return "s";
    case Quantity::Velocity: return "m/s";
    case Quantity::Viscosity: return "m^2/s";
    case Quantity::Density: return "kg/m^3";
    case Quantity::Pressure: return "Pa";
    case Quantity::Acceleration: return "m/s^2";
    case Quantity::Mass: return plane ? "kg/m" : "kg";
    case Quantity::Force: return plane ? "N/m" : "N";
    case Quantity::Energy: return plane ? "J/m" : "J";
    case Quantity::Enstrophy: return "1/s^2";
    case Quantity::PowerDensity: return "W/m^3";
  }
  return "";
}

double UnitSystem::densityFromPressure(double pascal) const {
  return 1.0 + toLattice(Quantity::Pressure, pascal) / kLatticeSoundSpeed2;
}

double UnitSystem::pressureFromDensity(double latticeDensity) const {
  return toPhysical(Quantity::Pressure, kLatticeSoundSpeed2 * (latticeDensity - 1.0));
}

const char* toString(Quantity q) {
  switch (q) {
    case Quantity::Length: return "length";
    case Quantity::Area: return "area";
    case Quantity::Time: return "time";
    case Quantity::Velocity: return "velocity";
    case Quantity::Viscosity: return "viscosity";
    case Quantity::Density: return "density";
    case Quantity::Pressure: return "pressure";
    case Quantity::Acceleration: return "acceleration";
    case Quantity::Mass: return "mass";
    case Quantity::Force: return "force";
    case Quantity::Energy: return "energy";
    case Quantity::Enstrophy: return "enstrophy";
    case Quantity::PowerDensity: return "power density";
  }
  return "?";
}

}  // namespace hopsim::lbm
