// The regularised collision operator (kernels/lbm/Collision.h, collideWith<L, kRegularizedLesTerms>): one cell's
// post-collision populations against the projection on the second-order Hermite polynomials computed here from the
// full 3x3 second moment, mass and momentum kept, the stress relaxed at the rate the viscosity sets (and at the LES
// rate with Smagorinsky on); the Guo force's momentum; a body-force channel's profile and the 2-D Taylor-Green
// vortex's decay rate on the cpu backend; the case syntax.
#include <array>
#include <cmath>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "CatchCompat.h"
#include "LbmCaseText.h"
#include "core/lbm/Relaxation.h"
#include "kernels/lbm/Collision.h"
#include "solvers/lbm/LbmSimulation.h"

namespace lbm = hopsim::lbm;
using hopsim::testing::expectError;
using hopsim::testing::parseCaseText;

namespace {

// A pre-collision cell: the equilibrium of (rho, u) plus a random part with no mass and no momentum, which has
// components along every moment above the first, the non-hydrodynamic ones included.
template <class L>
std::vector<double> cellOffEquilibrium(double rho, const double u[3], double amplitude, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> uniform(-amplitude, amplitude);
  std::vector<double> d(L::Q);
  for (double& x : d) x = uniform(gen);
  for (int a = -1; a < L::D; ++a) {
    double dot = 0, norm = 0;
    for (int i = 0; i < L::Q; ++i) {
      const double v = a < 0 ? 1.0 : L::c(i, a);
      dot += v * d[i];
      norm += v * v;
    }
    for (int i = 0; i < L::Q; ++i) d[i] -= dot / norm * (a < 0 ? 1.0 : L::c(i, a));
  }
  std::vector<double> f(L::Q);
  for (int i = 0; i < L::Q; ++i) f[i] = lbm::equilibriumShifted<L>(i, rho - 1, rho, u) + d[i];
  return f;
}

// sum_i c_ia c_ib g_i over the lattice's dimensions, as a 3x3 matrix (zero rows and columns beyond them).
template <class L>
std::array<double, 9> secondMoment(const std::vector<double>& g) {
  std::array<double, 9> m{};
  for (int i = 0; i < L::Q; ++i)
    for (int a = 0; a < L::D; ++a)
      for (int b = 0; b < L::D; ++b) m[3 * a + b] += L::c(i, a) * L::c(i, b) * g[i];
  return m;
}

// w_i / (2 c_s^4) (c_i c_i - c_s^2 I) : Pi, written out over all nine components.
template <class L>
double hermiteProjection(int i, const std::array<double, 9>& pi) {
  double h = 0;
  for (int a = 0; a < L::D; ++a)
    for (int b = 0; b < L::D; ++b) h += (L::c(i, a) * L::c(i, b) - (a == b ? 1.0 / 3 : 0.0)) * pi[3 * a + b];
  return L::template w<double>(i) * 4.5 * h;
}

lbm::CollisionParams<double> regularizedParams(double tau) {
  lbm::CollisionParams<double> p;
  p.omega = p.omegaMinus = lbm::omegaFromTau(tau);
  p.regularized = 1;
  return p;
}

template <class L>
void checkCell(unsigned seed, bool forced) {
  const double rho = 1.02, u[3] = {0.05, -0.03, L::D == 3 ? 0.02 : 0.0}, tau = 0.53;
  lbm::CollisionParams<double> p = regularizedParams(tau);
  if (forced) p.force[0] = 3e-4, p.force[1] = -2e-4, p.force[2] = L::D == 3 ? 1e-4 : 0.0;
  // The populations whose Guo velocity is u: momentum j = rho u - F / 2.
  double uStart[3];
  for (int a = 0; a < 3; ++a) uStart[a] = u[a] - 0.5 * p.force[a] / rho;
  std::vector<double> f = cellOffEquilibrium<L>(rho, uStart, 0.01, seed);
  // Its velocity with the half-force shift is u, and its non-equilibrium momentum j - rho u = -F / 2.
  std::vector<double> feq(L::Q), neq(L::Q);
  for (int i = 0; i < L::Q; ++i) {
    feq[i] = lbm::equilibriumShifted<L>(i, rho - 1, rho, u);
    neq[i] = f[i] - feq[i];
  }
  const auto pi = secondMoment<L>(neq);
  const std::vector<double> before = f;
  double rhoOut, uOut[3];
  lbm::collideWith<L, lbm::kRegularizedLesTerms>(f.data(), p, rhoOut, uOut);
  INFO(L::name << " seed " << seed << (forced ? " forced" : ""));
  CHECK(rhoOut == Approx(rho).epsilon(1e-14));
  for (int a = 0; a < L::D; ++a) CHECK(uOut[a] == Approx(u[a]).epsilon(1e-12));
  // Every population: the equilibrium, (1 - omega) times the projection (first order: the non-equilibrium
  // momentum), the Guo source (BGK's prefactor).
  const double omega = 1 / tau;
  double worst = 0, offProjection = 0;
  for (int i = 0; i < L::Q; ++i) {
    double firstOrder = 0;
    for (int a = 0; a < L::D; ++a) firstOrder += 3 * L::c(i, a) * -0.5 * p.force[a];
    const double projection = L::template w<double>(i) * firstOrder + hermiteProjection<L>(i, pi);
    const double expected = feq[i] + (1 - omega) * projection + (1 - omega / 2) * lbm::guoSource<L>(i, u, p.force);
    worst = std::max(worst, std::abs(f[i] - expected));
    offProjection = std::max(offProjection, std::abs(neq[i] - hermiteProjection<L>(i, pi)));
  }
  CHECK(worst < 1e-15);
  CHECK(offProjection > 1e-3);  // the cell has non-equilibrium beyond the projection: the operator drops it
  // Mass kept; momentum changed by the force exactly.
  double mass = 0, momentum[3] = {0, 0, 0};
  for (int i = 0; i < L::Q; ++i) {
    mass += f[i] - before[i];
    for (int a = 0; a < 3; ++a) momentum[a] += L::c(i, a) * (f[i] - before[i]);
  }
  CHECK(std::abs(mass) < 1e-15);
  for (int a = 0; a < 3; ++a) CHECK(std::abs(momentum[a] - p.force[a]) < 1e-15);
  // Without a force, the stress relaxes at the rate the viscosity sets: Pi_after = (1 - omega) Pi.
  if (forced) return;
  std::vector<double> after(L::Q);
  for (int i = 0; i < L::Q; ++i) after[i] = f[i] - feq[i];
  const auto piAfter = secondMoment<L>(after);
  for (int k = 0; k < 9; ++k) CHECK(std::abs(piAfter[k] - (1 - omega) * pi[k]) < 1e-15);
}

// With Smagorinsky on, the stress relaxes at the LES rate, the fixed point of tau = tau0 + 3 Cs^2 |S| with
// |S| tau = 3 sqrt(2) |Pi| / (2 rho), iterated here.
template <class L>
void checkLesRate(unsigned seed) {
  const double rho = 0.98, u[3] = {-0.02, 0.04, L::D == 3 ? 0.03 : 0.0}, tau0 = 0.51, cs = 0.3;
  lbm::CollisionParams<double> p = regularizedParams(tau0);
  p.smagorinsky = 1;
  p.smagorinskyC = 18 * std::numbers::sqrt2 * cs * cs;
  std::vector<double> f = cellOffEquilibrium<L>(rho, u, 0.01, seed);
  std::vector<double> feq(L::Q), neq(L::Q);
  for (int i = 0; i < L::Q; ++i) {
    feq[i] = lbm::equilibriumShifted<L>(i, rho - 1, rho, u);
    neq[i] = f[i] - feq[i];
  }
  const auto pi = secondMoment<L>(neq);
  double pipi = 0;
  for (double x : pi) pipi += x * x;
  double tau = tau0;
  const double strainTimesTau = 3 * std::numbers::sqrt2 * std::sqrt(pipi) / (2 * rho);  // |S| tau
  for (int k = 0; k < 200; ++k) tau = tau0 + 3 * cs * cs * strainTimesTau / tau;
  double rhoOut, uOut[3];
  lbm::collideWith<L, lbm::kRegularizedLesTerms>(f.data(), p, rhoOut, uOut);
  std::vector<double> after(L::Q);
  for (int i = 0; i < L::Q; ++i) after[i] = f[i] - feq[i];
  const auto piAfter = secondMoment<L>(after);
  double cross = 0;
  for (int k = 0; k < 9; ++k) cross += piAfter[k] * pi[k];
  INFO(L::name << " seed " << seed << " tau0 " << tau0 << " tau " << tau);
  CHECK(tau > tau0 * 1.02);  // the eddy viscosity is not negligible: the rate check can tell
  CHECK(1 - cross / pipi == Approx(1 / tau).epsilon(1e-10));
}

// The steady velocity profile of a body-force channel between two walls after `steps` steps.
std::vector<double> channelProfile(const std::string& lattice, int h, double tau, double force, long long steps) {
  const bool three = lattice != "D2Q9";
  const std::string yaml =
      "solver: lbm\nlattice: " + lattice + "\nprecision: double\ndevice: {backend: cpu}\n"
      "collision: {model: regularized}\n" +
      (three ? "domain: {cells: [2, " + std::to_string(h) + ", 2], periodic: [x, z]}\n"
             : "domain: {cells: [2, " + std::to_string(h) + "], periodic: [x]}\n") +
      "fluid: {tau: " + std::to_string(tau) + "}\nbody_force: [" + fmt::format("{:.17g}", force) +
      (three ? ", 0, 0]\n" : ", 0]\n") + "boundaries: {y-: {type: wall}, y+: {type: wall}}\nrun: {steps: 1}\n";
  lbm::LbmSimulation sim(parseCaseText(yaml), hopsim::Backend::Cpu);
  sim.advance(steps);
  std::vector<double> rho, u;
  sim.fields(rho, u);
  std::vector<double> profile(h);
  for (int y = 0; y < h; ++y) profile[y] = u[3 * (y * 2)];
  return profile;
}

}  // namespace

TEST_CASE("regularised collision: one cell is the equilibrium plus the relaxed Hermite projection of its stress",
          "[unit][lbm][regularized]") {
  for (const bool forced : {false, true})
    for (unsigned seed = 1; seed <= 3; ++seed) {
      checkCell<lbm::D2Q9>(seed, forced);
      checkCell<lbm::D3Q19>(seed, forced);
      checkCell<lbm::D3Q27>(seed, forced);
    }
}

TEST_CASE("regularised collision with Smagorinsky LES relaxes the stress at the LES rate", "[unit][lbm][regularized]") {
  for (unsigned seed = 1; seed <= 3; ++seed) {
    checkLesRate<lbm::D2Q9>(seed);
    checkLesRate<lbm::D3Q19>(seed);
    checkLesRate<lbm::D3Q27>(seed);
  }
}

// Plane Poiseuille flow driven by a body force, half-way bounce-back walls: the relative L2 error of the profile
// within the BGK validation row's tolerance (1e-3 at H = 32, lbm.poiseuille2d) and second order in H.
TEST_CASE("regularised collision: a body-force channel has the Poiseuille profile at second order",
          "[unit][lbm][regularized]") {
  const double tau = 0.8, nu = (tau - 0.5) / 3;
  double errorAt8 = 0;  // D2Q9's, which the 3-D lattices' flow (the same in every z plane) must match
  for (const std::string lattice : {"D2Q9", "D3Q19", "D3Q27"}) {
    std::vector<double> errors;
    for (const int h : {8, 16, 32}) {
      const double force = 8 * nu * 0.02 / (h * h);  // centre speed 0.02
      const auto profile = channelProfile(lattice, h, tau, force, static_cast<long long>(4.0 * h * h / nu));
      double num = 0, den = 0;
      for (int y = 0; y < h; ++y) {
        const double s = y + 0.5, exact = force / (2 * nu) * s * (h - s);
        num += (profile[y] - exact) * (profile[y] - exact);
        den += exact * exact;
      }
      errors.push_back(std::sqrt(num / den));
      if (lattice != "D2Q9") break;  // the 3-D lattices: H = 8 only (the order is the 2-D one's)
    }
    INFO(lattice << ": errors " << errors[0] << (errors.size() > 1 ? " " + std::to_string(errors[1]) : ""));
    if (errors.size() == 3) {
      CHECK(errors[2] < 1e-3);
      for (int k = 0; k < 2; ++k) CHECK(std::log2(errors[k] / errors[k + 1]) == Approx(2).margin(0.2));
      errorAt8 = errors[0];
    } else {
      CHECK(errors[0] == Approx(errorAt8).epsilon(1e-6));
    }
  }
}

TEST_CASE("collision.model: regularized, with and without LES; TRT's magic parameter refused there",
          "[unit][lbm][regularized]") {
  const std::string base = "solver: lbm\nlattice: D3Q19\ncollision: {model: regularized}\n"
                           "domain: {cells: [8, 8, 8], periodic: [x, y, z]}\nfluid: {tau: 0.6}\nrun: {steps: 1}\n";
  const lbm::LbmCase c = parseCaseText(base);
  CHECK(c.collision == lbm::CollisionModel::Regularized);
  CHECK(lbm::describeCollision(c) == "regularized");
  const lbm::LbmSetup s = lbm::buildSetup(c);
  CHECK(s.domain.collision.regularized == 1);
  CHECK(s.domain.collision.trt == 0);
  CHECK(s.domain.collision.smagorinskyC == 0);  // no LES: the regularised kernels' LES rate is the plain one
  CHECK(lbm::collisionTerms(s.domain.collision) == lbm::kRegularizedLesTerms);
  const lbm::LbmCase les =
      parseCaseText(hopsim::testing::edited(base, "regularized}", "regularized, les: {model: smagorinsky, cs: 0.15}}"));
  CHECK(lbm::describeCollision(les) == "regularized + Smagorinsky LES (Cs 0.15)");
  CHECK(lbm::buildSetup(les).domain.collision.smagorinskyC > 0);
  expectError(hopsim::testing::edited(base, "regularized}", "regularized, magic: 0.25}"), 3, 40,
              "needs collision.model: trt (the model here is regularized)");
  expectError(hopsim::testing::edited(base, "regularized}", "cumulant}"), 3, 20, "regularized");
}
