// The Hopper LBM backend (kernels/lbm/hopper/: thread block clusters, DSMEM halos, TMA tile loads) against the
// portable CUDA backend. The cluster kernel runs the same collide() on the same populations, so after N steps the
// fields must be bitwise equal: D2Q9 and D3Q19 in single and FP16 storage, every boundary type of the agreement
// cases, plus boxes spanning several tiles and clusters, with TMA and plain tile loads and every cluster size.
// Also: the fallbacks (D3Q27, double: portable bulk kernel), graphs against single launches, the bench wiring,
// and the clear error on a GPU older than Hopper.
//
// Run: hopsim_tests "[hopper]"   (skips without a GPU; the bitwise tests skip on GPUs older than compute 9.0)
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "CatchCompat.h"
#include "HaveGpu.h"
#include "LbmAgreementCases.h"
#include "kernels/common/DeviceInfo.h"
#include "solvers/lbm/LbmBench.h"

#if HOPSIM_WITH_CUDA
#include "PlannedBackend.h"

using namespace hopsim;
using namespace hopsim::lbm;
using namespace hopsim::lbm::testing;

namespace {

constexpr int kStepsOff = DeviceOverrides::kStepsOff, kStepsAuto = DeviceOverrides::kStepsAuto;

int gpuMajor() {
  if (cudaDeviceCount() <= 0) return 0;
  return cudaDevices().front().ccMajor;
}


// The portable kernels as the Hopper ones run the cells that are not bulk: in the boundary kernel (the portable
// bulk kernel's own wall pass compiles collide() differently and agrees only to round-off; test_lbm_cuda_agreement).
std::unique_ptr<LbmBackend> portable(LbmSetup s) {
  s.layout = StreamingLayout::TwoLattice;
  DeviceOverrides o;
  o.wallsInBulk = 0;  // HOPSIM_LBM_WALLS_IN_BULK=0
  return plannedCudaBackend(s, KernelVariant::Portable, o);
}

// The cluster kernel unless `steps` asks for the temporal kernel (1, 2, 4 steps per launch, or auto), as the
// HOPSIM_HOPPER_* variables would.
std::unique_ptr<LbmBackend> hopperBackend(LbmSetup s, int clusterBlocks, TileLoad load, int steps = kStepsOff,
                                          int temporalCluster = 0, int openBlocks = 0) {
  s.layout = StreamingLayout::TwoLattice;
  DeviceOverrides o;
  o.hopperCluster = clusterBlocks;
  o.tileLoad = load;
  o.hopperSteps = steps;
  o.temporalCluster = temporalCluster;
  o.temporalOpenBlocks = openBlocks;
  return plannedCudaBackend(s, KernelVariant::Hopper, o);
}

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// The obstacle forces of two runs: their largest component difference within `tol` of the largest component of
// `ref` (of `floor` where those vanish).
void checkForces(const std::vector<std::array<double, 3>>& ref, const std::vector<std::array<double, 3>>& test,
                 double tol, double floor = 0) {
  REQUIRE(ref.size() == test.size());
  double scale = 0, diff = 0;
  for (std::size_t k = 0; k < ref.size(); ++k)
    for (int d = 0; d < 3; ++d) {
      scale = std::max(scale, std::abs(ref[k][d]));
      diff = std::max(diff, std::abs(ref[k][d] - test[k][d]));
    }
  INFO("force difference " << diff << " of " << scale);
  CHECK(diff <= tol * std::max(scale, floor));
}

// Every cell's density and velocity bit for bit (solid cells read 1 and 0 in both), the observables (fixed-order
// reductions of the same populations) bit for bit, the obstacle forces (sums of atomics in any order) to round-off.
void checkIdentical(LbmBackend& ref, LbmBackend& test) {
  std::vector<double> rr, ur, rt, ut;
  ref.macroscopic(rr, ur);
  test.macroscopic(rt, ut);
  REQUIRE(rr.size() == rt.size());
  REQUIRE(ur.size() == ut.size());
  std::size_t rhoDiffer = 0, uDiffer = 0, firstBad = rr.size();
  double maxSpeed = 0;
  for (std::size_t c = 0; c < rr.size(); ++c) {
    const bool rhoSame = sameBits(rr[c], rt[c]);
    const bool uSame = sameBits(ur[3 * c], ut[3 * c]) && sameBits(ur[3 * c + 1], ut[3 * c + 1]) &&
                       sameBits(ur[3 * c + 2], ut[3 * c + 2]);
    rhoDiffer += !rhoSame;
    uDiffer += !uSame;
    if ((!rhoSame || !uSame) && firstBad == rr.size()) firstBad = c;
    maxSpeed = std::max(maxSpeed, std::hypot(ur[3 * c], ur[3 * c + 1], ur[3 * c + 2]));
  }
  INFO("cells " << rr.size() << ", density differs in " << rhoDiffer << ", velocity in " << uDiffer
                << (firstBad < rr.size() ? ", first at cell " + std::to_string(firstBad) : std::string()));
  CHECK(std::isfinite(maxSpeed));
  CHECK(maxSpeed > 1e-4);  // a flow, not a fluid at rest
  CHECK(rhoDiffer == 0);
  CHECK(uDiffer == 0);
  const Observables a = ref.observables(), b = test.observables();
  CHECK(sameBits(a.mass, b.mass));
  CHECK(sameBits(a.kineticEnergy, b.kineticEnergy));
  CHECK(sameBits(a.maxSpeed, b.maxSpeed));
  checkForces(ref.obstacleForces(), test.obstacleForces(), 1e-12, 1e-30);
}

// The same state to round-off, for kernels that compute the same arithmetic in a different order of fused
// multiply-adds (the compiler contracts collide() differently inside different kernels): density and velocity of
// every cell within `tol` times the flow's largest speed, the mass (a sum of density deviations) within that per
// cell, the kinetic energy within 2 tol relative.
// A wrong pull or a stale plane moves populations by O(u), far above any such tolerance.
void checkClose(LbmBackend& ref, LbmBackend& test, double tol) {
  std::vector<double> rr, ur, rt, ut;
  ref.macroscopic(rr, ur);
  test.macroscopic(rt, ut);
  REQUIRE(rr.size() == rt.size());
  REQUIRE(ur.size() == ut.size());
  double maxSpeed = 0, dRho = 0, dU = 0;
  for (std::size_t c = 0; c < rr.size(); ++c) {
    maxSpeed = std::max(maxSpeed, std::hypot(ur[3 * c], ur[3 * c + 1], ur[3 * c + 2]));
    dRho = std::max(dRho, std::abs(rr[c] - rt[c]));
    for (int a = 0; a < 3; ++a) dU = std::max(dU, std::abs(ur[3 * c + a] - ut[3 * c + a]));
  }
  std::printf("  max |d rho| %.3g, max |d u| %.3g of max |u| %.3g (tolerance %.3g)\n", dRho, dU, maxSpeed, tol);
  INFO("max |d rho| " << dRho << ", max |d u| " << dU << ", max |u| " << maxSpeed);
  CHECK(std::isfinite(dRho + dU + maxSpeed));
  CHECK(maxSpeed > 1e-4);  // a flow, not a fluid at rest
  CHECK(dRho <= tol * maxSpeed);
  CHECK(dU <= tol * maxSpeed);
  const Observables a = ref.observables(), b = test.observables();
  CHECK(std::abs(a.mass - b.mass) <= tol * maxSpeed * static_cast<double>(rr.size()));
  CHECK(std::abs(a.kineticEnergy - b.kineticEnergy) <= 2 * tol * std::abs(a.kineticEnergy));
}

// 100 steps as the agreement tests run them: a graph of 32 and 5 single launches, then 63 steps ending with forces.
void run100(LbmBackend& b) {
  b.advance(37, false);
  b.advance(63, true);
}

LbmSetup withPrecision(LbmSetup s, Precision p) {
  s.precision = p;
  return s;
}

// Boxes of several tiles (32 x 8 x 1 cells) and clusters in every direction, sizes not multiples of the tile or of
// the cluster, periodic (with wrap-around pulls across cluster bricks) and walled (boundary cells interleaved with
// cluster-kernel cells). All x extents keep TMA usable for FP32 and FP16 (x * 2 bytes a multiple of 16).
std::vector<std::pair<std::string, std::string>> largeCases() {
  const std::string common = "solver: lbm\nfluid: {tau: 0.62}\nrun: {steps: 100}\n";
  return {
      {"D3Q19 periodic 72x20x19 + box obstacle + force",
       common + "lattice: D3Q19\nprecision: single\ncollision: {model: trt}\n"
                "domain: {cells: [72, 20, 19], periodic: [x, y, z]}\nbody_force: [2.0e-5, -1.0e-5, 0.5e-5]\n"
                "obstacles:\n  - {name: block, shape: box, min: [30, 6, 5], max: [41, 13, 11]}\n"
                "initial: {taylor_green: {u0: 0.04, form: 2d}}\n"},
      {"D3Q19 duct 64x22x17 walls + moving lid + sphere",
       common + "lattice: D3Q19\nprecision: single\ncollision: {model: bgk}\n"
                "domain: {cells: [64, 22, 17], periodic: [x]}\nbody_force: [3.0e-5, 0, 0]\nboundaries:\n"
                "  y-: {type: wall}\n  y+: {type: wall}\n  z-: {type: wall}\n"
                "  z+: {type: moving_wall, velocity: [0.04, 0.01, 0]}\n"
                "obstacles:\n  - {name: ball, shape: sphere, center: [20, 11.3, 8.2], radius: 4}\n"
                "initial: {density: 1.0, velocity: [0.01, 0.002, -0.001]}\n"},
      {"D2Q9 periodic 136x90 + cylinder + force",
       common + "lattice: D2Q9\nprecision: single\ncollision: {model: bgk}\n"
                "domain: {cells: [136, 90], periodic: [x, y]}\nbody_force: [2.0e-5, 1.0e-5]\n"
                "obstacles:\n  - {name: cyl, shape: circle, center: [50, 40.5], radius: 9}\n"
                "initial: {taylor_green: {u0: 0.04}}\n"},
      {"D2Q9 channel 96x41 inlet/outlet/walls + cylinder",
       common + "lattice: D2Q9\nprecision: single\ncollision: {model: trt}\n" + channel2dYaml(96, 41) +
           "obstacles:\n  - {name: cyl, shape: circle, center: [24, 20.3], radius: 5}\n"
           "initial: {density: 1.0, velocity: [0.03, 0]}\n"},
  };
}

// The error an explicit step count gets where the temporal kernel cannot run `s` (empty where it ran).
std::string stepsRefusal(const LbmSetup& s, int steps) {
  try {
    hopperBackend(s, 0, TileLoad::Auto, steps);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return {};
}

}  // namespace

TEST_CASE("Hopper LBM equals the portable kernels bitwise on every agreement case", "[gpu][lbm][hopper]") {
  if (!hopsim::testing::haveHopperGpu()) return;
  for (const std::string lattice : {"D2Q9", "D3Q19"})
    for (const Precision precision : {Precision::Single, Precision::Half})
      for (const std::string& collision : collisionModels())
        for (const Flow flow : flowsFor(lattice))
          for (const TileLoad load : {TileLoad::Auto, TileLoad::Plain}) {
            const LbmSetup setup =
                withPrecision(buildSetup(parseCase(caseYaml(lattice, "single", collision, flow))), precision);
            auto ref = portable(setup);
            auto h = hopperBackend(setup, 0, load);
            INFO(lattice << (precision == Precision::Half ? " half " : " single ") << collision << " "
                         << flowName(flow) << " | " << h->description());
            CHECK(h->name() == "cuda/hopper");
            CHECK(h->description().find("cluster kernel") != std::string::npos);
            run100(*ref);
            run100(*h);
            checkIdentical(*ref, *h);
          }
}

TEST_CASE("Hopper LBM equals the portable kernels bitwise across tiles and clusters of every size", "[gpu][lbm][hopper]") {
  if (!hopsim::testing::haveHopperGpu()) return;
  for (const auto& [name, yaml] : largeCases())
    for (const Precision precision : {Precision::Single, Precision::Half}) {
      const LbmSetup setup = withPrecision(buildSetup(parseCase(yaml)), precision);
      auto ref = portable(setup);
      run100(*ref);
      for (const int cluster : {0, 2, 4, 8, 16})
        for (const TileLoad load : {TileLoad::Tma, TileLoad::Plain}) {
          std::unique_ptr<LbmBackend> h;
          try {
            h = hopperBackend(setup, cluster, load);
          } catch (const std::runtime_error& e) {
            // A 16-block cluster is non-portable: a device may refuse it. Every other size must run.
            INFO(e.what());
            CHECK(cluster == 16);
            WARN("cluster of 16 refused: " << e.what());
            continue;
          }
          INFO(name << (precision == Precision::Half ? " half" : " single") << ", cluster " << cluster
                    << (load == TileLoad::Tma ? ", TMA" : ", plain") << " | " << h->description());
          if (load == TileLoad::Tma) CHECK(h->description().find("tile loads: TMA") != std::string::npos);
          else CHECK(h->description().find("tile loads: plain") != std::string::npos);
          if (cluster) CHECK(h->description().find("clusters of " + std::to_string(cluster) + " blocks") != std::string::npos);
          run100(*h);
          checkIdentical(*ref, *h);
        }
    }
}

TEST_CASE("Hopper LBM: fallbacks, layouts, TMA refusal, graphs and single launches", "[gpu][lbm][hopper]") {
  if (!hopsim::testing::haveHopperGpu()) return;
  SECTION("D3Q27 and double run the portable bulk kernel inside the Hopper backend, bitwise the same") {
    const std::vector<std::pair<std::string, Precision>> cases = {
        {"D3Q27", Precision::Single}, {"D3Q27", Precision::Half}, {"D3Q19", Precision::Double},
        {"D2Q9", Precision::Double}};
    for (const auto& [lattice, precision] : cases) {
      const LbmSetup setup = withPrecision(
          buildSetup(parseCase(caseYaml(lattice, "single", "trt", Flow::PeriodicForce))), precision);
      auto ref = portable(setup);
      auto h = hopperBackend(setup, 0, TileLoad::Auto);
      INFO(lattice << " " << h->description());
      CHECK(h->description().find("portable bulk kernel") != std::string::npos);
      run100(*ref);
      run100(*h);
      checkIdentical(*ref, *h);
    }
  }
  SECTION("an x extent TMA cannot stride falls back to plain loads and says why") {
    // The duct case is 10 cells wide: 40 bytes per FP32 row, not a multiple of 16.
    const LbmSetup setup = buildSetup(parseCase(caseYaml("D3Q19", "single", "bgk", Flow::Duct)));
    auto h = hopperBackend(setup, 0, TileLoad::Tma);
    INFO(h->description());
    CHECK(h->description().find("TMA not used") != std::string::npos);
  }
  SECTION("in-place requested: two lattices, with a note; through makeCudaBackend") {
    LbmSetup setup = buildSetup(parseCase(caseYaml("D3Q19", "single", "bgk", Flow::PeriodicForce)));
    setup.layout = StreamingLayout::InPlace;
    auto h = plannedCudaBackend(setup, KernelVariant::Hopper);
    INFO(h->description());
    CHECK(h->name() == "cuda/hopper");
    CHECK(h->layout() == "two-lattice");
    CHECK(h->description().find("in-place layout not used") != std::string::npos);
  }
  SECTION("graph replays, single launches and timed steps give the same state") {
    const LbmSetup setup = buildSetup(parseCase(caseYaml("D3Q19", "single", "trt", Flow::Cavity)));
    auto graphs = hopperBackend(setup, 0, TileLoad::Auto);
    auto singles = hopperBackend(setup, 0, TileLoad::Auto);
    graphs->advance(96, false);
    for (int k = 0; k < 96; ++k) singles->advance(1, false);
    CHECK(graphs->timeSteps(64) > 0);
    singles->advance(64, false);
    checkIdentical(*singles, *graphs);
  }
}

// Periodic boxes without solids, where the temporal kernel runs: sizes that are not multiples of its tiles (32 x 16
// or 32 x 8 cells in 3-D, 256 in 2-D, minus the 2 (K - 1) halo cells) or of its segments, and boxes smaller than one
// tile or thinner along the march axis than the K - 1 planes of lead-in, so that pulls and tiles wrap many times.
std::vector<std::pair<std::string, std::string>> periodicCases() {
  // The 2-D vortex (extruded along z in 3-D): these boxes are not cubes.
  const std::string common =
      "solver: lbm\nfluid: {tau: 0.58}\nrun: {steps: 100}\ninitial: {taylor_green: {u0: 0.05, form: 2d}}\n";
  return {
      {"D3Q19 70x37x29 trt + force", common + "lattice: D3Q19\nprecision: single\ncollision: {model: trt}\n"
                                              "domain: {cells: [70, 37, 29], periodic: [x, y, z]}\n"
                                              "body_force: [2.0e-5, -1.0e-5, 0.5e-5]\n"},
      {"D3Q19 64x48x40 bgk", common + "lattice: D3Q19\nprecision: single\ncollision: {model: bgk}\n"
                                      "domain: {cells: [64, 48, 40], periodic: [x, y, z]}\n"},
      {"D3Q19 8x6x3 bgk + force", common + "lattice: D3Q19\nprecision: single\ncollision: {model: bgk}\n"
                                           "domain: {cells: [8, 6, 3], periodic: [x, y, z]}\n"
                                           "body_force: [1.0e-5, 2.0e-6, 0]\n"},
      {"D2Q9 600x77 trt + force", common + "lattice: D2Q9\nprecision: single\ncollision: {model: trt}\n"
                                           "domain: {cells: [600, 77], periodic: [x, y]}\nbody_force: [2.0e-5, 1.0e-5]\n"},
      {"D2Q9 300x40 bgk", common + "lattice: D2Q9\nprecision: single\ncollision: {model: bgk}\n"
                                   "domain: {cells: [300, 40], periodic: [x, y]}\n"},
      {"D2Q9 7x5 bgk + force", common + "lattice: D2Q9\nprecision: single\ncollision: {model: bgk}\n"
                                        "domain: {cells: [7, 5], periodic: [x, y]}\nbody_force: [1.0e-5, 3.0e-6]\n"},
      // Smagorinsky LES (kept last: the tests above pick cases by index).
      {"D3Q19 48x40x36 trt + LES", common + "lattice: D3Q19\nprecision: single\n"
                                           "collision: {model: trt, les: {model: smagorinsky, cs: 0.4}}\n"
                                           "domain: {cells: [48, 40, 36], periodic: [x, y, z]}\n"},
      {"D2Q9 300x50 bgk + LES + force", common + "lattice: D2Q9\nprecision: single\n"
                                                 "collision: {model: bgk, les: {model: smagorinsky, cs: 0.4}}\n"
                                                 "domain: {cells: [300, 50], periodic: [x, y]}\n"
                                                 "body_force: [2.0e-5, 1.0e-5]\n"},
      // The regularised operator.
      {"D3Q19 40x36x33 regularized + force", common + "lattice: D3Q19\nprecision: single\n"
                                                      "collision: {model: regularized}\n"
                                                      "domain: {cells: [40, 36, 33], periodic: [x, y, z]}\n"
                                                      "body_force: [1.0e-5, 0, -2.0e-5]\n"},
      {"D2Q9 280x45 regularized + LES", common + "lattice: D2Q9\nprecision: single\n"
                                                 "collision: {model: regularized, les: {model: smagorinsky, cs: 0.4}}\n"
                                                 "domain: {cells: [280, 45], periodic: [x, y]}\n"},
  };
}

// Not bitwise: the temporal kernel's collide() is the portable one, but compiled into a different kernel, where nvcc
// fuses a few multiply-adds differently (seen on the H200 for BGK without a body force), so results agree to
// round-off: 1e-5 of the largest speed in FP32 (rounding differences of ~1e-7 in 100 steps), 1e-2 in FP16 storage
// (whose rounding step is 2^-11 of a population's deviation from its weight).
TEST_CASE("Hopper LBM temporal kernel (k steps per launch) equals k portable steps to round-off", "[gpu][lbm][hopper]") {
  if (!hopsim::testing::haveHopperGpu()) return;
  for (const auto& [name, yaml] : periodicCases())
    for (const Precision precision : {Precision::Single, Precision::Half}) {
      const LbmSetup setup = withPrecision(buildSetup(parseCase(yaml)), precision);
      auto ref = portable(setup);
      run100(*ref);  // 37 + 63 steps: k-step launches in graphs and alone, then single steps for the remainders
      const bool threeD = setup.lattice == LatticeKind::D3Q19;
      for (const int steps : {1, 2, 4, kStepsAuto})
        for (const int cluster : steps == 2 && threeD ? std::vector<int>{1, 4, 8} : std::vector<int>{0}) {
          auto h = hopperBackend(setup, 0, TileLoad::Auto, steps, cluster);
          INFO(name << (precision == Precision::Half ? " half" : " single") << ", steps " << steps << ", cluster "
                    << cluster << " | " << h->description());
          const std::string expect =
              "temporal blocking, " + (steps > 0 ? std::to_string(steps) + (steps > 1 ? " steps" : " step") : std::string());
          CHECK(h->description().find(expect) != std::string::npos);
          if (cluster > 1) CHECK(h->description().find("clusters of " + std::to_string(cluster)) != std::string::npos);
          run100(*h);
          std::printf("%s %s, steps %d, cluster %d:", name.c_str(), precision == Precision::Half ? "half" : "single",
                      steps, cluster);
          checkClose(*ref, *h, precision == Precision::Half ? 1e-2 : 1e-5);
        }
    }
}

// Boxes with walls, a moving wall and solid cells: the temporal kernel's wall variant bounces their links back
// inside its levels; with inlet and outlet faces (channels; wrapped into the opposite face, at 4 steps across x on
// D2Q9 the ghost values computed inside the levels: the Open variant) too. Against the portable kernels (wall cells
// in the boundary kernel) to round-off, as for the periodic boxes; the last of the 100 steps computes obstacle
// forces (the boundary kernel's momentum exchange, on the temporal kernel's state): within 10 tolerances of the
// largest force component.
TEST_CASE("Hopper LBM temporal kernel with walls, moving walls and solids equals the portable steps to round-off",
          "[gpu][lbm][hopper]") {
  if (!hopsim::testing::haveHopperGpu()) return;
  std::vector<std::pair<std::string, std::string>> bounded = largeCases();  // the last: the D2Q9 channel 96x41
  bounded.push_back({"D2Q9 cavity", caseYaml("D2Q9", "single", "trt", Flow::Cavity)});
  bounded.push_back({"D3Q19 cavity", caseYaml("D3Q19", "single", "trt", Flow::Cavity)});
  bounded.push_back({"D3Q19 duct", caseYaml("D3Q19", "single", "bgk", Flow::Duct)});
  bounded.push_back({"D2Q9 channel", caseYaml("D2Q9", "single", "trt", Flow::Channel)});
  bounded.push_back({"D2Q9 open faces", openFacesYaml("D2Q9", "single", /*onPlanes=*/false)});
  // Three tiles across at 4 steps: the seam tiles' blocks take shorter segments than the middle tile's.
  bounded.push_back({"D2Q9 channel 600x24",
                     "solver: lbm\nlattice: D2Q9\nprecision: single\ncollision: {model: trt}\nfluid: {tau: 0.6}\n"
                     "run: {steps: 100}\n" + channel2dYaml(600, 24) +
                     "obstacles:\n  - {name: block, shape: box, min: [240, 8], max: [262, 15]}\n"
                     "initial: {density: 1.0, velocity: [0.03, 0]}\n"});
  bounded.push_back({"D3Q19 channel", caseYaml("D3Q19", "single", "bgk", Flow::Channel)});
  for (const auto& [name, yaml] : bounded)
    for (const Precision precision : {Precision::Single, Precision::Half}) {
      const LbmSetup setup = withPrecision(buildSetup(parseCase(yaml)), precision);
      const double tol = precision == Precision::Half ? 1e-2 : 1e-5;
      const bool open = hasOpenFaces(setup);
      auto ref = portable(setup);
      run100(*ref);
      const auto fr = ref->obstacleForces();
      // Steps per launch and the Open variant's blocks per SM (HOPSIM_HOPPER_OPEN_BLOCKS; 0: the plan's): with
      // open faces, 4 steps at 3 and at 4 blocks.
      const std::vector<std::pair<int, int>> variants = {{1, 0}, {2, 0}, {4, 0}, {kStepsAuto, 0}, {4, 4}};
      for (const auto& [steps, openBlocks] : variants) {
        if (open && (steps == 2 || (steps == 4 && setup.lattice != LatticeKind::D2Q9))) continue;  // refused
        if (!open && openBlocks) continue;
        auto h = hopperBackend(setup, 0, TileLoad::Auto, steps, 0, openBlocks);
        INFO(name << (precision == Precision::Half ? " half" : " single") << ", steps " << steps << ", open blocks "
                  << openBlocks << " | " << h->description());
        CHECK(h->description().find("walls and solid cells bounced back inside the levels") != std::string::npos);
        const bool openVariant = open && setup.lattice == LatticeKind::D2Q9 && steps != 1;
        CHECK((h->description().find("wrapped inlet and outlet faces' ghost values computed in them") !=
               std::string::npos) == openVariant);
        run100(*h);
        std::printf("%s %s, steps %d, open blocks %d (walls):", name.c_str(),
                    precision == Precision::Half ? "half" : "single", steps, openBlocks);
        checkClose(*ref, *h, tol);
        checkForces(fr, h->obstacleForces(), 10 * tol);
      }
    }
}

TEST_CASE("Hopper LBM temporal kernel: where it cannot run", "[gpu][lbm][hopper]") {
  if (!hopsim::testing::haveHopperGpu()) return;
  SECTION("inlet and outlet faces: more than one step per launch only across x on D2Q9 at 4; an explicit k it "
          "refuses is an error that says why") {
    const LbmSetup setup = buildSetup(parseCase(caseYaml("D3Q19", "single", "bgk", Flow::Channel)));
    auto h = hopperBackend(setup, 0, TileLoad::Auto, kStepsAuto);
    INFO(h->description());
    CHECK(h->description().find("temporal blocking, 1 step") != std::string::npos);
    const std::string msg = stepsRefusal(setup, 2);
    INFO(msg);
    CHECK(msg.find("inlet and outlet faces at 2 steps per launch") != std::string::npos);
  }
  SECTION("inlet and outlet faces that cannot be wrapped (an obstacle on the inlet plane): the cluster kernel") {
    const LbmSetup setup = buildSetup(parseCase(openFacesYaml("D2Q9", "single", /*onPlanes=*/true)));
    auto h = hopperBackend(setup, 0, TileLoad::Auto, kStepsAuto);
    INFO(h->description());
    CHECK(h->description().find("cluster kernel") != std::string::npos);
    const std::string msg = stepsRefusal(setup, 4);
    INFO(msg);
    CHECK(msg.find("its inlet and outlet faces cannot be wrapped") != std::string::npos);
  }
  SECTION("D3Q27 and double: the portable bulk kernel, and an explicit k is an error") {
    LbmSetup setup = buildSetup(parseCase(periodicCases()[1].second));
    setup.precision = Precision::Double;
    auto h = hopperBackend(setup, 0, TileLoad::Auto, kStepsAuto);
    CHECK(h->description().find("portable bulk kernel") != std::string::npos);
    const std::string msg = stepsRefusal(setup, 4);
    INFO(msg);
    CHECK(msg.find("no temporal kernel is built for D3Q19 double") != std::string::npos);
  }
}

TEST_CASE("kernels: auto takes the Hopper temporal kernel only where it measured faster", "[gpu][lbm][hopper]") {
  const int major = gpuMajor();
  if (major == 0) {
    std::printf("no CUDA device: test of the automatic kernel choice skipped\n");
    return;
  }
  const std::string hopperOrPortable = major >= 9 ? "cuda/hopper" : "cuda/portable";
  const LbmSetup d2q9 = buildSetup(parseCase(periodicCases()[4].second));  // D2Q9 300x40, periodic, no solids
  // The same with Smagorinsky LES (1.33x), the wall variant on D2Q9 FP32 boxes with walls or solids, and its Open
  // variant on a D2Q9 FP32 channel (inlet and outlet across x; 1.64x on the H100).
  const LbmSetup channel = buildSetup(parseCase(caseYaml("D2Q9", "single", "bgk", Flow::Channel)));
  for (const LbmSetup& setup : {d2q9, buildSetup(parseCase(periodicCases()[7].second)),
                                buildSetup(parseCase(caseYaml("D2Q9", "single", "bgk", Flow::PeriodicForce))),
                                buildSetup(parseCase(caseYaml("D2Q9", "single", "trt", Flow::Cavity))), channel}) {
    auto b = plannedCudaBackend(setup, KernelVariant::Auto);
    INFO(b->description());
    CHECK(b->name() == hopperOrPortable);
    if (major >= 9) CHECK(b->description().find("temporal blocking, 4 steps") != std::string::npos);
  }
  LbmSetup inPlace = d2q9;
  inPlace.layout = StreamingLayout::InPlace;  // asked for half the memory: the portable in-place kernels
  const std::vector<std::pair<std::string, LbmSetup>> portableCases = {
      {"D2Q9 FP16", withPrecision(d2q9, Precision::Half)},
      {"D2Q9 in-place", inPlace},
      {"D3Q19 periodic", buildSetup(parseCase(periodicCases()[1].second))},
      {"D2Q9 FP16 channel", withPrecision(channel, Precision::Half)},
      {"D2Q9 FP16 with an obstacle", withPrecision(buildSetup(parseCase(caseYaml("D2Q9", "single", "bgk",
                                                                               Flow::PeriodicForce))),
                                                   Precision::Half)},
      {"D3Q19 cavity", buildSetup(parseCase(caseYaml("D3Q19", "single", "bgk", Flow::Cavity)))}};
  for (const auto& [name, setup] : portableCases) {
    auto b = plannedCudaBackend(setup, KernelVariant::Auto);
    INFO(name << ": " << b->description());
    CHECK(b->name() == "cuda/portable");
  }
}

TEST_CASE("LBM bench runs the Hopper kernels next to the portable ones", "[gpu][lbm][hopper]") {
  if (!hopsim::testing::haveHopperGpu()) return;
  LbmCase c = defaultBenchCase();
  c.cells = {64, 64, 64};
  BenchOptions o;
  o.steps = 64;
  o.repeats = 2;
  o.layouts = {"two-lattice"};
  o.variants = {KernelVariant::Portable, KernelVariant::Hopper};
  const auto j = bench(c, o);
  INFO(j.dump(2));
  REQUIRE(j["runs"].size() == 2);
  for (int k = 0; k < 2; ++k) {
    const auto& r = j["runs"][k];
    REQUIRE(r.contains("mlups"));
    CHECK(r["mlups"]["median"].get<double>() > 0);
    CHECK(r["bytes_per_cell_step"].get<double>() == 152.0);
  }
  CHECK(j["runs"][1]["kernels"] == "hopper");
  // A periodic box without solids: the temporal kernel, at its automatic steps per launch.
  CHECK(j["runs"][1]["description"].get<std::string>().find("temporal blocking") != std::string::npos);
}

TEST_CASE("device.kernels: hopper on a GPU older than Hopper is a clear error", "[gpu][lbm][hopper]") {
  const int major = gpuMajor();
  if (major == 0 || major >= 9) {
    std::printf("%s: test of the pre-Hopper error skipped\n", major ? "Hopper GPU" : "no CUDA device");
    return;
  }
  const LbmSetup setup = buildSetup(parseCase(caseYaml("D3Q19", "single", "bgk", Flow::PeriodicForce)));
  try {
    plannedCudaBackend(setup, KernelVariant::Hopper);
    FAIL("the Hopper backend was built on a GPU of compute capability " << major << ".x");
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    INFO(msg);
    CHECK(msg.find("compute capability 9.0") != std::string::npos);
    CHECK(msg.find("kernels: portable") != std::string::npos);
  }
}

// A small case for compute-sanitizer on the cluster kernel (memcheck, racecheck over shared memory and DSMEM,
// synccheck): hopsim_tests "[hopper-sanitize]". Not tagged [sanitize], so the portable sanitizer runs stay as they are.
TEST_CASE("Hopper LBM small cases for compute-sanitizer", "[gpu][lbm][hopper][hopper-sanitize]") {
  if (!hopsim::testing::haveHopperGpu()) return;
  for (const Flow flow : {Flow::Channel, Flow::PeriodicForce}) {
    const LbmSetup s = buildSetup(parseCase(caseYaml("D3Q19", "single", "trt", flow)));
    for (const TileLoad load : {TileLoad::Tma, TileLoad::Plain}) {
      auto g = hopperBackend(s, 0, load);
      g->advance(3, true);
      g->advance(2, false);
      std::vector<double> rho, u;
      g->macroscopic(rho, u);
      CHECK(std::isfinite(g->observables().mass));
    }
  }
  // The temporal kernel's shared-memory rings (racecheck: the barrier after every level), also with walls (a cell
  // reads its own opposite population of the level before, from its ring or from registers read a phase earlier),
  // at 2 and 4 steps per launch (D2Q9 FP32 at 4: four blocks per SM), and with wrapped inlet and outlet faces (the
  // face cells write ghost values into the ring slots of the cell across the seam: D2Q9 at 4 steps).
  for (const int openBlocks : {3, 4}) {
    const LbmSetup s = buildSetup(parseCase(caseYaml("D2Q9", "single", "trt", Flow::Channel)));
    auto g = hopperBackend(s, 0, TileLoad::Auto, 4, 0, openBlocks);
    g->advance(9, true);
    CHECK(std::isfinite(g->observables().mass));
  }
  for (const Flow flow : {Flow::Cavity, Flow::PeriodicForce})
    for (const char* lattice : {"D2Q9", "D3Q19"})
      for (const int steps : {2, 4}) {
        const LbmSetup s = buildSetup(parseCase(caseYaml(lattice, "single", "trt", flow)));
        auto g = hopperBackend(s, 0, TileLoad::Auto, steps);
        g->advance(9, true);
        CHECK(std::isfinite(g->observables().mass));
      }
  for (const int c : {0, 3}) {
    const LbmSetup s = buildSetup(parseCase(periodicCases()[c].second));
    for (const int steps : {2, 4}) {
      auto g = hopperBackend(s, 0, TileLoad::Auto, steps);
      g->advance(9, false);
      CHECK(std::isfinite(g->observables().mass));
    }
    if (s.lattice == LatticeKind::D3Q19) {  // levels read across blocks of a cluster (DSMEM)
      auto g = hopperBackend(s, 0, TileLoad::Auto, 2, 4);
      g->advance(9, false);
      CHECK(std::isfinite(g->observables().mass));
    }
  }
}

#endif  // HOPSIM_WITH_CUDA
