// CUDA vs CPU MD engines: same trajectory in double (NVE and Langevin, whose noise is keyed by particle id and step),
// and mixed precision close to double. Self-contained: builds its systems in code.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "CatchCompat.h"
#include "HaveGpu.h"
#include "MdEngineChecks.h"
#include "kernels/common/DeviceInfo.h"
#include "solvers/md/FccLattice.h"
#include "kernels/md/MdEngine.h"
#include "solvers/md/MdSimulation.h"
#include "solvers/md/Thermo.h"
#include "kernels/md/VelocityInit.h"

using namespace hopsim::md;

namespace {

using hopsim::testing::cpuReferenceForces;
using hopsim::testing::forcesById;
using hopsim::testing::haveGpu;
using hopsim::testing::maxPositionDifference;
using hopsim::testing::ReferenceForces;
using hopsim::testing::worstDifference;

using hopsim::testing::ljBenchConfig;

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

struct Agreement {
  double positionTol, thermoTol;
};

// Runs the CPU engine (double) and the CUDA engine from the same state, in chunks as runMd does (the step counter
// keys the Langevin noise), and compares positions, thermo and the neighbour lists' statistics.
void compareEngines(const ParticleState& s, EngineConfig gpuConfig, long long steps, long long chunk, Agreement tol,
                    const LjSettings& lj = LjSettings{}) {
  EngineConfig cpuConfig = gpuConfig;
  cpuConfig.precision = Precision::Double;
  auto cpu = makeCpuEngine(cpuConfig);
  auto gpu = makeCudaEngine(gpuConfig, 0);
  Outcome o[2];
  EngineStats st[2];
  MdEngine* engines[2] = {cpu.get(), gpu.get()};
  for (int e = 0; e < 2; ++e) {
    engines[e]->initialize(s);
    for (long long done = 0; done < steps; done += chunk) engines[e]->advance(std::min(chunk, steps - done), done);
    o[e].thermo = makeThermoRow(engines[e]->thermo(), s.size(), s.box.volume(), lj, steps, steps * 0.005);
    engines[e]->download(o[e].state);
    sortById(o[e].state);
    st[e] = engines[e]->stats();
  }
  const Outcome& a = o[0];
  const Outcome& b = o[1];
  REQUIRE(b.state.size() == a.state.size());
  for (std::size_t i = 0; i < a.state.size(); ++i) REQUIRE(a.state.id[i] == b.state.id[i]);
  const double dx = maxPositionDifference(a.state, b.state);
  INFO("max position difference " << dx << ", pe cpu " << a.thermo.pe << " gpu " << b.thermo.pe << "; neighbours cpu "
                                  << st[0].meanNeighbors << " / " << st[0].maxNeighbors << " gpu " << st[1].meanNeighbors
                                  << " / " << st[1].maxNeighbors << ", builds " << st[0].neighborBuilds << " / "
                                  << st[1].neighborBuilds);
  CHECK(dx < tol.positionTol);
  CHECK(std::abs(a.thermo.pe - b.thermo.pe) < tol.thermoTol * std::abs(a.thermo.pe));
  CHECK(std::abs(a.thermo.temp - b.thermo.temp) < tol.thermoTol * std::abs(a.thermo.temp));
  CHECK(std::abs(a.thermo.press - b.thermo.press) < tol.thermoTol * std::max(1.0, std::abs(a.thermo.press)));
  // The same pairs within cutoff + skin (up to pairs at the range itself, which rounding may place either side).
  CHECK(st[1].meanNeighbors > 0);
  if (gpuConfig.precision == Precision::Double) {
    CHECK(std::abs(st[0].meanNeighbors - st[1].meanNeighbors) < 1e-3 * st[0].meanNeighbors);
    CHECK(std::abs(st[0].maxNeighbors - st[1].maxNeighbors) <= 1);
    CHECK(st[0].neighborBuilds == st[1].neighborBuilds);
  } else {  // lists from float positions, possibly rebuilt a step apart
    CHECK(std::abs(st[0].meanNeighbors - st[1].meanNeighbors) < 2e-2 * st[0].meanNeighbors);
  }
}

void compareEngines(IntegratorType type, Precision gpuPrecision, double positionTol, double thermoTol) {
  compareEngines(start(8), ljBenchConfig(gpuPrecision, type), 100, 100, {positionTol, thermoTol});  // 2,048 atoms
}

}  // namespace

TEST_CASE("gpu md: CUDA and CPU trajectories agree in double (NVE, 100 steps)", "[gpu][md]") {
  if (!haveGpu()) return;
  compareEngines(IntegratorType::Nve, Precision::Double, 1e-9, 1e-10);
}

TEST_CASE("gpu md: the force kernel with 1 to 32 threads per atom agrees with the CPU engine", "[gpu][md]") {
  if (!haveGpu()) return;
  // A liquid state (the lattice's forces vanish by symmetry): 2,048 atoms after 50 CPU steps.
  const EngineConfig config = ljBenchConfig(Precision::Double, IntegratorType::Nve);
  auto cpu = makeCpuEngine(config);
  cpu->initialize(start(8));
  cpu->advance(50, 0);
  ParticleState liquid;
  cpu->download(liquid);
  const ReferenceForces ref = cpuReferenceForces(config, liquid);
  const double largest = ref.largest;
  REQUIRE(largest > 1);
  for (const int group : {1, 2, 4, 8, 16, 32, 0}) {
    EngineConfig c = config;
    c.forceThreadsPerAtom = group;
    auto gpu = makeCudaEngine(c, 0);
    gpu->initialize(liquid);  // forces, energy and virial at this state
    const double worst = worstDifference(forcesById(*gpu), ref.byId);
    const RawThermo t = gpu->thermo();
    INFO(group << " threads per atom (the engine's: " << gpu->stats().forceThreadsPerAtom << "): largest force "
               << largest << ", worst difference " << worst << "; potential " << t.potential << " against "
               << ref.thermo.potential);
    const int used = gpu->stats().forceThreadsPerAtom;
    if (group > 0) CHECK(used == group);
    else CHECK((used >= 1 && used <= 32 && (used & (used - 1)) == 0));  // the engine's choice: a power of two
    CHECK(worst < 1e-12 * largest);
    CHECK(std::abs(t.potential - ref.thermo.potential) < 1e-12 * std::abs(ref.thermo.potential));
    CHECK(std::abs(t.virial - ref.thermo.virial) < 1e-12 * std::abs(ref.thermo.virial));
  }
  // A whole trajectory with one thread per atom (the tests above run the 2,048-atom systems with 32).
  EngineConfig one = config;
  one.forceThreadsPerAtom = 1;
  compareEngines(start(8), one, 100, 100, {1e-9, 1e-10});
}

TEST_CASE("gpu md: lanes of one warp far apart in neighbour count (the list build's direct writes) agree with the CPU",
          "[gpu][md]") {
  if (!haveGpu()) return;
  // A dense fcc block (density 1.2) filling half the box along x, with a few gas atoms in the other half, and a
  // cut-off of 4: an atom inside the block lists ~400 pairs, one on its faces ~200 and a gas atom a few, and a warp's
  // 32 consecutive sorted atoms (one bin row along x) mix them, so lanes run more than the build's 64 staged entries
  // ahead of their warp's slowest and write their entries directly; the list also grows from its first 96 entries.
  // Forces, energy and virial at this state against the CPU engine's, in double.
  ParticleState s = makeFccLattice(1.2, {8, 8, 8}, 1.0);
  const double block = s.box.length[0];
  s.box.length[0] = 2 * block;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) {
        s.x.push_back(block + 1.5 + 4.5 * i), s.y.push_back(1 + 4.5 * j), s.z.push_back(1 + 4.5 * k);
        s.vx.push_back(0), s.vy.push_back(0), s.vz.push_back(0);
        s.id.push_back(static_cast<long long>(s.id.size()) + 1);
      }
  EngineConfig config = ljBenchConfig(Precision::Double, IntegratorType::Nve);
  config.lj.cutoff = 4.0;
  const ReferenceForces ref = cpuReferenceForces(config, s);
  REQUIRE(ref.largest > 1);
  auto gpu = makeCudaEngine(config, 0);
  gpu->initialize(s);
  const double worst = worstDifference(forcesById(*gpu), ref.byId);
  const RawThermo t = gpu->thermo();
  const EngineStats& cs = ref.stats;
  const EngineStats gs = gpu->stats();
  INFO("largest force " << ref.largest << ", worst difference " << worst << "; neighbours cpu " << cs.meanNeighbors
                        << " / " << cs.maxNeighbors << ", gpu " << gs.meanNeighbors << " / " << gs.maxNeighbors);
  CHECK(gs.maxNeighbors > 96 + 64);  // the list grew from its first 96 entries, to more than 64 past them
  CHECK(std::abs(gs.maxNeighbors - cs.maxNeighbors) <= 1);
  CHECK(std::abs(gs.meanNeighbors - cs.meanNeighbors) < 1e-9 * cs.meanNeighbors);
  CHECK(worst < 1e-12 * ref.largest);
  CHECK(std::abs(t.potential - ref.thermo.potential) < 1e-12 * std::abs(ref.thermo.potential));
  CHECK(std::abs(t.virial - ref.thermo.virial) < 1e-12 * std::abs(ref.thermo.virial));
}

TEST_CASE("gpu md: the list grows inside the step graphs (a build overflows, the steps halt and resume)",
          "[gpu][md]") {
  if (!haveGpu()) return;
  // 80 entries per atom: the lattice's 78 neighbours within cutoff + skin fit at the first build, the liquid's
  // (up to ~87) do not, so a build inside the step graphs overflows; the trajectory and the build count must still
  // be the CPU engine's. In chunks of 25 steps and of 100.
  EngineConfig c = ljBenchConfig(Precision::Double, IntegratorType::Nve);
  c.initialListStride = 80;
  for (const long long chunk : {25LL, 100LL}) {
    compareEngines(start(8), c, 100, chunk, {1e-9, 1e-10});
    auto gpu = makeCudaEngine(c, 0);
    gpu->initialize(start(8));
    gpu->advance(100, 0);
    CHECK(gpu->stats().maxNeighbors > 80);
  }
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
    auto cfg = ljBenchConfig(p, IntegratorType::Langevin);
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

TEST_CASE("gpu md: list build edge cases agree with the CPU (smallest boxes, bins exactly range / 2)", "[gpu][md]") {
  if (!haveGpu()) return;
  // 256 atoms, box 6.72 < 2.5 (cutoff + skin): too small for half-range bins, the small-box kernel.
  ParticleState small = makeFccLattice(0.8442, {4, 4, 4}, 1.0);
  createVelocities(small, 1.44, 87287);
  compareEngines(small, ljBenchConfig(Precision::Double, IntegratorType::Nve), 100, 100, {1e-9, 1e-10});
  // 256 atoms in a box of exactly 7 = 5 bins of (cutoff + skin) / 2: search spans of 6 bins are cut to 5.
  ParticleState exact = makeFccLattice(256.0 / 343.0, {4, 4, 4}, 1.0);
  for (int d = 0; d < 3; ++d) {
    const double scale = 7.0 / exact.box.length[d];  // cbrt() may land one ulp off 7
    std::vector<double>& coord = d == 0 ? exact.x : d == 1 ? exact.y : exact.z;
    for (double& v : coord) v = std::min(v * scale, std::nextafter(7.0, 0.0));
    exact.box.length[d] = 7.0;
  }
  createVelocities(exact, 1.44, 87287);
  compareEngines(exact, ljBenchConfig(Precision::Double, IntegratorType::Nve), 100, 100, {1e-9, 1e-10});
  compareEngines(exact, ljBenchConfig(Precision::Mixed, IntegratorType::Nve), 100, 100, {1e-3, 1e-4});
}

TEST_CASE("gpu md: NIST validation state point, CUDA and CPU trajectories agree (Langevin, cutoff 3, list growth)",
          "[gpu][md]") {
  if (!haveGpu()) return;
  // md.nist_lj_0.86 as validate runs it: 500 atoms at density 0.86, T* 0.85, cutoff 3 with tail corrections,
  // Langevin damping 1, advanced in chunks of 10 steps (thermo every 10). ~130 neighbours per atom: the first build
  // overflows the initial list and grows it. If the GPU path had a bias (thermostat, step keys, tail, energy sums),
  // the two trajectories would part here.
  ParticleState s = makeFccLattice(0.86, {5, 5, 5}, 1.0);
  createVelocities(s, 0.85, 4928);
  EngineConfig c = ljBenchConfig(Precision::Double, IntegratorType::Langevin);
  c.lj = LjSettings{1.0, 1.0, 3.0, false, true};
  c.integrator.temperature = 0.85;
  c.integrator.damping = 1.0;
  c.integrator.seed = 12;
  compareEngines(s, c, 300, 10, {1e-8, 1e-9}, c.lj);
  c.integrator.type = IntegratorType::NoseHoover;
  compareEngines(s, c, 300, 10, {1e-8, 1e-9}, c.lj);
}

TEST_CASE("gpu md: CUDA engine reports measured phase times, never zeros", "[gpu][md]") {
  if (!haveGpu()) return;
  const ParticleState s = start(8);
  for (bool timed : {false, true}) {
    EngineConfig c = ljBenchConfig(Precision::Mixed, IntegratorType::Nve);
    c.timePhases = timed;
    auto e = makeCudaEngine(c, 0);
    e->initialize(s);
    e->advance(200, 0);
    const EngineStats st = e->stats();
    INFO("timed " << timed << ": builds " << st.neighborBuilds << ", neighbour " << st.neighborSeconds << " s, force "
                  << st.forceSeconds << " s, integrate " << st.integrateSeconds << " s, mean neighbours "
                  << st.meanNeighbors);
    CHECK(st.neighborBuilds > 1);
    if (timed) CHECK(st.neighborSeconds > 0);
    else CHECK(std::isnan(st.neighborSeconds));  // built inside the step graphs: counted, not timed
    CHECK(st.meanNeighbors > 60);  // ~77 within 2.8 at density 0.8442
    CHECK(st.maxNeighbors >= st.meanNeighbors);
    if (timed) {
      CHECK(st.forceSeconds > 0);
      CHECK(st.integrateSeconds > 0);
    } else {
      CHECK(std::isnan(st.forceSeconds));  // inside the step graph: not measured, and not reported as 0
      CHECK(std::isnan(st.integrateSeconds));
    }
  }
}
