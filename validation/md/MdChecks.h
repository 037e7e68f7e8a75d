// The MD validation checks, parameterised so that CI can run short variants of the long ones.
#pragma once

#include <string>
#include <vector>

#include "validation/Validation.h"

namespace hopsim::validation::md {

// Forces of the CPU engine (double) vs central differences of its energy, random liquid-like configuration.
Row forcesVsFiniteDifferences(int particles, unsigned seed);

// Step 0 of the LAMMPS LJ benchmark (32,000 atoms): potential energy and pressure vs the numbers LAMMPS prints
// (they do not depend on the random velocities: the temperature is rescaled exactly).
std::vector<Row> lammpsBenchmarkStepZero(const Context& ctx);

// LAMMPS and hopsim run the same data file (NVE, double) for `steps`; largest relative thermo difference.
// `variant`: "plain" (lj/cut 2.5), "shift" (pair_modify shift yes) or "tail" (pair_modify tail yes; LAMMPS refuses
// both at once). A skipped row when no LAMMPS.
std::vector<Row> lammpsPeer(const Context& ctx, const std::string& variant, long long steps);

// NVE at the benchmark state with a shifted potential: drift of etotal per atom (linear fit x duration).
Row nveEnergyDrift(const Context& ctx, int cells, long long steps);

// NVT (Langevin) mean potential energy per particle at T* = 0.85, rc = 3 with tail corrections, N = 500,
// against the NIST table: within 3 combined standard errors and within 0.02.
std::vector<Row> nistLjEnergy(const Context& ctx, double density, long long productionSteps);

// True when the row only says that the check could not run (e.g. no LAMMPS here).
bool isSkipped(const Row& r);

}  // namespace hopsim::validation::md
