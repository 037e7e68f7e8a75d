// Helpers of the MD engine tests that compare engines or kernel paths: the LJ benchmark state's engine settings,
// the forces in id order, the CPU engine's forces as a reference, and the largest force and position differences.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "CatchCompat.h"
#include "core/md/ParticleState.h"
#include "kernels/md/MdEngine.h"

namespace hopsim::testing {

// The LJ benchmark's pair potential (cutoff 2.5, skin 0.3, no shift) and dt* 0.005, with thermostat settings for the
// Langevin and Nose-Hoover runs.
inline md::EngineConfig ljBenchConfig(md::Precision p, md::IntegratorType type) {
  md::EngineConfig c;
  c.precision = p;
  c.lj = md::LjSettings{1.0, 1.0, 2.5, false, false};
  c.skin = 0.3;
  c.integrator.type = type;
  c.integrator.dt = 0.005;
  c.integrator.temperature = 1.0;
  c.integrator.damping = 0.5;
  c.integrator.tau = 0.5;
  c.integrator.seed = 99;
  return c;
}

// Forces of every atom in id order (forces() reports them in the engine's order, download() tells whose).
inline std::vector<double> forcesById(md::MdEngine& e) {
  md::ParticleState s;
  e.download(s);
  std::vector<double> f[3];
  e.forces(f[0], f[1], f[2]);
  std::vector<std::size_t> order(s.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return s.id[a] < s.id[b]; });
  std::vector<double> out;
  for (const std::size_t k : order)
    for (int d = 0; d < 3; ++d) out.push_back(f[d][k]);
  return out;
}

// The CPU engine's forces (id order), energy, virial and list statistics at state `s`, and its largest force
// component.
struct ReferenceForces {
  std::vector<double> byId;
  md::RawThermo thermo;
  md::EngineStats stats;
  double largest = 0;
};

inline ReferenceForces cpuReferenceForces(const md::EngineConfig& config, const md::ParticleState& s) {
  auto cpu = md::makeCpuEngine(config);
  cpu->initialize(s);
  ReferenceForces r{forcesById(*cpu), cpu->thermo(), cpu->stats(), 0};
  for (const double f : r.byId) r.largest = std::max(r.largest, std::abs(f));
  return r;
}

// The largest difference between two force lists of the same atoms in the same order.
inline double worstDifference(const std::vector<double>& a, const std::vector<double>& b) {
  REQUIRE(a.size() == b.size());
  double worst = 0;
  for (std::size_t k = 0; k < a.size(); ++k) worst = std::max(worst, std::abs(a[k] - b[k]));
  return worst;
}

// The largest coordinate difference between the same atoms of two states (same order), across the periodic box.
inline double maxPositionDifference(const md::ParticleState& a, const md::ParticleState& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double pa[3] = {a.x[i], a.y[i], a.z[i]}, pb[3] = {b.x[i], b.y[i], b.z[i]};
    for (int d = 0; d < 3; ++d) {
      const double diff = std::abs(pa[d] - pb[d]);
      worst = std::max(worst, std::min(diff, std::abs(a.box.length[d] - diff)));
    }
  }
  return worst;
}

}  // namespace hopsim::testing
