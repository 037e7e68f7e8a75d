// Lennard-Jones 12-6 pair interaction, shared by the CPU loops and the CUDA kernels.
#pragma once

#include "kernels/common/HostDevice.h"

namespace hopsim::md {

// Coefficients precomputed once so that a pair costs one division and no pow():
// F(r)/r = r^-8 (forceA r^-6 - forceB), U(r) = r^-6 (energyA r^-6 - energyB) - shift.
template <class T>
struct LjCoefficients {
  T forceA = 0, forceB = 0;    // 48 eps sigma^12, 24 eps sigma^6
  T energyA = 0, energyB = 0;  // 4 eps sigma^12, 4 eps sigma^6
  T cutoffSq = 0;
  T shift = 0;                 // U_unshifted(cutoff) when the potential is shifted, else 0
};

// Host-side construction in double, then narrowed: single-precision runs use the same rounded constants everywhere.
template <class T>
inline LjCoefficients<T> makeLjCoefficients(double epsilon, double sigma, double cutoff, bool shifted) {
  const double s6 = sigma * sigma * sigma * sigma * sigma * sigma;
  const double s12 = s6 * s6;
  LjCoefficients<T> c;
  c.forceA = static_cast<T>(48.0 * epsilon * s12);
  c.forceB = static_cast<T>(24.0 * epsilon * s6);
  c.energyA = static_cast<T>(4.0 * epsilon * s12);
  c.energyB = static_cast<T>(4.0 * epsilon * s6);
  c.cutoffSq = static_cast<T>(cutoff * cutoff);
  if (shifted) {
    const double ir6 = 1.0 / (cutoff * cutoff * cutoff * cutoff * cutoff * cutoff);
    c.shift = static_cast<T>(ir6 * (4.0 * epsilon * s12 * ir6 - 4.0 * epsilon * s6));
  }
  return c;
}

// For r^2 < cutoff^2 (checked by the caller), from ir2 = 1 / r^2: returns F(r)/r, so the force on i from j is
// (r_i - r_j) * result. (The GPU pair loop computes the reciprocal its own way, MdKernels.cuh's pairReciprocal.)
template <class T>
HOPSIM_HD T ljForceOverRFromIr2(T ir2, const LjCoefficients<T>& c) {
  const T ir6 = ir2 * ir2 * ir2;
  return ir6 * (c.forceA * ir6 - c.forceB) * ir2;
}

template <class T>
HOPSIM_HD T ljEnergyFromIr2(T ir2, const LjCoefficients<T>& c) {
  const T ir6 = ir2 * ir2 * ir2;
  return ir6 * (c.energyA * ir6 - c.energyB) - c.shift;
}

template <class T>
HOPSIM_HD T ljForceOverR(T r2, const LjCoefficients<T>& c) {
  return ljForceOverRFromIr2(T(1) / r2, c);
}

template <class T>
HOPSIM_HD T ljEnergy(T r2, const LjCoefficients<T>& c) {
  return ljEnergyFromIr2(T(1) / r2, c);
}

// One atom's force, and its share of energy and virial, summed over its neighbours in accumulator type A.
template <class P, class A>
struct PairSums {
  P fx = 0, fy = 0, fz = 0;
  A energy = 0, virial = 0;
};

// Adds the pair at displacement (dx, dy, dz) = r_i - r_j when it lies inside the cutoff. Every backend's force loop
// goes through here; they differ only in how they find j and the displacement.
template <class P, class A>
HOPSIM_HD void addPair(P dx, P dy, P dz, const LjCoefficients<P>& c, bool energy, PairSums<P, A>& s) {
  const P r2 = dx * dx + dy * dy + dz * dz;
  if (r2 < c.cutoffSq) {
    const P f = ljForceOverR(r2, c);
    s.fx += dx * f, s.fy += dy * f, s.fz += dz * f;
    if (energy) {
      s.energy += A(ljEnergy(r2, c));
      s.virial += A(r2) * A(f);
    }
  }
}

// Analytic long-range corrections for a truncated (not shifted) LJ fluid of uniform density rho beyond the cutoff,
// per particle and as a pressure (Allen & Tildesley; the form LAMMPS's pair_modify tail uses).
HOPSIM_HD double ljTailEnergyPerParticle(double rho, double epsilon, double sigma, double cutoff) {
  const double pi = 3.14159265358979323846;
  const double sr3 = (sigma / cutoff) * (sigma / cutoff) * (sigma / cutoff);
  const double sr9 = sr3 * sr3 * sr3;
  return 8.0 / 3.0 * pi * rho * epsilon * sigma * sigma * sigma * (sr9 / 3.0 - sr3);
}

HOPSIM_HD double ljTailPressure(double rho, double epsilon, double sigma, double cutoff) {
  const double pi = 3.14159265358979323846;
  const double sr3 = (sigma / cutoff) * (sigma / cutoff) * (sigma / cutoff);
  const double sr9 = sr3 * sr3 * sr3;
  return 16.0 / 3.0 * pi * rho * rho * epsilon * sigma * sigma * sigma * (2.0 / 3.0 * sr9 - sr3);
}

}  // namespace hopsim::md
