// CUDA vs CPU MD engines: same trajectory in double (NVE and Langevin, whose noise is keyed by particle id and step),
// and mixed precision close to double. Self-contained: builds its systems in code.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "CatchCompat.h"
#include "kernels/common/DeviceInfo.h"
#include "solvers/md/FccLattice.h"
#include "solvers/md/MdEngine.h"
#include "solvers/md/MdSimulation.h"
#include "solvers/md/Thermo.h"
#include "solvers/md/VelocityInit.h"

using namespace hopsim::md;

namespace {

bool haveGpu() {
  if (hopsim::cudaDeviceCount() > 0) return true;
  std::printf("no CUDA device: GPU test skipped\n");
  return false;
}

EngineConfig benchConfig(Precision p, IntegratorType type) {
  EngineConfig c;
  c.precision = p;
  c.lj = LjSettings{1.0, 1.0, 2.5, false, false};
  c.skin = 0.3;
  c.integrator.type = type;
  c.integrator.dt = 0.005;
  c.integrator.temperature = 1.0;
  c.integrator.damping = 0.5;
  c.integrator.tau = 0.5;
  c.integrator.seed = 99;
  return c;
}

ParticleState start(int cells) {
  ParticleState s = makeFccLattice(0.8442, {cells, cells, cells}, 1.0);
  createVelocities(s, 1.44, 87287);
  return s;
}

struct Outcome {
  ParticleState state;
  ThermoRow thermo;
};

Outcome run(MdEngine& e, const ParticleState& s, long long steps) {
  e.initialize(s);
  e.advance(steps, 0);
  Outcome o;
  o.thermo = makeThermoRow(e.thermo(), s.size(), s.box.volume(), LjSettings{}, steps, steps * 0.005);
  e.download(o.state);
  sortById(o.state);
  return o;
}

double maxPositionDifference(const ParticleState& a, const ParticleState& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double* pa[3] = {&a.x[i], &a.y[i], &a.z[i]};
    const double* pb[3] = {&b.x[i], &b.y[i], &b.z[i]};
    for (int d = 0; d < 3; ++d) {
      double diff = std::abs(*pa[d] - *pb[d]);
      diff = std::min(diff, std::abs(a.box.length[d] - diff));  // across the periodic boundary
      worst = std::max(worst, diff);
    }
  }
  return worst;
}

void compareEngines(IntegratorType type, Precision gpuPrecision, double positionTol, double thermoTol) {
  const ParticleState s = start(8);  // 2,048 atoms
  auto cpu = makeCpuEngine(benchConfig(Precision::Double, type));
  auto gpu = makeCudaEngine(benchConfig(gpuPrecision, type), 0);
  const Outcome a = run(*cpu, s, 100), b = run(*gpu, s, 100);
  REQUIRE(b.state.size() == a.state.size());
  for (std::size_t i = 0; i < a.state.size(); ++i) REQUIRE(a.state.id[i] == b.state.id[i]);
  const double dx = maxPositionDifference(a.state, b.state);
  INFO("max position difference " << dx << ", pe cpu " << a.thermo.pe << " gpu " << b.thermo.pe);
  CHECK(dx < positionTol);
  CHECK(std::abs(a.thermo.pe - b.thermo.pe) < thermoTol * std::abs(a.thermo.pe));
  CHECK(std::abs(a.thermo.temp - b.thermo.temp) < thermoTol * std::abs(a.thermo.temp));
  CHECK(std::abs(a.thermo.press - b.thermo.press) < thermoTol * std::max(1.0, std::abs(a.thermo.press)));
}

}  // namespace

TEST_CASE("gpu md: CUDA and CPU trajectories agree in double (NVE, 100 steps)", "[gpu][md]") {
  if (!haveGpu()) return;
  compareEngines(IntegratorType::Nve, Precision::Double, 1e-9, 1e-10);
}

TEST_CASE("gpu md: CUDA and CPU trajectories agree in double (Langevin, Nose-Hoover)", "[gpu][md]") {
  if (!haveGpu()) return;
  compareEngines(IntegratorType::Langevin, Precision::Double, 1e-9, 1e-10);
  compareEngines(IntegratorType::NoseHoover, Precision::Double, 1e-9, 1e-10);
}

TEST_CASE("gpu md: mixed and single precision stay close to double over 100 steps", "[gpu][md]") {
  if (!haveGpu()) return;
  compareEngines(IntegratorType::Nve, Precision::Mixed, 1e-3, 1e-4);
  compareEngines(IntegratorType::Nve, Precision::Single, 1e-2, 1e-3);
}

TEST_CASE("gpu md: NVT averages agree between CUDA (mixed) and CPU (double)", "[gpu][md]") {
  if (!haveGpu()) return;
  const ParticleState s = start(6);
  double mean[2] = {0, 0};
  int k = 0;
  for (Precision p : {Precision::Double, Precision::Mixed}) {
    auto cfg = benchConfig(p, IntegratorType::Langevin);
    auto e = p == Precision::Double ? makeCpuEngine(cfg) : makeCudaEngine(cfg, 0);
    e->initialize(s);
    e->advance(2000, 0);
    int samples = 0;
    for (int b = 0; b < 200; ++b) {
      e->advance(20, 2000 + b * 20);
      mean[k] += e->thermo().potential / static_cast<double>(s.size());
      ++samples;
    }
    mean[k] /= samples;
    ++k;
  }
  INFO("mean pe per atom: cpu double " << mean[0] << ", cuda mixed " << mean[1]);
  CHECK(std::abs(mean[0] - mean[1]) < 0.02);
}
