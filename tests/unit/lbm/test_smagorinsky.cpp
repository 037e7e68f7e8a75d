// Smagorinsky LES (kernels/lbm/Collision.h, smagorinskyRates()): the relaxation rate of one cell against the
// fixed point of tau = tau0 + 3 Cs^2 |S| solved independently, TRT's magic parameter kept, mass and momentum kept;
// Cs = 0 relaxes bitwise as the plain operator, cell by cell and over whole runs of every kernel path of the cpu
// backend; a body-force-driven channel against its analytic profile with the eddy viscosity; the case syntax.
#include <cmath>
#include <cstring>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "CatchCompat.h"
#include "LbmCaseText.h"
#include "gpu/lbm/LbmAgreementCases.h"
#include "core/lbm/Relaxation.h"
#include "kernels/lbm/Collision.h"
#include "solvers/lbm/LbmSimulation.h"

namespace lbm = hopsim::lbm;
using hopsim::testing::expectError;
using hopsim::testing::parseCaseText;

namespace {

constexpr double kCs = 0.4;
constexpr double kMagic = 3.0 / 16.0;

// A pre-collision cell: the equilibrium of (rho, u) plus a random non-equilibrium part with no mass and no
// momentum (1, c_x, c_y, c_z are orthogonal over the velocity set, so projecting them out keeps the moments).
template <class L>
std::vector<double> cellNearEquilibrium(double rho, const double u[3], double amplitude, unsigned seed) {
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

// The second moment sum_i c_ia c_ib g_i, all nine components.
template <class L>
std::array<double, 9> secondMoment(const std::vector<double>& g) {
  std::array<double, 9> m{};
  for (int i = 0; i < L::Q; ++i)
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) m[3 * a + b] += L::c(i, a) * L::c(i, b) * g[i];
  return m;
}

lbm::CollisionParams<double> lesParams(double tau0, bool trt, double cs) {
  lbm::CollisionParams<double> p;
  p.omega = lbm::omegaFromTau(tau0);
  p.trt = trt ? 1 : 0;
  p.omegaMinus = trt ? lbm::trtOmegaMinus(p.omega, kMagic) : p.omega;
  p.trtMagic = kMagic;
  p.smagorinsky = 1;
  p.smagorinskyC = 18 * std::numbers::sqrt2 * cs * cs;
  return p;
}

// One cell collided with LES: the symmetric rate measured from the stress before and after (BGK and TRT relax the
// non-equilibrium stress by 1 - omega) against tau = tau0 + 3 Cs^2 |S|, |S| = 3 sqrt(2) |Pi| / (2 rho tau),
// iterated to its fixed point; TRT's antisymmetric rate measured from the odd parts of the opposite pairs.
template <class L>
void checkCellRates(bool trt, unsigned seed) {
  const double rho = 1.03, u[3] = {0.04, -0.025, L::D == 3 ? 0.015 : 0.0}, tau0 = 0.52;
  const std::vector<double> before = cellNearEquilibrium<L>(rho, u, 0.01, seed);
  std::vector<double> feq(L::Q), neq(L::Q);
  for (int i = 0; i < L::Q; ++i) {
    feq[i] = lbm::equilibriumShifted<L>(i, rho - 1, rho, u);
    neq[i] = before[i] - feq[i];
  }
  const auto pi = secondMoment<L>(neq);
  double pipi = 0;
  for (double x : pi) pipi += x * x;
  double tau = tau0;
  const double strainTimesTau = 3 * std::numbers::sqrt2 * std::sqrt(pipi) / (2 * rho);  // |S| tau
  for (int k = 0; k < 200; ++k) tau = tau0 + 3 * kCs * kCs * strainTimesTau / tau;

  std::vector<double> f = before;
  double rhoOut, uOut[3];
  lbm::collideWith<L, lbm::kLesTerms>(f.data(), lesParams(tau0, trt, kCs), rhoOut, uOut);
  INFO(L::name << (trt ? " trt" : " bgk") << " tau0 " << tau0 << " tau " << tau);
  CHECK(tau > tau0 * 1.03);  // the eddy viscosity is not negligible here: the checks below can tell
  CHECK(rhoOut == Approx(rho).epsilon(1e-14));
  std::vector<double> after(L::Q);
  for (int i = 0; i < L::Q; ++i) after[i] = f[i] - feq[i];
  const auto piAfter = secondMoment<L>(after);
  double cross = 0;
  for (int k = 0; k < 9; ++k) cross += piAfter[k] * pi[k];
  const double omega = 1 - cross / pipi;
  CHECK(omega == Approx(1 / tau).epsilon(1e-10));
  double mass = 0, momentum[3] = {0, 0, 0};
  for (int i = 0; i < L::Q; ++i) {
    mass += f[i] - before[i];
    for (int a = 0; a < 3; ++a) momentum[a] += L::c(i, a) * (f[i] - before[i]);
  }
  CHECK(std::abs(mass) < 1e-15);
  for (double m : momentum) CHECK(std::abs(m) < 1e-15);
  if (!trt) return;
  double num = 0, den = 0;
  for (int i = 1; i < L::Q; i += 2) {
    const double odd = 0.5 * (neq[i] - neq[i + 1]), oddAfter = 0.5 * (after[i] - after[i + 1]);
    num += oddAfter * odd;
    den += odd * odd;
  }
  const double omegaMinus = 1 - num / den;
  CHECK((1 / omega - 0.5) * (1 / omegaMinus - 0.5) == Approx(kMagic).epsilon(1e-9));
}

// LES with Cs = 0 against the plain operator on one cell, each precision, with and without a body force.
template <class L, class T>
void checkZeroCsBitwise(bool trt, bool forced) {
  const double u[3] = {0.03, 0.02, L::D == 3 ? -0.01 : 0.0};
  const std::vector<double> start = cellNearEquilibrium<L>(1.01, u, 0.005, 7);
  const auto paramsD = lesParams(0.57, trt, 0.0);
  lbm::CollisionParams<T> plain;
  plain.omega = static_cast<T>(paramsD.omega);
  plain.omegaMinus = static_cast<T>(paramsD.omegaMinus);
  plain.trt = paramsD.trt;
  if (forced) plain.force[0] = T(2e-5), plain.force[1] = T(-1e-5);
  lbm::CollisionParams<T> les = plain;
  les.smagorinsky = 1;
  les.smagorinskyC = T(0);
  les.trtMagic = static_cast<T>(kMagic);
  T a[L::Q], b[L::Q];
  for (int i = 0; i < L::Q; ++i) a[i] = b[i] = static_cast<T>(start[i]);
  T rhoA, rhoB, uA[3], uB[3];
  lbm::collide<L>(a, plain, rhoA, uA);
  lbm::collide<L>(b, les, rhoB, uB);
  INFO(L::name << (trt ? " trt" : " bgk") << (forced ? " forced " : " ") << sizeof(T) * 8 << "-bit");
  CHECK(std::memcmp(a, b, sizeof a) == 0);
  CHECK(rhoA == rhoB);
}

// A whole run on the cpu backend, its populations' bytes after 60 steps.
std::vector<std::byte> populationsAfter(const std::string& yaml) {
  const lbm::LbmCase c = lbm::testing::parseCase(yaml);
  lbm::LbmSimulation sim(c, hopsim::Backend::Cpu);
  sim.advance(60, true);
  std::vector<std::byte> bytes;
  sim.saveState(bytes);
  return bytes;
}

}  // namespace

TEST_CASE("Smagorinsky LES: one cell relaxes at the rate of tau = tau0 + 3 Cs^2 |S|, TRT keeps its magic parameter",
          "[unit][lbm][les]") {
  for (const bool trt : {false, true})
    for (unsigned seed = 1; seed <= 3; ++seed) {
      checkCellRates<lbm::D2Q9>(trt, seed);
      checkCellRates<lbm::D3Q19>(trt, seed);
      checkCellRates<lbm::D3Q27>(trt, seed);
    }
}

TEST_CASE("Smagorinsky LES with Cs = 0 relaxes one cell bitwise as the plain operator", "[unit][lbm][les]") {
  for (const bool trt : {false, true})
    for (const bool forced : {false, true}) {
      checkZeroCsBitwise<lbm::D2Q9, double>(trt, forced);
      checkZeroCsBitwise<lbm::D3Q19, double>(trt, forced);
      checkZeroCsBitwise<lbm::D3Q27, double>(trt, forced);
      checkZeroCsBitwise<lbm::D2Q9, float>(trt, forced);
      checkZeroCsBitwise<lbm::D3Q19, float>(trt, forced);
      checkZeroCsBitwise<lbm::D3Q27, float>(trt, forced);
    }
}

// Every flow of the GPU agreement tests (walls, moving walls, inlet/outlet, obstacles staircase and interpolated,
// body force), so the bulk rows (vectorised), the FP16 rows and the per-cell path all run the LES terms.
TEST_CASE("Smagorinsky LES with Cs = 0: whole runs on the cpu backend bitwise the plain runs", "[unit][lbm][les]") {
  using lbm::testing::Flow;
  for (const std::string lattice : {"D2Q9", "D3Q19", "D3Q27"})
    for (const std::string precision : {"double", "single", "half"})
      for (const std::string collision : {"bgk", "trt"})
        for (const Flow flow : lbm::testing::flowsFor(lattice)) {
          INFO(lattice << " " << precision << " " << collision << " " << lbm::testing::flowName(flow));
          const auto plain = populationsAfter(lbm::testing::caseYaml(lattice, precision, collision, flow));
          const auto les = populationsAfter(
              lbm::testing::caseYaml(lattice, precision, collision + ", les: {model: smagorinsky, cs: 0}", flow));
          REQUIRE(plain.size() == les.size());
          CHECK(std::memcmp(plain.data(), les.data(), plain.size()) == 0);
          // The same flow with the eddy viscosity on is another flow (the terms are not skipped).
          const auto on = populationsAfter(
              lbm::testing::caseYaml(lattice, precision, collision + ", les: {model: smagorinsky, cs: 0.4}", flow));
          CHECK(std::memcmp(plain.data(), on.data(), plain.size()) != 0);
        }
}

// Channel between two walls driven by a body force F: the shear stress is F eta at distance eta from the centre,
// and with nu = nu0 + Cs^2 |du/dy| the shear rate s solves Cs^2 s^2 + nu0 s = F eta / rho, so
//   u(eta) = [ (2 / 3b) ((a + b H/2)^{3/2} - (a + b eta)^{3/2}) - nu0 (H/2 - eta) ] / (2 Cs^2),
// a = nu0^2, b = 4 Cs^2 F / rho. The parameters put the eddy viscosity at a third of nu0 at the walls; the plain
// Poiseuille profile's centre speed is 0.06, the LES one's 15% lower.
TEST_CASE("Smagorinsky LES: a body-force-driven channel has the analytic profile of its eddy viscosity",
          "[unit][lbm][les]") {
  const int h = 24;
  const double nu0 = 0.005, force = 8 * nu0 * 0.06 / (h * h);
  const double a = nu0 * nu0, b = 4 * kCs * kCs * force;
  const auto lesSpeed = [&](double eta) {
    return (2 / (3 * b) * (std::pow(a + b * h / 2, 1.5) - std::pow(a + b * eta, 1.5)) - nu0 * (h / 2.0 - eta)) /
           (2 * kCs * kCs);
  };
  const auto poiseuille = [&](double eta) { return force / (2 * nu0) * (h * h / 4.0 - eta * eta); };
  const double centre = lesSpeed(0);
  INFO("centre speed: LES " << centre << ", plain " << poiseuille(0));
  REQUIRE(poiseuille(0) / centre > 1.12);  // the LES profile is far from the plain one: the test can tell
  for (const std::string collision : {"bgk", "trt"}) {
    const std::string yaml = "solver: lbm\nlattice: D2Q9\nprecision: double\ndevice: {backend: cpu}\n"
                             "collision: {model: " + collision + ", les: {model: smagorinsky, cs: " +
                             std::to_string(kCs) + "}}\n"
                             "domain: {cells: [4, " + std::to_string(h) + "], periodic: [x]}\n"
                             "fluid: {viscosity: " + std::to_string(nu0) + "}\n"
                             "body_force: [" + fmt::format("{:.17g}", force) + ", 0]\n"
                             "boundaries: {y-: {type: wall}, y+: {type: wall}}\nrun: {steps: 1}\n";
    lbm::LbmSimulation sim(lbm::testing::parseCase(yaml), hopsim::Backend::Cpu);
    sim.advance(120000);
    std::vector<double> rho, u;
    sim.fields(rho, u);
    double worst = 0;
    for (int y = 0; y < h; ++y) {
      const double eta = std::abs(y + 0.5 - h / 2.0);
      worst = std::max(worst, std::abs(u[3 * (y * 4 + 1)] - lesSpeed(eta)) / centre);
    }
    INFO(collision << ": largest deviation from the LES profile " << worst << " of the centre speed");
    CHECK(worst < 0.005);
  }
}

TEST_CASE("collision.les: the Smagorinsky model and its constant, located errors", "[unit][lbm][les]") {
  const std::string base = "solver: lbm\nlattice: D2Q9\ncollision: {model: bgk, les: {model: smagorinsky, cs: 0.12}}\n"
                           "domain: {cells: [8, 8], periodic: [x, y]}\nfluid: {tau: 0.6}\nrun: {steps: 1}\n";
  const lbm::LbmCase c = parseCaseText(base);
  CHECK(c.smagorinsky);
  CHECK(c.smagorinskyCs == 0.12);
  CHECK(lbm::describeCollision(c) == "bgk + Smagorinsky LES (Cs 0.12)");
  const lbm::LbmSetup s = lbm::buildSetup(c);
  CHECK(s.domain.collision.smagorinsky == 1);
  CHECK(s.domain.collision.smagorinskyC == Approx(18 * std::numbers::sqrt2 * 0.0144).epsilon(1e-15));
  CHECK_FALSE(parseCaseText(hopsim::testing::edited(base, ", les: {model: smagorinsky, cs: 0.12}", "")).smagorinsky);
  CHECK(parseCaseText(hopsim::testing::edited(base, ", cs: 0.12", "")).smagorinskyCs == 0.1);
  expectError(hopsim::testing::edited(base, "cs: 0.12", "cs: 0.7"), 3, 55, "at most 0.5");
  expectError(hopsim::testing::edited(base, "cs: 0.12", "cs: -0.1"), 3, 55, ">= 0");
  expectError(hopsim::testing::edited(base, "model: smagorinsky", "model: wale"), 3, 38, "smagorinsky");
  expectError(hopsim::testing::edited(base, "model: smagorinsky, ", ""), 3, 30, "model");
  expectError(hopsim::testing::edited(base, "cs: 0.12", "c_s: 0.12"), 3, 51, "c_s");
  // tau close to 1/2: a warning without LES, none with it (the eddy viscosity is what keeps such a case stable).
  const std::string nearHalf = hopsim::testing::edited(base, "tau: 0.6", "tau: 0.505");
  std::vector<std::string> warnings;
  parseCaseText(nearHalf, &warnings);
  CHECK(warnings.empty());
  hopsim::testing::expectWarning(hopsim::testing::edited(nearHalf, ", les: {model: smagorinsky, cs: 0.12}", ""), 5,
                                 14, "below 0.51");
}
