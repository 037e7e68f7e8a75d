// The CPU MD engine's forces and sums (half neighbour list over 14 cells with ghost images, each thread's reactions in
// an array of its own) against a direct sum over every pair of atoms, on 1, 2 and 3 threads, in boxes of 2, 3 and more
// cells along an axis (where a half stencil and ghost images are easy to get wrong), cubic or not.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "CatchCompat.h"
#include "io/CaseReader.h"
#include "io/md/MdCaseParser.h"
#include "kernels/md/MdEngine.h"
#include "solvers/md/InitialState.h"
#include "solvers/md/MdSimulation.h"

namespace {

using hopsim::io::CaseDocument;

// The LJ liquid of the LAMMPS benchmark (fcc 0.8442, T 1.44, cutoff 2.5), 6^3 lattice cells = 864 atoms by default,
// in double. The list's cells are at least cutoff + skin = 2.8 wide: 4 lattice cells (6.72) make 2 of them, 5 and 6
// make 3 (8.40 is just short of 3 x 2.8), 7 make 4.
hopsim::md::MdCase liquid(const std::string& cells = "[6, 6, 6]", const std::string& precision = "double") {
  return hopsim::io::md::parseMdCase(CaseDocument::fromString(
      "solver: md\nprecision: " + precision + "\nsystem: {lattice: {type: fcc, density: 0.8442, cells: " + cells + "}}\n"
      "potential: {type: lj, epsilon: 1.0, sigma: 1.0, cutoff: 2.5, shift: false, tail_correction: false}\n"
      "neighbor: {skin: 0.3}\n"
      "velocity: {temperature: 1.44, seed: 4711}\nintegrator: {type: nve, dt: 0.005}\nrun: {steps: 1}\n"
      "device: {backend: cpu}\n",
      "liquid.yaml"));
}

struct DirectSums {
  std::vector<double> fx, fy, fz;
  double potential = 0, virial = 0;
};

// Every pair once, minimum image, truncated (not shifted) LJ with epsilon = sigma = 1.
DirectSums directSums(const hopsim::md::ParticleState& s, double cutoff) {
  const std::size_t n = s.size();
  DirectSums d;
  d.fx.assign(n, 0), d.fy.assign(n, 0), d.fz.assign(n, 0);
  const auto image = [&](double v, int a) {
    const double L = s.box.length[a];
    return v - L * std::round(v / L);
  };
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      const double dx = image(s.x[i] - s.x[j], 0), dy = image(s.y[i] - s.y[j], 1), dz = image(s.z[i] - s.z[j], 2);
      const double r2 = dx * dx + dy * dy + dz * dz;
      if (r2 >= cutoff * cutoff) continue;
      const double s6 = 1 / (r2 * r2 * r2);
      const double fOverR = 24 * s6 * (2 * s6 - 1) / r2;
      d.fx[i] += dx * fOverR, d.fy[i] += dy * fOverR, d.fz[i] += dz * fOverR;
      d.fx[j] -= dx * fOverR, d.fy[j] -= dy * fOverR, d.fz[j] -= dz * fOverR;
      d.potential += 4 * s6 * (s6 - 1);
      d.virial += r2 * fOverR;
    }
  return d;
}

// Runs case c 40 steps on the CPU engine (a liquid, no longer a lattice; several list builds; thermo on the last
// step) and checks every atom's force, the potential and the virial against the direct sum, to `tolerance` relative
// (forces: of the largest force). Returns the engine for further checks.
std::unique_ptr<hopsim::md::MdEngine> checkAgainstDirectSum(const hopsim::md::MdCase& c, double tolerance) {
  auto e = hopsim::md::makeCpuEngine(hopsim::md::engineConfig(c));
  e->initialize(hopsim::md::initialState(c));
  e->advance(40, 0);
  hopsim::md::ParticleState s;
  e->download(s);
  std::vector<double> fx, fy, fz;
  e->forces(fx, fy, fz);
  const DirectSums d = directSums(s, 2.5);
  double worst = 0, scale = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    worst = std::max({worst, std::abs(fx[i] - d.fx[i]), std::abs(fy[i] - d.fy[i]), std::abs(fz[i] - d.fz[i])});
    scale = std::max({scale, std::abs(d.fx[i]), std::abs(d.fy[i]), std::abs(d.fz[i])});
  }
  INFO("largest force difference " << worst << " of forces up to " << scale);
  CHECK(worst <= tolerance * scale);
  const hopsim::md::RawThermo th = e->thermo();
  CHECK(th.potential == Approx(d.potential).epsilon(tolerance));
  CHECK(th.virial == Approx(d.virial).epsilon(tolerance));
  return e;
}

}  // namespace

TEST_CASE("CPU MD forces and sums equal a direct sum over every pair, on 1, 2 and 3 threads", "[unit][md]") {
  const std::string cells = GENERATE(as<std::string>{}, "[6, 6, 6]", "[4, 4, 4]", "[5, 5, 5]", "[4, 5, 7]",
                                     "[7, 4, 6]", "[6, 7, 4]", "[9, 4, 5]");
  INFO("lattice cells " << cells);
  const hopsim::md::MdCase c = liquid(cells);
  const int threads = omp_get_max_threads();
  for (const int t : {1, 2, 3}) {
    INFO(t << " threads");
    omp_set_num_threads(t);
    const auto e = checkAgainstDirectSum(c, 1e-12);
    // Neighbours counted per atom as a full list would (within cutoff + skin: ~75 at this density).
    const hopsim::md::EngineStats st = e->stats();
    CHECK(st.meanNeighbors > 60);
    CHECK(st.meanNeighbors < 90);
    CHECK(st.maxNeighbors >= st.meanNeighbors);
  }
  omp_set_num_threads(threads);
}

TEST_CASE("CPU MD: the same thread count gives the same forces and sums bitwise on every run", "[unit][md]") {
  const hopsim::md::MdCase c = liquid("[5, 6, 7]");
  const int threads = omp_get_max_threads();
  for (const int t : {1, 2, 3}) {
    INFO(t << " threads");
    omp_set_num_threads(t);
    std::vector<double> f[2][3];
    double pe[2] = {0, 0}, vir[2] = {0, 0};
    for (int run = 0; run < 2; ++run) {
      auto e = hopsim::md::makeCpuEngine(hopsim::md::engineConfig(c));
      e->initialize(hopsim::md::initialState(c));
      e->advance(60, 0);
      e->forces(f[run][0], f[run][1], f[run][2]);
      pe[run] = e->thermo().potential;
      vir[run] = e->thermo().virial;
    }
    CHECK(f[0][0] == f[1][0]);
    CHECK(f[0][1] == f[1][1]);
    CHECK(f[0][2] == f[1][2]);
    CHECK(pe[0] == pe[1]);
    CHECK(vir[0] == vir[1]);
  }
  omp_set_num_threads(threads);
}

// Mixed precision: positions in double, each pair's arithmetic in float (the engine's vector loop then runs on floats).
TEST_CASE("CPU MD mixed precision forces and sums are a direct sum's to float round-off", "[unit][md]") {
  const std::string cells = GENERATE(as<std::string>{}, "[6, 6, 6]", "[4, 5, 7]");
  INFO("lattice cells " << cells);
  const hopsim::md::MdCase c = liquid(cells, "mixed");
  const int threads = omp_get_max_threads();
  for (const int t : {1, 2}) {
    INFO(t << " threads");
    omp_set_num_threads(t);
    checkAgainstDirectSum(c, 1e-5);
  }
  omp_set_num_threads(threads);
}
