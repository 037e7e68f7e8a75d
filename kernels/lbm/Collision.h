// Moments, equilibrium, BGK, TRT and regularised collision with Guo forcing and Smagorinsky LES: the physics every
// LBM backend shares.
//
// Populations are handled in shifted form, f~ = f - w (FluidX3D's trick): near rest the stored numbers are small,
// so single and half precision keep their significant digits, and density is 1 + sum(f~).
#pragma once

#include <cmath>

#include "kernels/common/HostDevice.h"
#include "kernels/lbm/Lattice.h"

namespace hopsim::lbm {

template <class T>
struct CollisionParams {
  T omega = T(1);        // 1 / tau (BGK rate; TRT symmetric rate)
  T omegaMinus = T(1);   // TRT antisymmetric rate from the magic parameter
  int trt = 0;
  T force[3] = {T(0), T(0), T(0)};  // body force density (Guo)
  // Smagorinsky LES (smagorinskyRates()): on, its constant 18 sqrt(2) Cs^2, and the TRT magic parameter that a
  // cell's antisymmetric rate keeps when its symmetric rate changes.
  int smagorinsky = 0;
  T smagorinskyC = T(0);
  T trtMagic = T(0);
  int regularized = 0;  // the regularised operator (collideWith()): trt is 0 then
};

// The collision's optional terms, a compile-time choice of every bulk kernel (collisionTerms(), made once per
// launch), so that a kernel carries only the code its case runs: kGuoTerms, the Guo body-force terms;
// kSmagorinskyTerms, the eddy viscosity of Smagorinsky LES; kRegularizedTerms, the regularised operator. The LES
// kernels always carry the Guo terms (with no body force they add zeros), and the regularised ones both (with
// Cs = 0 the eddy viscosity is zero and the rate the plain one, exactly): one variant each rather than two or four
// keeps the build's instantiations down. withTerms() lists the variants.
inline constexpr int kGuoTerms = 1;
inline constexpr int kSmagorinskyTerms = 2;
inline constexpr int kRegularizedTerms = 4;
inline constexpr int kLesTerms = kGuoTerms | kSmagorinskyTerms;
inline constexpr int kRegularizedLesTerms = kLesTerms | kRegularizedTerms;

template <class T>
HOPSIM_HD T squareRoot(T x) {
#if defined(__CUDA_ARCH__)
  return sqrt(x);  // CUDA's float and double overloads
#else
  return std::sqrt(x);
#endif
}

// Density deviation drho = rho - 1 and momentum of shifted populations. A momentum component adds or subtracts the
// populations whose lattice vector has a non-zero component on its axis: a compiler keeps the multiplies by zero
// of c_ia f_i (0 * f is -0 or NaN for some f): 38 of D3Q19's 76 operations here before.
template <class L, class T>
HOPSIM_HD void moments(const T* f, T& drho, T j[3]) {
  drho = T(0);
  j[0] = j[1] = j[2] = T(0);
HOPSIM_UNROLL
  for (int i = 0; i < L::Q; ++i) {
    drho += f[i];
HOPSIM_UNROLL
    for (int a = 0; a < 3; ++a) {
      if (L::c(i, a) > 0) j[a] += f[i];
      if (L::c(i, a) < 0) j[a] -= f[i];
    }
  }
}

// c_i . v for the lattice vector c_i, whose components are 0 or +-1: the sum of the components it selects, without
// the multiplies by zero that a compiler may not drop (0 * v is -0 or NaN for some v).
template <class L, class T>
HOPSIM_HD T latticeDot(int i, const T v[3]) {
  T s = T(0);
  bool any = false;
HOPSIM_UNROLL
  for (int a = 0; a < 3; ++a) {
    const int c = L::c(i, a);
    if (c == 0) continue;
    const T term = c > 0 ? v[a] : -v[a];
    s = any ? s + term : term;
    any = true;
  }
  return s;
}

// Shifted second-order equilibrium: feq_i - w_i = w_i (drho + rho (3 c.u + 4.5 (c.u)^2 - 1.5 u.u)).
template <class L, class T>
HOPSIM_HD T equilibriumShifted(int i, T drho, T rho, const T u[3]) {
  const T cu = latticeDot<L>(i, u);
  const T uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  return L::template w<T>(i) * (drho + rho * (T(3) * cu + T(4.5) * cu * cu - T(1.5) * uu));
}

// Guo forcing source without its relaxation prefactor: w_i [3 (c_i - u).F + 9 (c_i.u)(c_i.F)].
template <class L, class T>
HOPSIM_HD T guoSource(int i, const T u[3], const T F[3]) {
  const T cu = latticeDot<L>(i, u), cF = latticeDot<L>(i, F);
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

// The non-equilibrium stress Pi = sum_i c_i c_i (f_i - feq_i) of pre-collision populations, its six components
// (zz, xz, yz zero on 2-D lattices). The equilibrium's second moment is rho c_s^2 I + rho u u on these lattices,
// so with shifted populations Pi = sum_i c_i c_i f~_i - drho c_s^2 I - rho u u: six sums of the populations the
// update holds anyway (computing the Q equilibria first held them all in registers as well, and the GPU kernels
// spilled: docs/performance.md). u is the velocity with Guo's half-force shift, as the equilibrium's.
template <class T>
struct Stress {
  T xx, yy, zz, xy, xz, yz;
};

template <class L, class T>
HOPSIM_HD Stress<T> nonEquilibriumStress(const T* f, T drho, T rho, const T u[3]) {
  T sxx = T(0), syy = T(0), szz = T(0), sxy = T(0), sxz = T(0), syz = T(0);
HOPSIM_UNROLL
  for (int i = 1; i < L::Q; ++i) {
    const int cx = L::c(i, 0), cy = L::c(i, 1), cz = L::c(i, 2);
    // c_a c_b is 0 or +-1: only the non-zero products are summed (a multiply by a zero would not fold away).
    if (cx != 0) sxx += f[i];
    if (cy != 0) syy += f[i];
    if (cz != 0) szz += f[i];
    if (cx * cy != 0) sxy += T(cx * cy) * f[i];
    if (cx * cz != 0) sxz += T(cx * cz) * f[i];
    if (cy * cz != 0) syz += T(cy * cz) * f[i];
  }
  const T isotropic = drho / T(3);
  Stress<T> pi{sxx - isotropic - rho * u[0] * u[0], syy - isotropic - rho * u[1] * u[1], T(0),
               sxy - rho * u[0] * u[1], T(0), T(0)};
  if constexpr (L::D == 3) {
    pi.zz = szz - isotropic - rho * u[2] * u[2];
    pi.xz = sxz - rho * u[0] * u[2];
    pi.yz = syz - rho * u[1] * u[2];
  }
  return pi;
}

// Smagorinsky-Lilly LES: the relaxation rates of a cell whose viscosity is nu0 + nu_t, nu_t = (Cs Delta)^2 |S|
// (Delta = 1). The strain rate comes from the cell's non-equilibrium stress Pi = -2 rho c_s^2 tau S
// (Chapman-Enskog, lattice units), which holds tau itself: with tau = tau0 + 3 nu_t,
// tau^2 - tau0 tau - 9 sqrt(2) Cs^2 |Pi| / (2 rho) = 0, |Pi| = sqrt(Pi:Pi), so
//   tau = (tau0 + sqrt(tau0^2 + X)) / 2,  X = 18 sqrt(2) Cs^2 |Pi| / rho   (Hou et al. 1996),
// computed as the rate omega = omega0 * 2 / (1 + sqrt(1 + X omega0^2)), which is omega0 exactly when X = 0, so that
// LES with Cs = 0 relaxes bitwise as the plain operator does. TRT keeps its magic parameter Lambda: the
// antisymmetric rate follows the cell's symmetric one, omega- = 2 (2 - omega) / (4 Lambda omega + 2 - omega).
// Pi is taken without the Guo force's correction (-(uF + Fu)/2), as FluidX3D does.
template <class T>
HOPSIM_HD void smagorinskyRates(const Stress<T>& pi, T rho, const CollisionParams<T>& p, T& omega, T& omegaMinus) {
  T sum = pi.xx * pi.xx + pi.yy * pi.yy + T(2) * pi.xy * pi.xy;
  sum += pi.zz * pi.zz + T(2) * (pi.xz * pi.xz + pi.yz * pi.yz);
  const T x = p.smagorinskyC * squareRoot(sum) / rho;
  omega = p.omega * (T(2) / (T(1) + squareRoot(T(1) + x * p.omega * p.omega)));
  omegaMinus = x > T(0) ? T(2) * (T(2) - omega) / (T(4) * p.trtMagic * omega + T(2) - omega) : p.omegaMinus;
}

// The regularised operator (Latt & Chopard 2006): the non-equilibrium part of the populations replaced by its
// projection on the Hermite polynomials up to second order before relaxing,
//   f_i <- feq_i + (1 - omega) f1_i + (1 - omega / 2) S_i,
//   f1_i = w_i [c_i . m / c_s^2 + (c_i c_i - c_s^2 I) : Pi / (2 c_s^4)],
// so the stress relaxes at omega as with BGK (the projection keeps Pi: sum_i c_i c_i f1_i = Pi on D2Q9, D3Q19 and
// D3Q27, whose weights are isotropic to fourth order), while the higher, non-hydrodynamic moments of the
// non-equilibrium part (BGK's ghost modes) are dropped at every step. m = j - rho u = -F / 2 is the non-equilibrium
// momentum that Guo's half-force shift leaves in the populations; BGK relaxes it by 1 - omega too, and without it
// the update would add (3 - omega) F / 2 of momentum instead of F.
// The equilibrium, f1 and Guo's source S_i = w_i [3 c_i . F + 4.5 (c_i c_i - c_s^2 I) : (u F + F u)] are all Hermite
// expansions, so the post-collision populations are one, whose ten coefficients are computed once per cell:
//   f~_i = w_i [drho + 3 c_i . b + 4.5 sum_ab c_a c_b A_ab - 1.5 tr A],
//   b = rho u + (1 - omega) m + (1 - omega / 2) F = rho u + F / 2,
//   A = rho u u + (1 - omega) Pi + (1 - omega / 2) (u F + F u),
// a few additions per population instead of an equilibrium, a projection and a source (the arithmetic per cell
// keeps the kernels at the memory roofline: docs/performance.md).
template <class L, bool Forced, class T>
HOPSIM_HD void regularizedCollide(T* f, T drho, T rho, const T u[3], const Stress<T>& pi, T omega, const T F[3]) {
  const T keep = T(1) - omega;
  T bx = rho * u[0], by = rho * u[1], bz = rho * u[2];
  T axx = rho * u[0] * u[0] + keep * pi.xx, ayy = rho * u[1] * u[1] + keep * pi.yy;
  T azz = rho * u[2] * u[2] + keep * pi.zz;
  T axy = rho * u[0] * u[1] + keep * pi.xy, axz = rho * u[0] * u[2] + keep * pi.xz;
  T ayz = rho * u[1] * u[2] + keep * pi.yz;
  if constexpr (Forced) {
    const T pref = T(1) - T(0.5) * omega;
    bx += T(0.5) * F[0], by += T(0.5) * F[1], bz += T(0.5) * F[2];
    axx += pref * T(2) * u[0] * F[0], ayy += pref * T(2) * u[1] * F[1], azz += pref * T(2) * u[2] * F[2];
    axy += pref * (u[0] * F[1] + F[0] * u[1]);
    axz += pref * (u[0] * F[2] + F[0] * u[2]);
    ayz += pref * (u[1] * F[2] + F[1] * u[2]);
  }
  if constexpr (L::D == 2) azz = T(0);
  const T base = drho - T(1.5) * (axx + ayy + azz);
  // The terms of c_a = +1 and c_a = -1 along each axis, and 9 A_ab for c_a c_b = +-1.
  const T plus[3] = {T(4.5) * axx + T(3) * bx, T(4.5) * ayy + T(3) * by, T(4.5) * azz + T(3) * bz};
  const T minus[3] = {T(4.5) * axx - T(3) * bx, T(4.5) * ayy - T(3) * by, T(4.5) * azz - T(3) * bz};
  const T a9[3] = {T(9) * axy, T(9) * axz, T(9) * ayz};
HOPSIM_UNROLL
  for (int i = 0; i < L::Q; ++i) {
    const int c[3] = {L::c(i, 0), L::c(i, 1), L::c(i, 2)};
    T h = base;
HOPSIM_UNROLL
    for (int a = 0; a < 3; ++a) {
      if (c[a] > 0) h += plus[a];
      if (c[a] < 0) h += minus[a];
    }
    if (c[0] * c[1] > 0) h += a9[0];
    if (c[0] * c[1] < 0) h -= a9[0];
    if (c[0] * c[2] > 0) h += a9[1];
    if (c[0] * c[2] < 0) h -= a9[1];
    if (c[1] * c[2] > 0) h += a9[2];
    if (c[1] * c[2] < 0) h -= a9[2];
    f[i] = L::template w<T>(i) * h;
  }
}

// BGK and TRT, one opposite pair (i, k = i + 1) at a time. The pair shares its weight and c_k = -c_i, so its
// equilibria are e+ +- e- with the symmetric part e+ = w (drho - 1.5 rho u.u + 4.5 rho (c.u)^2) and the
// antisymmetric e- = 3 w rho c.u, and Guo's sources s+ +- s- with s+ = w (9 (c.u)(c.F) - 3 u.F), s- = 3 w c.F.
// TRT relaxes the pair's symmetric part f+ = (f_i + f_k) / 2 at omega and its antisymmetric part at omegaMinus;
// BGK is the same update with omegaMinus = omega (in exact arithmetic f_i + omega (e+ + e- - f_i)). Per pair: c.u
// (a sum of velocity components) and about a dozen adds and multiplies, where two full equilibria and their halves
// took some thirty (the FP16 kernels are issue-bound: docs/performance.md). The per-cell factors times the weight are
// the same expression for every pair of equal weight, which the compiler computes once.
template <class L, bool Forced, class T>
HOPSIM_HD void pairCollide(T* f, T drho, T rho, const T u[3], T omega, T omegaMinus, const T F[3]) {
  const T uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  const T halfPlus = T(0.5) * omega, halfMinus = T(0.5) * omegaMinus;
  // omega e+ = w (plusBase + plusSquare (c.u)^2), omegaMinus e- = w minusLinear c.u; with Guo's terms, the sources'
  // relaxation prefactors (1 - omega / 2) and (1 - omegaMinus / 2) folded in likewise.
  T plusBase = omega * (drho - T(1.5) * rho * uu);
  const T plusSquare = omega * T(4.5) * rho, minusLinear = omegaMinus * T(3) * rho;
  [[maybe_unused]] T sourceCross = T(0), sourceMinus = T(0);
  if constexpr (Forced) {
    const T prefPlus = T(1) - halfPlus, prefMinus = T(1) - halfMinus;
    plusBase -= prefPlus * T(3) * (u[0] * F[0] + u[1] * F[1] + u[2] * F[2]);
    sourceCross = prefPlus * T(9);
    sourceMinus = prefMinus * T(3);
  }
  f[0] += L::template w<T>(0) * plusBase - omega * f[0];
HOPSIM_UNROLL
  for (int i = 1; i < L::Q; i += 2) {
    const int k = i + 1;
    const T w = L::template w<T>(i);
    const T cu = latticeDot<L>(i, u);
    T dp = (w * plusSquare) * (cu * cu) + (w * plusBase - halfPlus * (f[i] + f[k]));
    T dm = (w * minusLinear) * cu - halfMinus * (f[i] - f[k]);
    if constexpr (Forced) {
      const T cF = latticeDot<L>(i, F);
      dp += (w * sourceCross) * (cu * cF);
      dm += (w * sourceMinus) * cF;
    }
    f[i] += dp + dm;
    f[k] += dp - dm;
  }
}

// collide() with the terms `Terms` (kGuoTerms, kSmagorinskyTerms, kRegularizedTerms): without kGuoTerms the body
// force is zero and its terms vanish.
template <class L, int Terms, class T>
HOPSIM_HD void collideWith(T* f, const CollisionParams<T>& p, T& rhoOut, T u[3]) {
  constexpr bool Forced = (Terms & kGuoTerms) != 0;
  T drho, j[3];
  moments<L>(f, drho, j);
  const T rho = T(1) + drho;
  velocity(rho, j, p.force, u);
  rhoOut = rho;
  T omega = p.omega, omegaMinus = p.omegaMinus;
  if constexpr ((Terms & (kSmagorinskyTerms | kRegularizedTerms)) != 0) {
    const Stress<T> pi = nonEquilibriumStress<L>(f, drho, rho, u);
    if constexpr ((Terms & kSmagorinskyTerms) != 0) smagorinskyRates(pi, rho, p, omega, omegaMinus);
    if constexpr ((Terms & kRegularizedTerms) != 0) {
      regularizedCollide<L, Forced>(f, drho, rho, u, pi, omega, p.force);
      return;
    }
  }
  pairCollide<L, Forced>(f, drho, rho, u, omega, p.trt ? omegaMinus : omega, p.force);
}

template <class T>
HOPSIM_HD bool hasBodyForce(const CollisionParams<T>& p) {
  return p.force[0] != T(0) || p.force[1] != T(0) || p.force[2] != T(0);
}

// The terms of the collision (kGuoTerms, kSmagorinskyTerms, kRegularizedTerms) that the case needs: one of the
// variants withTerms() lists.
template <class T>
HOPSIM_HD int collisionTerms(const CollisionParams<T>& p) {
  if (p.regularized) return kRegularizedLesTerms;
  if (p.smagorinsky) return kLesTerms;
  return hasBodyForce(p) ? kGuoTerms : 0;
}

// Calls run.template operator()<Terms>() with Terms = collisionTerms(p): the one place that lists the variants a
// kernel is compiled in (collide() below, the GPU kernels' launches, the cpu backend's rows).
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <class T, class Run>
HOPSIM_HD void withTerms(const CollisionParams<T>& p, Run&& run) {
  switch (collisionTerms(p)) {
    case kRegularizedLesTerms: run.template operator()<kRegularizedLesTerms>(); break;
    case kLesTerms: run.template operator()<kLesTerms>(); break;
    case kGuoTerms: run.template operator()<kGuoTerms>(); break;
    default: run.template operator()<0>();
  }
}

// Relaxes f (pre-collision, shifted) in place to its post-collision values. Returns rho and u.
// Without a body force the Guo terms are zero and collideWith<L, 0> skips them (their arithmetic is a sixth of
// an FP16 cell update, whose kernels are issue-bound: docs/performance.md). The GPU bulk kernels take the terms as
// a template parameter chosen at launch rather than this branch: code on both sides of a branch is compiled into
// different blocks, where the compiler fuses multiplies and adds differently from kernel to kernel, and kernels
// that must agree bitwise (one cell or two per thread, portable or Hopper) would not.
template <class L, class T>
HOPSIM_HD void collide(T* f, const CollisionParams<T>& p, T& rhoOut, T u[3]) {
  withTerms(p, [&]<int Terms>() { collideWith<L, Terms>(f, p, rhoOut, u); });
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
