// Lattice constants and the shared collision physics: weights, isotropy, opposites, equilibrium moments.
#include <cmath>

#include "CatchCompat.h"
#include "core/lbm/Relaxation.h"
#include "kernels/lbm/Collision.h"

using namespace hopsim::lbm;

namespace {

template <class L>
void checkLattice() {
  INFO(L::name);
  double sum = 0;
  double m2[3][3] = {};
  double m4xxyy = 0, m4xxxx = 0;
  double m1[3] = {}, m3xxy = 0;
  for (int i = 0; i < L::Q; ++i) {
    const double w = L::template w<double>(i);
    sum += w;
    // opposite directions: c_opp = -c
    const int o = opposite(i);
    REQUIRE(o >= 0);
    REQUIRE(o < L::Q);
    CHECK(opposite(o) == i);
    for (int a = 0; a < 3; ++a) {
      CHECK(L::c(o, a) == -L::c(i, a));
      m1[a] += w * L::c(i, a);
      for (int b = 0; b < 3; ++b) m2[a][b] += w * L::c(i, a) * L::c(i, b);
    }
    m4xxxx += w * std::pow(L::c(i, 0), 4);
    m4xxyy += w * L::c(i, 0) * L::c(i, 0) * L::c(i, 1) * L::c(i, 1);
    m3xxy += w * L::c(i, 0) * L::c(i, 0) * L::c(i, 1);
    // no direction appears twice
    for (int k = 0; k < i; ++k) {
      bool same = true;
      for (int a = 0; a < 3; ++a) same = same && L::c(i, a) == L::c(k, a);
      CHECK_FALSE(same);
    }
  }
  CHECK(sum == Approx(1.0).epsilon(1e-15));
  const double cs2 = 1.0 / 3.0;
  for (int a = 0; a < L::D; ++a) {
    CHECK(std::abs(m1[a]) < 1e-15);
    for (int b = 0; b < L::D; ++b) CHECK(m2[a][b] == Approx(a == b ? cs2 : 0.0).margin(1e-15));
  }
  CHECK(std::abs(m3xxy) < 1e-15);
  // fourth-order isotropy: sum w c_x^4 = 3 cs^4, sum w c_x^2 c_y^2 = cs^4
  CHECK(m4xxxx == Approx(3 * cs2 * cs2).epsilon(1e-14));
  CHECK(m4xxyy == Approx(cs2 * cs2).epsilon(1e-14));
}

template <class L>
void checkEquilibriumMoments() {
  INFO(L::name);
  const double rho = 1.07, u[3] = {0.03, -0.05, L::D == 3 ? 0.02 : 0.0};
  double f[L::Q];
  for (int i = 0; i < L::Q; ++i) f[i] = equilibriumShifted<L>(i, rho - 1, rho, u);
  double drho, j[3];
  moments<L>(f, drho, j);
  CHECK(1 + drho == Approx(rho).epsilon(1e-14));
  for (int a = 0; a < 3; ++a) CHECK(j[a] == Approx(rho * u[a]).margin(1e-15));
  // momentum flux: sum f c_a c_b = rho cs^2 delta_ab + rho u_a u_b (with f = f~ + w)
  for (int a = 0; a < L::D; ++a)
    for (int b = 0; b < L::D; ++b) {
      double pi = 0;
      for (int i = 0; i < L::Q; ++i) pi += (f[i] + L::template w<double>(i)) * L::c(i, a) * L::c(i, b);
      CHECK(pi == Approx(rho * (a == b ? 1.0 / 3.0 : 0.0) + rho * u[a] * u[b]).margin(1e-15));
    }
}

template <class L>
void checkCollisionConservation(int trt) {
  INFO(L::name << " trt=" << trt);
  CollisionParams<double> p;
  p.omega = 1.0 / 0.8;
  p.trt = trt;
  p.omegaMinus = trtOmegaMinus(p.omega, 3.0 / 16.0);
  p.force[0] = 1e-3;
  p.force[1] = -2e-3;
  double f[L::Q];
  for (int i = 0; i < L::Q; ++i) f[i] = 0.01 * std::sin(1.3 * i + 0.2);  // arbitrary non-equilibrium state
  double drho0, j0[3];
  moments<L>(f, drho0, j0);
  double rho, u[3];
  collide<L>(f, p, rho, u);
  double drho1, j1[3];
  moments<L>(f, drho1, j1);
  CHECK(drho1 == Approx(drho0).margin(1e-15));  // mass conserved
  // Guo forcing adds exactly F to the momentum in one collision
  for (int a = 0; a < 3; ++a) CHECK(j1[a] == Approx(j0[a] + p.force[a]).margin(1e-15));
}

// The textbook update, one population at a time, as an independent reference for collide()'s pair form: the
// equilibrium and Guo's source of each population; BGK relaxes each at omega, TRT each opposite pair's symmetric
// and antisymmetric parts at omega and omegaMinus.
template <class L>
void textbookCollide(double* f, const CollisionParams<double>& p) {
  double drho, j[3], u[3];
  moments<L>(f, drho, j);
  const double rho = 1 + drho;
  velocity(rho, j, p.force, u);
  double feq[L::Q], source[L::Q];
  for (int i = 0; i < L::Q; ++i) {
    feq[i] = equilibriumShifted<L>(i, drho, rho, u);
    source[i] = guoSource<L>(i, u, p.force);
  }
  if (!p.trt) {
    for (int i = 0; i < L::Q; ++i) f[i] += p.omega * (feq[i] - f[i]) + (1 - p.omega / 2) * source[i];
    return;
  }
  double out[L::Q];
  for (int i = 0; i < L::Q; ++i) {
    const int k = opposite(i);
    const double plus = p.omega * ((feq[i] + feq[k]) / 2 - (f[i] + f[k]) / 2) +
                        (1 - p.omega / 2) * (source[i] + source[k]) / 2;
    const double minus = p.omegaMinus * ((feq[i] - feq[k]) / 2 - (f[i] - f[k]) / 2) +
                         (1 - p.omegaMinus / 2) * (source[i] - source[k]) / 2;
    out[i] = f[i] + plus + minus;
  }
  for (int i = 0; i < L::Q; ++i) f[i] = out[i];
}

template <class L>
void checkPairForm(int trt, bool forced) {
  INFO(L::name << " trt=" << trt << " forced=" << forced);
  CollisionParams<double> p;
  p.omega = 1.0 / 0.53;
  p.trt = trt;
  p.omegaMinus = trt ? trtOmegaMinus(p.omega, 3.0 / 16.0) : p.omega;
  if (forced) {
    p.force[0] = 1e-4;
    p.force[1] = -3e-4;
    p.force[2] = L::D == 3 ? 2e-4 : 0.0;
  }
  for (int state = 0; state < 4; ++state) {
    double a[L::Q], b[L::Q];
    // A flow near rest, one at Ma ~0.2 and two far from equilibrium (the deviations as large as the weights).
    const double scale[4] = {1e-4, 2e-2, 5e-2, 1e-1};
    for (int i = 0; i < L::Q; ++i) a[i] = b[i] = scale[state] * std::sin(1.7 * i + 0.4 * state + 0.3);
    double rho, u[3];
    collide<L>(a, p, rho, u);
    textbookCollide<L>(b, p);
    for (int i = 0; i < L::Q; ++i) CHECK(a[i] == Approx(b[i]).margin(4e-17));
  }
}

}  // namespace

TEST_CASE("lattice weights, opposites and isotropy", "[unit]") {
  checkLattice<D2Q9>();
  checkLattice<D3Q19>();
  checkLattice<D3Q27>();
}

TEST_CASE("equilibrium reproduces density, momentum and momentum flux", "[unit]") {
  checkEquilibriumMoments<D2Q9>();
  checkEquilibriumMoments<D3Q19>();
  checkEquilibriumMoments<D3Q27>();
}

TEST_CASE("BGK and TRT collisions conserve mass and add the body force to momentum", "[unit]") {
  for (int trt = 0; trt < 2; ++trt) {
    checkCollisionConservation<D2Q9>(trt);
    checkCollisionConservation<D3Q19>(trt);
    checkCollisionConservation<D3Q27>(trt);
  }
}

TEST_CASE("BGK and TRT in pair form give the textbook update of each population, with and without a body force",
          "[unit]") {
  for (int trt = 0; trt < 2; ++trt)
    for (bool forced : {false, true}) {
      checkPairForm<D2Q9>(trt, forced);
      checkPairForm<D3Q19>(trt, forced);
      checkPairForm<D3Q27>(trt, forced);
    }
}

TEST_CASE("TRT magic parameter relation", "[unit]") {
  const double omega = 1.0 / 0.9;
  const double om = trtOmegaMinus(omega, 3.0 / 16.0);
  CHECK((1 / omega - 0.5) * (1 / om - 0.5) == Approx(3.0 / 16.0).epsilon(1e-14));
}
