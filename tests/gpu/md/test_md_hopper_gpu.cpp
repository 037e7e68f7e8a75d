// The Hopper MD force path (EngineConfig::kernels = Hopper: forces from cells in thread block clusters, no neighbour
// list) against the CPU engine's forces and against the portable CUDA engine's trajectories. Needs a GPU of compute
// capability 9.0 or newer; elsewhere the cases return at once.
#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "CatchCompat.h"
#include "HaveGpu.h"
#include "MdEngineChecks.h"
#include "kernels/common/DeviceInfo.h"
#include "kernels/md/MdEngine.h"
#include "kernels/md/VelocityInit.h"
#include "solvers/md/FccLattice.h"
#include "solvers/md/MdSimulation.h"
#include "solvers/md/Thermo.h"

using namespace hopsim::md;

namespace {

using hopsim::testing::cpuReferenceForces;
using hopsim::testing::forcesById;
using hopsim::testing::maxPositionDifference;
using hopsim::testing::ReferenceForces;
using hopsim::testing::worstDifference;

using hopsim::testing::ljBenchConfig;

bool haveHopper() {
  if (!hopsim::testing::haveGpu()) return false;
  const auto gpus = hopsim::cudaDevices();
  return !gpus.empty() && gpus[0].ccMajor >= 9 && gpus[0].clusterLaunch;
}

EngineConfig hopper(EngineConfig c, int tileAtoms = 0) {
  c.kernels = hopsim::KernelVariant::Hopper;
  c.cellTileAtoms = tileAtoms;
  return c;
}

// A liquid (the lattice's forces vanish by symmetry): the fcc lattice of `cells` unit cells after 50 steps of the
// portable CUDA engine in double, or of the CPU engine (`onCpu`: no CUDA step graphs, for the sanitizer case).
ParticleState liquid(std::array<long long, 3> cells, bool onCpu = false) {
  ParticleState s = makeFccLattice(0.8442, cells, 1.0);
  createVelocities(s, 1.44, 87287);
  const EngineConfig c = ljBenchConfig(Precision::Double, IntegratorType::Nve);
  auto e = onCpu ? makeCpuEngine(c) : makeCudaEngine(c, 0);
  e->initialize(s);
  e->advance(50, 0);
  ParticleState out;
  e->download(out);
  return out;
}

struct Run {
  ParticleState state;
  ThermoRow thermo;
  long long builds = 0;
};

Run run(const EngineConfig& c, const ParticleState& s, long long steps, long long chunk) {
  auto e = makeCudaEngine(c, 0);
  e->initialize(s);
  for (long long done = 0; done < steps; done += chunk) e->advance(std::min(chunk, steps - done), done);
  Run r;
  r.thermo = makeThermoRow(e->thermo(), s.size(), s.box.volume(), c.lj, steps, steps * 0.005);
  e->download(r.state);
  sortById(r.state);
  r.builds = e->stats().neighborBuilds;
  return r;
}

// The forces, energy and virial of a liquid of `cells` fcc unit cells per axis on the Hopper path against the CPU
// engine (double, every tile size), and mixed precision's error against the list kernel's.
void checkForces(const std::array<long long, 3>& cells, bool liquidOnCpu = false) {
  const ParticleState s = liquid(cells, liquidOnCpu);
  const EngineConfig base = ljBenchConfig(Precision::Double, IntegratorType::Nve);
  const ReferenceForces ref = cpuReferenceForces(base, s);
  const std::vector<double>& reference = ref.byId;
  const RawThermo& rt = ref.thermo;
  const double largest = ref.largest;
  REQUIRE(largest > 1);
  // The default tile (whole bricks), 64 atoms (most cells read from global memory) and 1.
  for (const int tile : {0, 64, 1}) {
    auto gpu = makeCudaEngine(hopper(base, tile), 0);
    gpu->initialize(s);
    const double worst = worstDifference(forcesById(*gpu), reference);
    const RawThermo t = gpu->thermo();
    INFO(s.size() << " atoms, tile " << tile << ": largest force " << largest << ", worst difference " << worst
                  << "; potential " << t.potential << " against " << rt.potential << "; " << gpu->backendName());
    CHECK(worst < 1e-12 * largest);
    CHECK(std::abs(t.potential - rt.potential) < 1e-12 * std::abs(rt.potential));
    CHECK(std::abs(t.virial - rt.virial) < 1e-12 * std::abs(rt.virial));
    CHECK(std::isnan(gpu->stats().meanNeighbors));  // no list on this path
  }
  // Mixed precision: float pair sums in another order than the list kernel's, errors of the same size (float
  // positions in boxes of 13-34: 3e-5 to 4.4e-4 of the largest force for both, measured on the H200).
  auto mixedList = makeCudaEngine(ljBenchConfig(Precision::Mixed, IntegratorType::Nve), 0);
  auto mixedCells = makeCudaEngine(hopper(ljBenchConfig(Precision::Mixed, IntegratorType::Nve)), 0);
  mixedList->initialize(s);
  mixedCells->initialize(s);
  const double listError = worstDifference(forcesById(*mixedList), reference);
  const double cellError = worstDifference(forcesById(*mixedCells), reference);
  INFO("mixed: list kernel " << listError << ", cells " << cellError << " (largest force " << largest << ")");
  CHECK(cellError < 1e-3 * largest);
  CHECK(cellError < 2 * listError);
}

}  // namespace

TEST_CASE("gpu md hopper: forces from cells in clusters equal the CPU engine's (double, every tile size)",
          "[gpu][md][hopper]") {
  if (!haveHopper()) return;
  // 2,048 atoms (4 cells per axis: one brick, seven empty ones in its cluster), 32,000 (11 per axis: partial bricks,
  // eight clusters, DSMEM between bricks) and a box of 7 x 4 x 11 cells.
  for (const auto& cells : {std::array<long long, 3>{8, 8, 8}, std::array<long long, 3>{20, 20, 20},
                            std::array<long long, 3>{12, 8, 20}})
    checkForces(cells);
}

// For the sanitizers: one cluster of eight bricks, all holding atoms (7 cells per axis), DSMEM between every pair;
// the liquid made on the CPU, so that the GPU runs only the engines' setup, sort and force kernels.
TEST_CASE("gpu md hopper: forces of one full cluster (for the sanitizers)", "[gpu][md][hopper][md-sanitize]") {
  if (!haveHopper()) return;
  checkForces({12, 12, 12}, true);
}

TEST_CASE("gpu md hopper: trajectories equal the portable engine's (NVE, Langevin, Nose-Hoover; double)",
          "[gpu][md][hopper]") {
  if (!haveHopper()) return;
  const ParticleState s = liquid({20, 20, 20});
  for (const IntegratorType type : {IntegratorType::Nve, IntegratorType::Langevin, IntegratorType::NoseHoover}) {
    for (const long long chunk : {25LL, 200LL}) {
      const EngineConfig c = ljBenchConfig(Precision::Double, type);
      const Run list = run(c, s, 200, chunk), cells = run(hopper(c), s, 200, chunk);
      const double dx = maxPositionDifference(list.state, cells.state);
      INFO("integrator " << static_cast<int>(type) << ", chunk " << chunk << ": position difference " << dx
                         << ", pe " << list.thermo.pe << " / " << cells.thermo.pe << ", builds " << list.builds
                         << " / " << cells.builds);
      CHECK(dx < 1e-9);
      CHECK(std::abs(list.thermo.pe - cells.thermo.pe) < 1e-10 * std::abs(list.thermo.pe));
      CHECK(std::abs(list.thermo.temp - cells.thermo.temp) < 1e-10 * std::abs(list.thermo.temp));
      CHECK(std::abs(list.thermo.press - cells.thermo.press) < 1e-10 * std::max(1.0, std::abs(list.thermo.press)));
      CHECK(list.builds == cells.builds);  // the same rebuild rule (skin / 2)
    }
  }
  // Mixed precision: the energy drift over 2,000 NVE steps is the list kernel's.
  const EngineConfig mixed = ljBenchConfig(Precision::Mixed, IntegratorType::Nve);
  const Run start0 = run(mixed, s, 0, 1);
  const Run list = run(mixed, s, 2000, 500), cells = run(hopper(mixed), s, 2000, 500);
  const double e0 = start0.thermo.etotal;
  INFO("total energy per atom: start " << e0 << ", list " << list.thermo.etotal << ", cells " << cells.thermo.etotal);
  CHECK(std::abs(cells.thermo.etotal - e0) < 2e-3 * std::abs(e0));
  CHECK(std::abs(cells.thermo.etotal - list.thermo.etotal) < 1e-3 * std::abs(e0));
}
