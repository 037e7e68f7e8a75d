// The one owner of the LBM relaxation parameters (lattice units, c_s^2 = 1/3): viscosity <-> tau, the BGK rate and
// the TRT antisymmetric rate from the magic parameter. Parser, solver, bench and validation all ask here.
#pragma once

namespace hopsim::lbm {

constexpr double tauFromViscosity(double nu) { return 3 * nu + 0.5; }
constexpr double viscosityFromTau(double tau) { return (tau - 0.5) / 3; }
// BGK rate, and the TRT symmetric rate.
constexpr double omegaFromTau(double tau) { return 1.0 / tau; }

// Rate of the antisymmetric TRT mode for a magic parameter Lambda = (tau+ - 1/2)(tau- - 1/2).
template <class T>
constexpr T trtOmegaMinus(T omegaPlus, T magic) {
  const T tauPlus = T(1) / omegaPlus;
  return T(1) / (magic / (tauPlus - T(0.5)) + T(0.5));
}

}  // namespace hopsim::lbm
