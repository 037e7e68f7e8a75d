// Thermodynamic output with LAMMPS's conventions (units lj, thermo_modify norm yes).
#pragma once

#include <string>

#include "core/md/MdCase.h"
#include "kernels/md/MdEngine.h"

namespace hopsim::md {

struct ThermoRow {
  long long step = 0;
  double time = 0;
  double temp = 0;    // 2 KE / (k (3N - 3))
  double pe = 0;      // per particle, tail correction included when enabled
  double ke = 0;      // per particle
  double etotal = 0;  // pe + ke
  double press = 0;   // (2 KE + sum r.f) / (3V) (+ tail): LAMMPS's kinetic part dof kT / (3V) = (N-1) kT / V
  bool finite = true;
};

ThermoRow makeThermoRow(const RawThermo& raw, std::size_t n, double volume, const LjSettings& lj, long long step,
                        double time);

}  // namespace hopsim::md
