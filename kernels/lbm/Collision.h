// Moments, equilibrium, BGK and TRT collision with Guo forcing: the physics every LBM backend shares.
//
// Populations are handled in shifted form, f~ = f - w (FluidX3D's trick): near rest the stored numbers are small,
// so single and half precision keep their significant digits, and density is 1 + sum(f~).
#pragma once

#include "kernels/common/HostDevice.h"
#include "kernels/lbm/Lattice.h"

namespace hopsim::lbm {

template <class T>
struct CollisionParams {
  T omega = T(1);        // 1 / tau (BGK rate; TRT symmetric rate)
  T omegaMinus = T(1);   // TRT antisymmetric rate from the magic parameter
  int trt = 0;
  T force[3] = {T(0), T(0), T(0)};  // body force density (Guo)
};

// Density deviation drho = rho - 1 and momentum of shifted populations.
template <class L, class T>
HOPSIM_HD void moments(const T* f, T& drho, T j[3]) {
  drho = T(0);
  j[0] = j[1] = j[2] = T(0);
HOPSIM_UNROLL
  for (int i = 0; i < L::Q; ++i) {
    drho += f[i];
    j[0] += T(L::c(i, 0)) * f[i];
    j[1] += T(L::c(i, 1)) * f[i];
    j[2] += T(L::c(i, 2)) * f[i];
  }
}

// Shifted second-order equilibrium: feq_i - w_i = w_i (drho + rho (3 c.u + 4.5 (c.u)^2 - 1.5 u.u)).
template <class L, class T>
HOPSIM_HD T equilibriumShifted(int i, T drho, T rho, const T u[3]) {
  const T cu = T(L::c(i, 0)) * u[0] + T(L::c(i, 1)) * u[1] + T(L::c(i, 2)) * u[2];
  const T uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  return L::template w<T>(i) * (drho + rho * (T(3) * cu + T(4.5) * cu * cu - T(1.5) * uu));
}

// Guo forcing source without its relaxation prefactor: w_i [3 (c_i - u).F + 9 (c_i.u)(c_i.F)].
template <class L, class T>
HOPSIM_HD T guoSource(int i, const T u[3], const T F[3]) {
  const T cx = T(L::c(i, 0)), cy = T(L::c(i, 1)), cz = T(L::c(i, 2));
  const T cu = cx * u[0] + cy * u[1] + cz * u[2];
  const T cF = cx * F[0] + cy * F[1] + cz * F[2];
  const T uF = u[0] * F[0] + u[1] * F[1] + u[2] * F[2];
  return L::template w<T>(i) * (T(3) * (cF - uF) + T(9) * cu * cF);
}

// Macroscopic velocity: u = (j + F/2) / rho for pre-collision populations (Guo's half-force shift).
template <class T>
HOPSIM_HD void velocity(T rho, const T j[3], const T F[3], T u[3]) {
  const T inv = T(1) / rho;
  u[0] = (j[0] + T(0.5) * F[0]) * inv;
  u[1] = (j[1] + T(0.5) * F[1]) * inv;
  u[2] = (j[2] + T(0.5) * F[2]) * inv;
}

// collide() with or without the Guo force terms (Forced = false: the body force is zero and they vanish).
template <class L, bool Forced, class T>
HOPSIM_HD void collideWith(T* f, const CollisionParams<T>& p, T& rhoOut, T u[3]) {
  T drho, j[3];
  moments<L>(f, drho, j);
  const T rho = T(1) + drho;
  velocity(rho, j, p.force, u);
  rhoOut = rho;
  if (!p.trt) {
    [[maybe_unused]] const T forcePrefactor = T(1) - T(0.5) * p.omega;
HOPSIM_UNROLL
    for (int i = 0; i < L::Q; ++i) {
      const T feq = equilibriumShifted<L>(i, drho, rho, u);
      if constexpr (Forced) f[i] += p.omega * (feq - f[i]) + forcePrefactor * guoSource<L>(i, u, p.force);
      else f[i] += p.omega * (feq - f[i]);
    }
    return;
  }
  // TRT: relax the symmetric and antisymmetric parts of each opposite pair at their own rates.
  [[maybe_unused]] const T prefPlus = T(1) - T(0.5) * p.omega;
  [[maybe_unused]] const T prefMinus = T(1) - T(0.5) * p.omegaMinus;
  {
    const T feq0 = equilibriumShifted<L>(0, drho, rho, u);
    if constexpr (Forced) f[0] += p.omega * (feq0 - f[0]) + prefPlus * guoSource<L>(0, u, p.force);
    else f[0] += p.omega * (feq0 - f[0]);
  }
HOPSIM_UNROLL
  for (int i = 1; i < L::Q; i += 2) {
    const int k = i + 1;
    const T eqi = equilibriumShifted<L>(i, drho, rho, u), eqk = equilibriumShifted<L>(k, drho, rho, u);
    const T fp = T(0.5) * (f[i] + f[k]), fm = T(0.5) * (f[i] - f[k]);
    const T ep = T(0.5) * (eqi + eqk), em = T(0.5) * (eqi - eqk);
    T dp, dm;
    if constexpr (Forced) {
      const T si = guoSource<L>(i, u, p.force), sk = guoSource<L>(k, u, p.force);
      const T sp = T(0.5) * (si + sk), sm = T(0.5) * (si - sk);
      dp = p.omega * (ep - fp) + prefPlus * sp;
      dm = p.omegaMinus * (em - fm) + prefMinus * sm;
    } else {
      dp = p.omega * (ep - fp);
      dm = p.omegaMinus * (em - fm);
    }
    f[i] += dp + dm;
    f[k] += dp - dm;
  }
}

template <class T>
HOPSIM_HD bool hasBodyForce(const CollisionParams<T>& p) {
  return p.force[0] != T(0) || p.force[1] != T(0) || p.force[2] != T(0);
}

// Relaxes f (pre-collision, shifted) in place to its post-collision values. Returns rho and u.
// Without a body force the Guo terms are zero and collideWith<L, false> skips them (their arithmetic is a sixth of
// an FP16 cell update, whose kernels are issue-bound: docs/performance.md). The GPU bulk kernels take Forced as a
// template parameter chosen at launch rather than this branch: code on both sides of a branch is compiled into
// different blocks, where the compiler fuses multiplies and adds differently from kernel to kernel, and kernels
// that must agree bitwise (one cell or two per thread, portable or Hopper) would not.
template <class L, class T>
HOPSIM_HD void collide(T* f, const CollisionParams<T>& p, T& rhoOut, T u[3]) {
  if (hasBodyForce(p)) collideWith<L, true>(f, p, rhoOut, u);
  else collideWith<L, false>(f, p, rhoOut, u);
}

// Moments of stored post-collision populations: Guo forcing adds F to the momentum, so u = (j - F/2) / rho.
template <class L, class T>
HOPSIM_HD void postCollisionMoments(const T* f, const T F[3], T& rho, T u[3]) {
  T drho, j[3];
  moments<L>(f, drho, j);
  rho = T(1) + drho;
  const T inv = T(1) / rho;
  u[0] = (j[0] - T(0.5) * F[0]) * inv;
  u[1] = (j[1] - T(0.5) * F[1]) * inv;
  u[2] = (j[2] - T(0.5) * F[2]) * inv;
}

}  // namespace hopsim::lbm
