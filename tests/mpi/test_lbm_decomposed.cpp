// Decomposed LBM against the one-rank run of the same case: fields bitwise equal on every process grid the ranks
// at hand allow (2D and 3D, periodic axes, walls, a moving wall, inlet and outlet, an obstacle spanning ranks, with
// half-way and interpolated bounce-back),
// observables and obstacle forces equal to round-off of the order of summation.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "CatchCompat.h"
#include "HaveGpu.h"
#include "io/CaseReader.h"
#include "io/LbmCaseParser.h"
#include "kernels/common/DeviceInfo.h"
#include "core/Mpi.h"
#include "solvers/lbm/LbmSimulation.h"

namespace lbm = hopsim::lbm;
namespace mpi = hopsim::mpi;

namespace {

struct Case {
  std::string name;
  int dimensions;
  std::string yaml;  // without device.ranks
  long long steps;
};

std::vector<Case> cases() {
  return {
      {"2D D2Q9 channel: periodic x, wall and moving wall, body force, circle", 2,
       "solver: lbm\nlattice: D2Q9\nprecision: double\ndomain: {cells: [48, 36], periodic: [x]}\n"
       "fluid: {viscosity: 0.05}\nbody_force: [1e-5, 0]\nboundaries:\n  y-: {type: wall}\n"
       "  y+: {type: moving_wall, velocity: [0.04, 0]}\n"
       "obstacles:\n  - {name: c, shape: circle, center: [24.3, 17.6], radius: 7}\n",
       120},
      {"2D D2Q9 TRT single: parabolic inlet, pressure outlet, walls, circle", 2,
       "solver: lbm\nlattice: D2Q9\nprecision: single\ncollision: {model: trt}\ndomain: {cells: [40, 26]}\n"
       "fluid: {viscosity: 0.04}\nboundaries:\n  x-: {type: velocity_inlet, profile: parabolic, velocity: [0.05, 0]}\n"
       "  x+: {type: pressure_outlet, density: 1.0}\n  y-: {type: wall}\n  y+: {type: wall}\n"
       "obstacles:\n  - {name: c, shape: circle, center: [14, 12.7], radius: 5}\n",
       100},
      {"3D D3Q19 TRT: periodic x and z, walls in y, body force, sphere", 3,
       "solver: lbm\nlattice: D3Q19\nprecision: double\ncollision: {model: trt}\ndomain: {cells: [20, 18, 16], periodic: [x, z]}\n"
       "fluid: {viscosity: 0.05}\nbody_force: [2e-5, 0, 1e-5]\nboundaries:\n  y-: {type: wall}\n"
       "  y+: {type: wall}\nobstacles:\n  - {name: s, shape: sphere, center: [10.2, 8.7, 8.1], radius: 4}\n",
       60},
      {"3D D3Q19 TRT + Smagorinsky LES: periodic x and z, walls in y, body force, sphere", 3,
       "solver: lbm\nlattice: D3Q19\nprecision: single\n"
       "collision: {model: trt, les: {model: smagorinsky, cs: 0.3}}\ndomain: {cells: [20, 18, 16], periodic: [x, z]}\n"
       "fluid: {viscosity: 0.02}\nbody_force: [4e-5, 0, 2e-5]\nboundaries:\n  y-: {type: wall}\n"
       "  y+: {type: wall}\nobstacles:\n  - {name: s, shape: sphere, center: [10.2, 8.7, 8.1], radius: 4}\n",
       60},
      {"3D D3Q27 duct: parabolic inlet, outlet, walls, lid, box obstacle", 3,
       "solver: lbm\nlattice: D3Q27\nprecision: double\ndomain: {cells: [20, 12, 12]}\nfluid: {viscosity: 0.05}\n"
       "boundaries:\n  x-: {type: velocity_inlet, profile: parabolic, velocity: [0.04, 0, 0]}\n"
       "  x+: {type: pressure_outlet, density: 1.0}\n  y-: {type: wall}\n  y+: {type: wall}\n  z-: {type: wall}\n"
       "  z+: {type: moving_wall, velocity: [0.02, 0.01, 0]}\n"
       "obstacles:\n  - {name: b, shape: box, min: [7, 3, 4], max: [11, 8, 9]}\n",
       50},
      {"2D D2Q9 interpolated bounce-back: circles across ranks and the periodic face, inlet, outlet", 2,
       "solver: lbm\nlattice: D2Q9\nprecision: double\ndomain: {cells: [44, 30], periodic: [y]}\n"
       "fluid: {viscosity: 0.04}\nboundaries:\n  x-: {type: velocity_inlet, velocity: [0.04, 0]}\n"
       "  x+: {type: pressure_outlet, density: 1.0}\n"
       "obstacles:\n  - {name: c, shape: circle, center: [21.7, 14.6], radius: 6.3, boundary: interpolated}\n"
       "  - {name: edge, shape: circle, center: [33.2, 3.4], radius: 3.1, boundary: interpolated}\n",
       90},
      {"3D D3Q19 interpolated bounce-back: sphere across ranks, walls, body force", 3,
       "solver: lbm\nlattice: D3Q19\nprecision: double\ndomain: {cells: [20, 18, 16], periodic: [x, z]}\n"
       "fluid: {viscosity: 0.05}\nbody_force: [2e-5, 0, 1e-5]\nboundaries:\n  y-: {type: wall}\n"
       "  y+: {type: wall}\nobstacles:\n  - {name: s, shape: sphere, center: [9.6, 8.7, 8.3], radius: 4.6, "
       "boundary: interpolated}\n",
       50},
  };
}

lbm::LbmCase parse(const std::string& yaml, const std::array<int, 3>& ranks, const char* backend = "cpu",
                   const char* halo = "auto") {
  std::string text = yaml + "run: {steps: 1}\ndevice: {backend: " + backend + ", halo: " + halo;
  if (ranks[0] > 0)
    text += ", ranks: [" + std::to_string(ranks[0]) + ", " + std::to_string(ranks[1]) + ", " +
            std::to_string(ranks[2]) + "]";
  text += "}\n";
  return hopsim::io::parseLbmCase(hopsim::io::CaseDocument::fromString(text, "case.yaml"));
}

// MPI_Dims_create's grid (0) and every explicit grid of n ranks over the case's axes.
std::vector<std::array<int, 3>> gridsFor(int n, int dimensions) {
  std::vector<std::array<int, 3>> grids{{0, 0, 0}};
  for (int a = 1; a <= n; ++a)
    for (int b = 1; a * b <= n; ++b)
      if (n % (a * b) == 0) {
        const int c = n / (a * b);
        if (dimensions == 2 && c != 1) continue;
        grids.push_back({a, b, c});
      }
  return grids;
}

double largestDifference(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0;
  for (std::size_t k = 0; k < a.size(); ++k) worst = std::max(worst, std::abs(a[k] - b[k]));
  return worst;
}

double relative(double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-300); }

// The state after `steps` steps, forces computed in the last one (fields on rank 0 only).
struct Final {
  std::vector<double> rho, u;
  lbm::Observables observables;
  std::vector<std::array<double, 3>> forces;
};

Final runToEnd(lbm::LbmSimulation& sim, long long steps) {
  sim.advance(steps - 1);
  sim.advance(1, true);
  Final f;
  sim.fields(f.rho, f.u);
  f.observables = sim.observables();
  f.forces = sim.forces();
  return f;
}

// Runs every case on every grid with `backend` and `kernels` (halo planes travelling as `halo` asks) and compares
// with the one-rank run on the same backend and kernels; where `bulk` is given, every decomposed run must have
// planned that bulk update.
void compareWithOneRank(hopsim::Backend backend, const std::vector<Case>& all, const char* halo = "auto",
                        hopsim::KernelVariant kernels = hopsim::KernelVariant::Auto,
                        std::optional<lbm::BulkUpdate> bulk = std::nullopt) {
  const char* backendName = backend == hopsim::Backend::Cuda ? "cuda" : "cpu";
  for (const Case& k : all) {
    INFO(k.name << " on " << backendName << ", kernels " << hopsim::toString(kernels) << ", halo " << halo);
    // The one-rank reference, run by every rank on its own; device.ranks does not change it.
    lbm::LbmSimulation one(parse(k.yaml, {0, 0, 0}, backendName), backend, kernels);
    const Final ref = runToEnd(one, k.steps);
    const std::vector<double>&refRho = ref.rho, &refU = ref.u;
    const lbm::Observables& refObs = ref.observables;
    const auto& refForces = ref.forces;

    // HOPSIM_TEST_QUICK (the sanitizer runs): MPI_Dims_create's grid only.
    std::vector<std::array<int, 3>> grids = gridsFor(mpi::size(), k.dimensions);
    if (std::getenv("HOPSIM_TEST_QUICK")) grids.resize(1);
    for (const auto& grid : grids) {
      INFO("grid " << grid[0] << " " << grid[1] << " " << grid[2] << " on " << mpi::size() << " ranks");
      lbm::LbmSimulation run(parse(k.yaml, grid, backendName, halo), backend, kernels, mpi::Comm::world());
      CHECK(run.decomposed() == (mpi::size() > 1));
      if (bulk) CHECK(run.devicePlan().lbm.bulk == *bulk);
      if (run.decomposed() && std::string(halo) != "auto") CHECK(hopsim::toString(run.haloTransport()) == std::string(halo));
      const Final got = runToEnd(run, k.steps);
      const std::vector<double>&rho = got.rho, &u = got.u;
      const lbm::Observables& obs = got.observables;
      const auto& forces = got.forces;
      // Reductions sum in another order than one rank does: equal to round-off, not bitwise. The CUDA backend sums
      // a warp's 32 cells in the arithmetic type, FP32 for single and half storage: a different box width puts other
      // cells in a warp, and 31 roundings of 2^-24 bound the relative change of a sum of positive terms (the kinetic
      // energy) by 1.9e-6, of the mass (the sum of rho - 1 beside the cell count) by far less.
      const bool floatSums = backend == hopsim::Backend::Cuda && k.yaml.find("precision: double") == std::string::npos;
      CHECK(relative(obs.mass, refObs.mass) <= (floatSums ? 1e-9 : 1e-13));
      CHECK(relative(obs.kineticEnergy, refObs.kineticEnergy) <= (floatSums ? 2e-6 : 1e-10));
      CHECK(obs.maxSpeed == refObs.maxSpeed);
      REQUIRE(forces.size() == refForces.size());
      for (std::size_t ob = 0; ob < forces.size(); ++ob)
        for (int a = 0; a < 3; ++a)
          CHECK(std::abs(forces[ob][a] - refForces[ob][a]) <= 1e-10 * (std::abs(refForces[ob][0]) + 1e-12));
      if (mpi::isRoot()) {
        // Root-only checks use CHECK: a REQUIRE would leave the other ranks waiting in the next collective.
        CHECK(rho.size() == refRho.size());
        CHECK(u.size() == refU.size());
        if (rho.size() == refRho.size() && u.size() == refU.size()) {
          const double dr = largestDifference(rho, refRho), du = largestDifference(u, refU);
          CHECK(dr == 0.0);
          CHECK(du == 0.0);
          std::printf("  %s (halo %s), %d ranks, grid %s[%d %d %d], %s: max |drho| %.3g, max |du| %.3g, |dF| %.3g\n",
                      backendName, hopsim::toString(run.haloTransport()), mpi::size(), grid[0] ? "" : "auto ", run.decomposition() ? run.decomposition()->dims()[0] : 1,
                      run.decomposition() ? run.decomposition()->dims()[1] : 1,
                      run.decomposition() ? run.decomposition()->dims()[2] : 1, k.name.c_str(), dr, du,
                      forces.empty() ? 0.0 : std::abs(forces[0][0] - refForces[0][0]));
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("decomposed LBM fields equal one-rank fields bitwise on every process grid", "[mpi][lbm]") {
  compareWithOneRank(hopsim::Backend::Cpu, cases());
}

// On the GPU machine, under mpiexec with the ranks sharing the GPU(s); ctest's CPU runs exclude it ("~[gpu]").
// FP16 storage joins the cases there: its halo planes travel as the stored 2-byte values.
TEST_CASE("decomposed LBM on the GPU equals the one-rank GPU run bitwise", "[mpi][lbm][gpu]") {
  if (hopsim::cudaDeviceCount() == 0) {
    if (mpi::isRoot()) std::printf("  no CUDA device (or hopsim built without CUDA): GPU case skipped\n");
    return;
  }
  // A decomposed box updates its wall cells in the boundary pass; one undecomposed box may update them in the bulk
  // pass (KernelPlan::wallsInBulk), whose arithmetic rounds differently on the GPU (equal to 4e-7 in FP32, not
  // bitwise; docs/performance.md, "Bounded cases"). The reference takes the boundary pass too, so that the
  // comparison is of the decomposition alone.
  ::setenv("HOPSIM_LBM_WALLS_IN_BULK", "0", 1);
  std::vector<Case> all = cases();
  Case half = all[2];
  half.name = "3D D3Q19 TRT FP16 storage: periodic x and z, walls in y, body force, sphere";
  half.yaml.replace(half.yaml.find("precision: double"), 17, "precision: half");
  all.push_back(half);
  // Both transports: through pinned host memory, and GPU to GPU through CUDA IPC (ranks of one node).
  compareWithOneRank(hopsim::Backend::Cuda, all, "staged");
  compareWithOneRank(hopsim::Backend::Cuda, all, "ipc");
  ::unsetenv("HOPSIM_LBM_WALLS_IN_BULK");
}

TEST_CASE("the direct GPU halo transport is refused where planes live in host memory", "[mpi][lbm]") {
  if (mpi::size() < 2) return;
  try {
    lbm::LbmSimulation run(parse(cases()[0].yaml, {0, 0, 0}, "cpu", "ipc"), hopsim::Backend::Cpu,
                           hopsim::KernelVariant::Auto, mpi::Comm::world());
    FAIL("expected an error");
  } catch (const std::exception& e) {
    CHECK(std::string(e.what()).find("device.halo: ipc is not possible here") != std::string::npos);
  }
}

TEST_CASE("a grid that does not fit the ranks or the domain is a clear error", "[mpi][lbm]") {
  if (mpi::size() < 2) return;
  const std::string yaml = cases()[0].yaml;
  // Twice the ranks this run has along x.
  try {
    lbm::LbmSimulation run(parse(yaml, {2 * mpi::size(), 1, 1}), hopsim::Backend::Cpu, hopsim::KernelVariant::Auto,
                           mpi::Comm::world());
    FAIL("expected an error");
  } catch (const std::exception& e) {
    CHECK(std::string(e.what()).find("device.ranks") != std::string::npos);
  }
  // More ranks along y than a domain 2 cells tall has cells (where there are 3 ranks or more).
  if (mpi::size() >= 3) {
    const std::string thin = "solver: lbm\nlattice: D2Q9\nprecision: double\ndomain: {cells: [8, 2], periodic: [x, y]}\n"
                             "fluid: {viscosity: 0.05}\n";
    try {
      lbm::LbmSimulation run(parse(thin, {1, mpi::size(), 1}), hopsim::Backend::Cpu, hopsim::KernelVariant::Auto,
                             mpi::Comm::world());
      FAIL("expected an error");
    } catch (const std::exception& e) {
      CHECK(std::string(e.what()).find("less than") != std::string::npos);
    }
  }
}

// The Hopper kernels split over ranks sharing the GPU(s): the temporal kernel with ghost layers as deep as its steps
// per launch (D2Q9 at 4, D3Q19 at 2 when asked; exchanged after each launch; the step counts leave remainders of
// single steps; periodic boxes and a cavity with an obstacle), and the cluster kernel on the interior of the
// shell-first step (boxes with inlets, and periodic ones where the temporal kernel is off). The one-rank reference
// runs the same kernels: fields bitwise equal.
TEST_CASE("decomposed LBM with the Hopper kernels equals the one-rank Hopper run bitwise", "[mpi][lbm][gpu][hopper]") {
  if (!hopsim::testing::haveHopperGpu(mpi::isRoot())) return;
  ::setenv("HOPSIM_LBM_WALLS_IN_BULK", "0", 1);
  const auto periodic = [](const char* lattice, const char* precision, const char* cells, const char* force,
                           long long steps) {
    const std::string name = std::string(lattice) + " " + precision + " periodic box, Taylor-Green vortex, body force";
    const bool two = std::string(lattice) == "D2Q9";
    return Case{name, two ? 2 : 3,
                std::string("solver: lbm\nlattice: ") + lattice + "\nprecision: " + precision + "\ndomain: {cells: " +
                    cells + ", periodic: " + (two ? "[x, y]" : "[x, y, z]") + "}\nfluid: {viscosity: 0.02}\n"
                    "initial: {taylor_green: {u0: 0.04}}\nbody_force: " + force + "\n",
                steps};
  };
  const std::vector<Case> d2q9 = {periodic("D2Q9", "single", "[64, 40]", "[2e-5, 1e-5]", 61),
                                  periodic("D2Q9", "half", "[64, 40]", "[2e-5, 1e-5]", 42)};
  compareWithOneRank(hopsim::Backend::Cuda, d2q9, "ipc", hopsim::KernelVariant::Hopper,
                     lbm::BulkUpdate::HopperTemporal);
  // The wall variant: walls, a moving lid and a circle bounced back inside the levels, ghost cells' lower levels
  // computed from their own classes.
  const Case cavity{"D2Q9 single cavity with a circle: walls, moving lid, solid cells", 2,
                    "solver: lbm\nlattice: D2Q9\nprecision: single\ndomain: {cells: [64, 40]}\n"
                    "fluid: {viscosity: 0.02}\nboundaries:\n  x-: {type: wall}\n  x+: {type: wall}\n"
                    "  y-: {type: wall}\n  y+: {type: moving_wall, velocity: [0.05, 0]}\n"
                    "obstacles:\n  - {name: c, shape: circle, center: [30.4, 17.7], radius: 6}\n",
                    61};
  compareWithOneRank(hopsim::Backend::Cuda, {cavity}, "ipc", hopsim::KernelVariant::Hopper,
                     lbm::BulkUpdate::HopperTemporal);
  compareWithOneRank(hopsim::Backend::Cuda, {d2q9[0]}, "staged", hopsim::KernelVariant::Hopper,
                     lbm::BulkUpdate::HopperTemporal);
  const std::vector<Case> d3q19 = {periodic("D3Q19", "single", "[20, 20, 20]", "[2e-5, 1e-5, -1e-5]", 23),
                                   periodic("D3Q19", "half", "[20, 20, 20]", "[2e-5, 1e-5, -1e-5]", 20)};
  ::setenv("HOPSIM_HOPPER_STEPS", "2", 1);
  compareWithOneRank(hopsim::Backend::Cuda, d3q19, "ipc", hopsim::KernelVariant::Hopper,
                     lbm::BulkUpdate::HopperTemporal);
  ::setenv("HOPSIM_HOPPER_STEPS", "off", 1);
  std::vector<Case> cluster = {d3q19[0], d2q9[0]};
  for (const Case& k : cases())
    if (k.yaml.find("precision: single") != std::string::npos) cluster.push_back(k);
  Case half = cases()[2];
  half.name = "3D D3Q19 TRT FP16 storage: periodic x and z, walls in y, body force, sphere";
  half.yaml.replace(half.yaml.find("precision: double"), 17, "precision: half");
  cluster.push_back(half);
  compareWithOneRank(hopsim::Backend::Cuda, cluster, "ipc", hopsim::KernelVariant::Hopper,
                     lbm::BulkUpdate::HopperCluster);
  ::unsetenv("HOPSIM_HOPPER_STEPS");
  ::unsetenv("HOPSIM_LBM_WALLS_IN_BULK");
}
