// CUDA LBM backend against the CPU backend on the same small cases after 100 steps: every lattice, precision,
// collision model, boundary type and layout; FP16 storage against single precision; graphs, timing, errors.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "CatchCompat.h"
#include "HaveGpu.h"
#include "HalfPairCases.h"
#include "LbmAgreementCases.h"
#include "PlannedBackend.h"
#include "kernels/common/DeviceInfo.h"
#include "solvers/common/DevicePlanner.h"
#include "solvers/lbm/LbmBench.h"

using namespace hopsim;
using namespace hopsim::lbm;
using namespace hopsim::lbm::testing;

namespace {

using hopsim::testing::haveGpu;

std::unique_ptr<LbmBackend> cuda(LbmSetup s, StreamingLayout layout, const DeviceOverrides& overrides = {}) {
  s.layout = layout;
  return plannedCudaBackend(s, KernelVariant::Portable, overrides);
}

// Two runs of one case by different kernel paths, after the same steps: the deviations printed after `what`, the
// same fields where `sameKernels` (the request changed nothing), else within the CPU-GPU tolerance of `precision`.
void checkPathsAgree(LbmBackend& a, LbmBackend& b, const LbmSetup& s, const std::string& what,
                     const std::string& precision, bool sameKernels) {
  const Agreement d = compare(a, b, s.flags);
  CHECK(d.velocityScale > 1e-4);
  std::printf("%s velocity %.2e density %.2e force %.2e\n", what.c_str(), d.velocity, d.density, d.force);
  if (sameKernels) {
    CHECK(d.velocity == 0.0);
    CHECK(d.density == 0.0);
  }
  checkAgreement(d, precision == "double" ? kDoubleTolerance
                    : precision == "single" ? kSingleTolerance
                                            : kHalfTolerance);
}

}  // namespace

TEST_CASE("CUDA LBM matches the CPU backend on every lattice, precision, collision, boundary and layout", "[gpu][lbm]") {
  if (!haveGpu()) return;
  for (const std::string lattice : {"D2Q9", "D3Q19", "D3Q27"})
    for (const std::string precision : {"double", "single"})
      for (const std::string& collision : collisionModels())
        for (const Flow flow : flowsFor(lattice)) {
          const LbmSetup setup = buildSetup(parseCase(caseYaml(lattice, precision, collision, flow)));
          auto cpu = makeCpuBackend(setup);
          cpu->advance(100, true);
          for (const StreamingLayout layout : {StreamingLayout::TwoLattice, StreamingLayout::InPlace}) {
            INFO(lattice << " " << precision << " " << collision << " " << flowName(flow) << " " << toString(layout));
            auto gpu = cuda(setup, layout);
            // 100 steps as a graph of 32, single launches, and a final step with forces.
            gpu->advance(37, false);
            gpu->advance(63, true);
            checkAgreement(compare(*cpu, *gpu, setup.flags),
                           precision == "double" ? kDoubleTolerance : kSingleTolerance);
          }
        }
}

TEST_CASE("CUDA LBM with FP16 storage stays within the stated bound of single precision", "[gpu][lbm]") {
  if (!haveGpu()) return;
  for (const std::string lattice : {"D2Q9", "D3Q19", "D3Q27"})
    for (const std::string& collision : {std::string("bgk"), std::string("trt"), kTrtLes, kRegularizedLes})
      for (const Flow flow : flowsFor(lattice)) {
        const LbmSetup single = buildSetup(parseCase(caseYaml(lattice, "single", collision, flow)));
        LbmSetup half = single;
        half.precision = Precision::Half;
        for (const StreamingLayout layout : {StreamingLayout::TwoLattice, StreamingLayout::InPlace}) {
          INFO(lattice << " half " << collision << " " << flowName(flow) << " " << toString(layout));
          auto ref = cuda(single, layout);
          auto h = cuda(half, layout);
          ref->advance(100, true);
          h->advance(100, true);
          checkAgreement(compare(*ref, *h, single.flags), kHalfTolerance);
        }
      }
}

// Sets an environment variable for the life of the object, then puts back what was there.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (had_) setenv(name_.c_str(), old_.c_str(), 1);
    else unsetenv(name_.c_str());
  }

 private:
  std::string name_, old_;
  bool had_ = false;
};

TEST_CASE("CUDA LBM FP16: the two-cells-per-thread bulk kernel gives bitwise the one-cell kernel's state", "[gpu][lbm]") {
  if (!haveGpu()) return;
  for (const HalfPairCase& c : halfPairCases()) {
    const LbmSetup s = buildSetup(parseCase(c.yaml));
    INFO(c.label);
    std::unique_ptr<LbmBackend> run[2];
    for (int pairs = 0; pairs < 2; ++pairs) {
      DeviceOverrides o;
      o.halfPairs = pairs;  // HOPSIM_LBM_HALF_PAIRS
      // The inlet and outlet cells through the boundary kernel in both: the one-cell kernel's wrapped faces (the
      // planner's default on 3-D lattices; HOPSIM_LBM_OPEN_WRAP) round each ghost value to FP16 once more, which
      // their own test holds to FP16 storage's bound.
      o.openWrap = 0;
      run[pairs] = cuda(s, StreamingLayout::TwoLattice, o);
      CHECK(run[pairs]->description().find(pairs ? "bulk: 2 cells/thread" : "bulk: 1 cell/thread") != std::string::npos);
      run[pairs]->advance(37, false);  // a graph of 32 steps and single launches
      run[pairs]->advance(63, true);   // forces on the last step
    }
    const Agreement d = compare(*run[0], *run[1], s.flags);
    CHECK(d.velocityScale > 1e-4);
    CHECK(d.velocity == 0.0);
    CHECK(d.density == 0.0);
    CHECK(d.mass == 0.0);
    CHECK(d.kineticEnergy == 0.0);
    CHECK(d.maxSpeed == 0.0);
    CHECK(d.force == 0.0);
  }
  const ScopedEnv bad("HOPSIM_LBM_HALF_PAIRS", "2");
  try {
    readDeviceOverrides();
    FAIL("HOPSIM_LBM_HALF_PAIRS=2 accepted");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("HOPSIM_LBM_HALF_PAIRS=2") != std::string::npos);
  }
}

// The bulk kernel's L2 prefetch (HOPSIM_LBM_PREFETCH_WAVES; kernels/lbm/cuda/L2Prefetch.cuh) is a hint: the same
// kernels give the same state bitwise with and without it. The boxes are larger than one and two waves of resident
// blocks (~135,000 and ~270,000 cells of the one-cell kernel on 132 SMs), so that the prefetching blocks are most of
// the launch: a 3-D cavity (the one-cell kernel with its wall cells, blocks of 64 x 2 threads) and a 2-D channel with
// an inlet, an outlet and a cylinder (blocks of 128 x 1), FP32 and FP16, one cell per thread (the FP16 pair kernel
// has no prefetch). Also in [sanitize]: the prefetches stay inside the arrays.
TEST_CASE("CUDA LBM: the bulk kernel's L2 prefetch changes no value", "[gpu][lbm][sanitize]") {
  if (!haveGpu()) return;
  const std::string cavity =
      "solver: lbm\nlattice: D3Q19\ncollision: {model: trt}\nfluid: {tau: 0.6}\nrun: {steps: 1}\n"
      "domain: {cells: [64, 64, 72]}\nboundaries:\n  x-: {type: wall}\n  x+: {type: wall}\n  y-: {type: wall}\n"
      "  y+: {type: wall}\n  z-: {type: wall}\n  z+: {type: moving_wall, velocity: [0.05, 0.02, 0]}\n";
  const std::string channel = "solver: lbm\nlattice: D2Q9\ncollision: {model: trt}\nfluid: {tau: 0.6}\n"
                              "run: {steps: 1}\n" + channel2dYaml(1024, 512) +
                              "obstacles:\n  - {name: cyl, shape: circle, center: [200, 250.3], radius: 40}\n"
                              "initial: {density: 1.0, velocity: [0.03, 0]}\n";
  for (const std::string* yaml : {&cavity, &channel})
    for (const std::string precision : {"single", "half"}) {
      const LbmSetup s = buildSetup(parseCase(*yaml + "precision: " + precision + "\n"));
      INFO((yaml == &cavity ? "cavity " : "channel ") << precision);
      std::unique_ptr<LbmBackend> run[3];
      for (int waves = 0; waves < 3; ++waves) {
        DeviceOverrides o;
        o.halfPairs = 0;          // HOPSIM_LBM_HALF_PAIRS
        o.prefetchWaves = waves;  // HOPSIM_LBM_PREFETCH_WAVES
        run[waves] = cuda(s, StreamingLayout::TwoLattice, o);
        CHECK((run[waves]->description().find("L2 prefetch") != std::string::npos) == (waves > 0));
        run[waves]->advance(37, false);  // a graph of 32 steps and single launches
        run[waves]->advance(3, true);    // forces on the last step
      }
      for (int waves = 1; waves < 3; ++waves) {
        const Agreement d = compare(*run[0], *run[waves], s.flags);
        CHECK(d.velocityScale > 1e-4);
        CHECK(d.velocity == 0.0);
        CHECK(d.density == 0.0);
        CHECK(d.mass == 0.0);
        CHECK(d.force <= 1e-12);  // the boundary kernel's atomic sums
      }
    }
}

// Bitwise on the host (test_lbm_cell_update_host.cpp), where the compiler contracts no multiply-add; on the GPU
// nvcc fuses the collision's multiplies and adds differently in the bulk kernel (collideWith<Terms>) and in the
// boundary kernel (collide(), which chooses at run time), so the wall cells agree to round-off: within the
// CPU-GPU tolerances of each precision (FP16 storage: a last-bit difference can round a population to the next FP16
// value, so the FP16-vs-FP32 tolerance; the deviations measured are printed).
TEST_CASE("CUDA LBM: wall cells in the bulk kernel agree with the boundary kernel's to round-off", "[gpu][lbm]") {
  if (!haveGpu()) return;
  for (const std::string lattice : {"D2Q9", "D3Q19", "D3Q27"})
    for (const std::string precision : {"double", "single", "half"})
      for (const Flow flow : flowsFor(lattice)) {
        const LbmSetup s = buildSetup(parseCase(caseYaml(lattice, precision, "trt", flow)));
        INFO(lattice << " " << precision << " " << flowName(flow));
        std::unique_ptr<LbmBackend> run[2];
        for (int walls = 0; walls < 2; ++walls) {
          DeviceOverrides o;
          o.wallsInBulk = walls;  // HOPSIM_LBM_WALLS_IN_BULK
          run[walls] = cuda(s, StreamingLayout::TwoLattice, o);
          CHECK((run[walls]->description().find("wall cells updated by the bulk kernel") != std::string::npos) ==
                (walls == 1));
          run[walls]->advance(37, false);  // a graph of 32 steps and single launches
          run[walls]->advance(63, true);   // forces on the last step (the boundary kernel's in both)
        }
        const Agreement d = compare(*run[0], *run[1], s.flags);
        CHECK(d.velocityScale > 1e-4);
        std::printf("walls in bulk vs boundary kernel %s %s %-30s velocity %.2e density %.2e force %.2e\n",
                    lattice.c_str(), precision.c_str(), flowName(flow), d.velocity, d.density, d.force);
        checkAgreement(d, precision == "double" ? kDoubleTolerance
                          : precision == "single" ? kSingleTolerance
                                                  : kHalfTolerance);
      }
}

// The small kernels of a step (face moments, boundary cells, curved cells) on a side stream beside the bulk update,
// one thread per listed cell and on two blocks whose threads step through the lists (HOPSIM_LBM_SIDE_BLOCKS=2),
// against all of them after it on one stream: the same kernels writing disjoint cells, so the same state bitwise;
// obstacle forces to round-off (atomic additions in another order).
TEST_CASE("CUDA LBM: the boundary passes on a side stream give bitwise the one-stream state", "[gpu][lbm]") {
  if (!haveGpu()) return;
  for (const std::string lattice : {"D2Q9", "D3Q19", "D3Q27"})
    for (const std::string precision : {"double", "single", "half"})
      for (const Flow flow : {Flow::Channel, Flow::Cavity, Flow::Curved}) {
        const LbmSetup s = buildSetup(parseCase(caseYaml(lattice, precision, "trt", flow)));
        INFO(lattice << " " << precision << " " << flowName(flow));
        std::unique_ptr<LbmBackend> run[3];
        for (int v = 0; v < 3; ++v) {
          DeviceOverrides o;
          o.sideStream = v > 0;            // HOPSIM_LBM_SIDE_STREAM
          o.sideBlocks = v == 2 ? 2 : -1;  // HOPSIM_LBM_SIDE_BLOCKS
          run[v] = cuda(s, StreamingLayout::TwoLattice, o);
          CHECK((run[v]->description().find("on a side stream") != std::string::npos) == (v > 0));
          run[v]->advance(37, false);  // a graph of 32 steps and single launches
          run[v]->advance(63, true);   // forces on the last step
        }
        for (int v = 1; v < 3; ++v) {
          INFO((v == 1 ? "side stream" : "side stream, two blocks per list kernel"));
          const Agreement d = compare(*run[0], *run[v], s.flags);
          CHECK(d.velocityScale > 1e-4);
          CHECK(d.velocity == 0.0);
          CHECK(d.density == 0.0);
          CHECK(d.force <= 1e-12);
        }
      }
}

namespace {

bool sameBits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

// advanceSampled() against advance() and sampleObservables() on two backends of the same case: 40 steps (a graph
// and single launches), 1, then 9 with forces on the last, each followed by a sample. The state and the forces agree
// bitwise (forces to round-off: atomic additions in another order). The samples agree bitwise where the backend
// falls back to the separate pass; where it samples in its last step (`inStep`) its cells' density and velocity are
// the collision's, equal in exact arithmetic to the moments of the stored populations that the separate pass sums:
// within single-precision round-off (the mass to 1e-6 of itself, the energy to 1e-4, the largest speed to 1e-5).
void checkSampledSteps(const LbmSetup& s, const DeviceOverrides& o, bool inStep) {
  std::unique_ptr<LbmBackend> run[2];
  std::vector<Observables> samples[2];
  for (int sampled = 0; sampled < 2; ++sampled) {
    run[sampled] = cuda(s, StreamingLayout::TwoLattice, o);
    LbmBackend& b = *run[sampled];
    for (const auto& [steps, forces] : {std::pair{40LL, false}, std::pair{1LL, false}, std::pair{9LL, true}}) {
      if (sampled) {
        b.advanceSampled(steps, forces);
      } else {
        b.advance(steps, forces);
        b.sampleObservables();
      }
    }
    samples[sampled] = b.readObservables();
  }
  CHECK(run[1]->samplesInStep() == inStep);
  REQUIRE(samples[0].size() == 3);
  REQUIRE(samples[1].size() == 3);
  for (int k = 0; k < 3; ++k) {
    const Observables &a = samples[0][k], &b = samples[1][k];
    INFO("sample " << k << ": mass " << a.mass << " / " << b.mass << ", energy " << a.kineticEnergy << " / "
                   << b.kineticEnergy << ", max speed " << a.maxSpeed << " / " << b.maxSpeed);
    CHECK(a.mass != 0.0);
    CHECK(a.kineticEnergy > 0.0);
    if (inStep) {
      CHECK(relative(b.mass, a.mass) <= kSingleTolerance.observable);
      CHECK(relative(b.kineticEnergy, a.kineticEnergy) <= kSingleTolerance.kineticEnergy);
      CHECK(relative(b.maxSpeed, a.maxSpeed) <= kSingleTolerance.field);
    } else {
      CHECK(sameBits(b.mass, a.mass));
      CHECK(sameBits(b.kineticEnergy, a.kineticEnergy));
      CHECK(sameBits(b.maxSpeed, a.maxSpeed));
    }
    CHECK(sameBits(b.enstrophy, a.enstrophy));
  }
  const Agreement d = compare(*run[0], *run[1], s.flags);
  CHECK(d.velocityScale > 1e-4);
  CHECK(d.velocity == 0.0);
  CHECK(d.density == 0.0);
  CHECK(d.force <= 1e-12);
}

}  // namespace

// The sampled step (the bulk kernel summing the observables of the state it leaves as it stores it) on every lattice,
// boundary type and collision variant, with the wall cells in the bulk kernel or in the boundary kernel: FP32
// storage samples in the step (the kernel is compiled for it), the other precisions fall back to the separate pass,
// as do runs that ask for the enstrophy.
TEST_CASE("CUDA LBM: observables summed in the sampled step agree with the separate pass's", "[gpu][lbm]") {
  if (!haveGpu()) return;
  for (const std::string lattice : {"D2Q9", "D3Q19", "D3Q27"})
    for (const std::string precision : {"single", "double", "half"})
      for (const Flow flow : flowsFor(lattice))
        for (int walls = 0; walls < 2; ++walls) {
          INFO(lattice << " " << precision << " " << flowName(flow) << (walls ? ", walls in bulk" : ""));
          DeviceOverrides o;
          o.wallsInBulk = walls;  // HOPSIM_LBM_WALLS_IN_BULK
          checkSampledSteps(buildSetup(parseCase(caseYaml(lattice, precision, "trt", flow))), o,
                            precision == "single");
        }
  for (const std::string& collision : collisionModels()) {
    INFO("D3Q19 single cavity, " << collision);
    checkSampledSteps(buildSetup(parseCase(caseYaml("D3Q19", "single", collision, Flow::Cavity))), {}, true);
  }
  LbmSetup enstrophy = buildSetup(parseCase(caseYaml("D3Q19", "single", "bgk", Flow::PeriodicForce)));
  enstrophy.enstrophy = true;  // output.observables.enstrophy: the neighbours' velocities, in the separate pass
  checkSampledSteps(enstrophy, {}, false);
  DeviceOverrides separate;
  separate.sampleInStep = 0;  // HOPSIM_LBM_SAMPLE_IN_STEP
  checkSampledSteps(buildSetup(parseCase(caseYaml("D3Q19", "single", "trt", Flow::Cavity))), separate, false);
}

// A box of more blocks of partials than the observables' two fold levels of 512 x 512 would reach (8192 x 8200 cells
// in blocks of 256: 262,400 blocks), at rest: the mass is the fluid cell count exactly, with every block's partial
// in it, in the separate pass and in a sampled step.
TEST_CASE("CUDA LBM: the observables of a box of 67M cells count every cell", "[gpu][lbm]") {
  if (!haveGpu()) return;
  const LbmSetup s = buildSetup(parseCase(
      "solver: lbm\nlattice: D2Q9\nprecision: single\ncollision: {model: bgk}\nfluid: {tau: 0.8}\nrun: {steps: 2}\n"
      "device: {backend: auto}\ndomain: {cells: [8192, 8200], periodic: [x, y]}\n"
      "initial: {density: 1.0, velocity: [0, 0]}\n"));
  auto g = cuda(s, StreamingLayout::TwoLattice);
  const double cells = 8192.0 * 8200.0;
  CHECK(g->observables().mass == cells);
  g->advanceSampled(2, false);
  const std::vector<Observables> ring = g->readObservables();
  REQUIRE(ring.size() == 1);
  CHECK(ring[0].mass == cells);
  CHECK(ring[0].kineticEnergy == 0.0);
}

// Bitwise on the host (test_lbm_cell_update_host.cpp); on the GPU the moments come from another kernel
// (openMomentsKernel), where nvcc may contract their multiply-adds differently: within the CPU-GPU tolerance of each
// precision, with the deviations printed.
TEST_CASE("CUDA LBM: inlet/outlet ghost nodes from the face cells' moments agree with the per-link ones", "[gpu][lbm]") {
  if (!haveGpu()) return;
  for (const std::string lattice : {"D2Q9", "D3Q19", "D3Q27"})
    for (const std::string precision : {"double", "single", "half"}) {
      const LbmSetup s = buildSetup(parseCase(caseYaml(lattice, precision, "trt", Flow::Channel)));
      INFO(lattice << " " << precision);
      std::unique_ptr<LbmBackend> run[2];
      for (int moments = 0; moments < 2; ++moments) {
        DeviceOverrides o;
        o.openMoments = moments;  // HOPSIM_LBM_OPEN_MOMENTS
        run[moments] = cuda(s, StreamingLayout::TwoLattice, o);
        CHECK((run[moments]->description().find("face moments in a pass of their own") != std::string::npos) ==
              (moments == 1));
        run[moments]->advance(37, false);  // a graph of 32 steps and single launches
        run[moments]->advance(63, true);   // forces on the last step
      }
      checkPathsAgree(*run[0], *run[1], s, "open-face moments per step vs per link " + lattice + " " + precision,
                      precision, false);
    }
}

// The inlet and outlet cells in the bulk kernel's pass (bulkFacesKernel) against the boundary kernel, both reading
// the face moments of the step: bitwise on the host (test_lbm_cell_update_host.cpp); here nvcc may contract the
// two kernels' multiply-adds differently, so within the FP32 CPU-GPU tolerance, with the deviations printed. The
// plan takes it for FP32 storage on 3-D lattices only (the kernel is compiled for that); elsewhere the request
// changes nothing.
TEST_CASE("CUDA LBM: inlet and outlet cells in the bulk kernel agree with the boundary kernel's", "[gpu][lbm]") {
  if (!haveGpu()) return;
  for (const std::string lattice : {"D2Q9", "D3Q19", "D3Q27"})
    for (const std::string precision : {"double", "single", "half"})
      for (const bool corners : {false, true}) {
        const LbmSetup s = buildSetup(parseCase(corners ? openFacesYaml(lattice, precision)
                                                        : caseYaml(lattice, precision, "trt", Flow::Channel)));
        INFO(lattice << " " << precision << (corners ? " open faces with obstacles and a moving wall" : " channel"));
        const bool taken = lattice != "D2Q9" && precision == "single";
        std::unique_ptr<LbmBackend> run[2];
        for (int open = 0; open < 2; ++open) {
          DeviceOverrides o;
          o.openMoments = 1;  // HOPSIM_LBM_OPEN_MOMENTS
          o.wallsInBulk = 1;  // HOPSIM_LBM_WALLS_IN_BULK
          o.openInBulk = open;  // HOPSIM_LBM_OPEN_IN_BULK
          o.openWrap = 0;       // HOPSIM_LBM_OPEN_WRAP: the boundary kernel's face cells on both sides
          run[open] = cuda(s, StreamingLayout::TwoLattice, o);
          CHECK((run[open]->description().find("inlet and outlet cells included") != std::string::npos) ==
                (open == 1 && taken));
          run[open]->advance(37, false);  // a graph of 32 steps and single launches
          run[open]->advance(63, true);   // forces on the last step (the boundary kernel's in both)
        }
        checkPathsAgree(*run[0], *run[1], s,
                        "open cells in bulk vs boundary kernel " + lattice + " " + precision +
                            (corners ? " corners" : " channel"),
                        precision, !taken);
      }
}

// The face pass's ghost values wrapped into the opposite face (the inlet and outlet cells bulk or wall cells of the
// bulk kernel, KernelPlan::openWrap) against the boundary kernel's face cells: bitwise on the host where the stored
// type holds the ghost value (test_lbm_cell_update_host.cpp); here two kernels whose multiply-adds nvcc may contract
// differently, and FP16 storage rounds the ghost value, so within each precision's CPU-GPU tolerance, with the
// deviations printed. Obstacles on the face planes: not wrapped, the same kernels on both sides.
TEST_CASE("CUDA LBM: inlet and outlet cells with their ghost values wrapped agree with the boundary kernel's",
          "[gpu][lbm]") {
  if (!haveGpu()) return;
  for (const std::string lattice : {"D2Q9", "D3Q19", "D3Q27"})
    for (const std::string precision : {"double", "single", "half"})
      for (const int geometry : {0, 1, 2}) {
        const LbmSetup s = buildSetup(parseCase(geometry == 0 ? caseYaml(lattice, precision, "trt", Flow::Channel)
                                                              : openFacesYaml(lattice, precision, geometry == 2)));
        const char* name = geometry == 0 ? "channel" : (geometry == 1 ? "obstacles inside" : "obstacles on faces");
        INFO(lattice << " " << precision << " " << name);
        // Not with two cells per thread (the D2Q9 FP16 plan), whose kernel the backend does not hand them to.
        const bool wrapped = geometry != 2 && !(lattice == "D2Q9" && precision == "half");
        std::unique_ptr<LbmBackend> run[2];
        for (int wrap = 0; wrap < 2; ++wrap) {
          DeviceOverrides o;
          o.openMoments = 1;  // HOPSIM_LBM_OPEN_MOMENTS (2-D lattices too)
          o.openWrap = wrap;  // HOPSIM_LBM_OPEN_WRAP
          run[wrap] = cuda(s, StreamingLayout::TwoLattice, o);
          CHECK((run[wrap]->description().find("the inlet and outlet cells are bulk or wall cells") !=
                 std::string::npos) == (wrap == 1 && wrapped));
          run[wrap]->advance(37, false);  // a graph of 32 steps and single launches
          run[wrap]->advance(63, true);   // forces on the last step (the wall cells in the boundary kernel)
        }
        checkPathsAgree(*run[0], *run[1], s,
                        "open cells wrapped vs boundary kernel " + lattice + " " + precision + " " + name, precision,
                        !wrapped);
      }
}

// The face values kept by the bulk kernel for the next step (KernelPlan::keepFaces: no face pass after a step
// without forces) against a face pass in every step, both with the wrapped faces: the same bulk and boundary kernels,
// but the face values computed in two kernels whose multiply-adds nvcc may contract differently (bitwise on the host,
// test_lbm_cell_update_host.cpp), so within each precision's CPU-GPU tolerance, with the deviations printed. The
// runs cross a graph, single launches, a step with forces (which keeps none) and steps after it.
TEST_CASE("CUDA LBM: inlet and outlet face values kept by the bulk kernel agree with a face pass in every step",
          "[gpu][lbm]") {
  if (!haveGpu()) return;
  for (const std::string lattice : {"D2Q9", "D3Q19", "D3Q27"})
    for (const std::string precision : {"double", "single", "half"})
      for (const bool channel : {true, false}) {
        const LbmSetup s = buildSetup(parseCase(channel ? caseYaml(lattice, precision, "trt", Flow::Channel)
                                                        : openFacesYaml(lattice, precision, false)));
        INFO(lattice << " " << precision << (channel ? " channel" : " obstacles inside"));
        // Not with two cells per thread (the D2Q9 FP16 plan), whose kernel the backend does not wrap the faces for.
        const bool kept = !(lattice == "D2Q9" && precision == "half");
        std::unique_ptr<LbmBackend> run[2];
        for (int keep = 0; keep < 2; ++keep) {
          DeviceOverrides o;
          o.openMoments = 1;     // HOPSIM_LBM_OPEN_MOMENTS (2-D lattices too)
          o.openWrap = 1;        // HOPSIM_LBM_OPEN_WRAP
          o.keepFaces = keep;    // HOPSIM_LBM_KEEP_FACES
          run[keep] = cuda(s, StreamingLayout::TwoLattice, o);
          CHECK((run[keep]->description().find("the bulk kernel's face cells store them") != std::string::npos) ==
                (keep == 1 && kept));
          run[keep]->advance(37, false);  // a graph of 32 steps and single launches
          run[keep]->advance(63, true);   // forces on the last step: the next step runs the face pass again
          run[keep]->advance(40, false);
        }
        const std::string what = "face values kept vs face pass " + lattice + " " + precision;
        checkPathsAgree(*run[0], *run[1], s, what + (channel ? " channel" : " inside"), precision, !kept);
      }
}

TEST_CASE("CUDA LBM: the two layouts agree and in-place refuses inlets by falling back", "[gpu][lbm]") {
  if (!haveGpu()) return;
  const LbmSetup periodic = buildSetup(parseCase(caseYaml("D3Q19", "double", "trt", Flow::PeriodicForce)));
  auto a = cuda(periodic, StreamingLayout::TwoLattice);
  auto b = cuda(periodic, StreamingLayout::InPlace);
  CHECK(a->layout() == "two-lattice");
  CHECK(b->layout() == "in-place");
  a->advance(101, true);
  b->advance(101, true);
  checkAgreement(compare(*a, *b, periodic.flags), kDoubleTolerance);

  const LbmSetup channel = buildSetup(parseCase(caseYaml("D2Q9", "single", "bgk", Flow::Channel)));
  auto c = cuda(channel, StreamingLayout::InPlace);
  CHECK(c->layout() == "two-lattice");
  CHECK(c->description().find("inlet") != std::string::npos);
}

TEST_CASE("CUDA LBM: graph replays, single launches and timed steps give the same state", "[gpu][lbm]") {
  if (!haveGpu()) return;
  const LbmSetup s = buildSetup(parseCase(caseYaml("D3Q19", "double", "bgk", Flow::Cavity)));
  for (const StreamingLayout layout : {StreamingLayout::TwoLattice, StreamingLayout::InPlace}) {
    INFO(toString(layout));
    auto graphs = cuda(s, layout);
    auto singles = cuda(s, layout);
    graphs->advance(96, false);  // three graphs of 32
    for (int k = 0; k < 96; ++k) singles->advance(1, false);
    const double seconds = graphs->timeSteps(64);
    singles->advance(64, false);
    CHECK(seconds > 0);
    const Agreement d = compare(*singles, *graphs, s.flags);
    CHECK(d.velocity == 0.0);
    CHECK(d.density == 0.0);
  }
}

TEST_CASE("CUDA LBM: an impossible domain is refused before allocation with the largest that fits", "[gpu][lbm]") {
  if (!haveGpu()) return;
  LbmSetup s;
  s.lattice = LatticeKind::D3Q27;
  s.precision = Precision::Double;
  s.domain.n[0] = s.domain.n[1] = 4096;
  s.domain.n[2] = 2048;  // 34 G cells, ~15 TB
  s.domain.cells = 4096LL * 4096 * 2048;
  try {
    cuda(s, StreamingLayout::TwoLattice);
    FAIL("no out-of-memory error");
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    INFO(msg);
    CHECK(msg.find("not enough GPU memory") != std::string::npos);
    CHECK(msg.find("largest cubic domain") != std::string::npos);
  }
}

TEST_CASE("LBM bench on the GPU reports bandwidth, MLUPS and the roofline fraction", "[gpu][lbm]") {
  if (!haveGpu()) return;
  LbmCase c = defaultBenchCase();
  c.cells = {64, 64, 64};
  BenchOptions o;
  o.steps = 64;
  o.repeats = 2;
  o.layouts = {"two-lattice", "in-place"};
  o.variants = {KernelVariant::Portable, KernelVariant::Hopper};
  const auto j = bench(c, o);
  INFO(j.dump(2));
  REQUIRE(j["copy_bandwidth"]["median_gbs"].is_number());
  CHECK(j["copy_bandwidth"]["median_gbs"].get<double>() > 100);
  CHECK(j["copy_bandwidth"]["memory"] == "device");
  REQUIRE(j["runs"].size() == 4);
  for (int k = 0; k < 2; ++k) {
    const auto& r = j["runs"][k];
    REQUIRE(r.contains("mlups"));
    CHECK(r["mlups"]["median"].get<double>() > 0);
    CHECK(r["bytes_per_cell_step"].get<double>() == 152.0);
    CHECK(r["fraction_of_copy_bandwidth"].get<double>() > 0);
  }
  CHECK(j["runs"][0]["layout"] == "two-lattice");
  CHECK(j["runs"][1]["layout"] == "in-place");
  // The Hopper kernels run on compute capability 9.0 and newer and keep two lattices; older GPUs report an error.
  const bool hopper = hopsim::cudaDevices()[0].ccMajor >= 9;
  for (int k = 2; k < 4; ++k) {
    const auto& r = j["runs"][k];
    CHECK(r.contains("error") == !hopper);
    if (hopper) CHECK(r["layout"] == "two-lattice");
  }
}

// A small 3D case for compute-sanitizer (memcheck, racecheck): both layouts, boundaries, obstacles (interpolated
// bounce-back included), forces, observables and fields, with and without Smagorinsky LES, and the regularised
// operator; the inlet and outlet cells' ghost links from the face pass's values (the channels), and the same cells
// with those values wrapped into the opposite face, and kept by the bulk kernel for the next step; sampled steps. Run
// alone: hopsim_tests "[sanitize]".
TEST_CASE("CUDA LBM small 3D case for compute-sanitizer", "[gpu][lbm][sanitize]") {
  if (!haveGpu()) return;
  std::vector<std::pair<std::string, int>> cases;  // case YAML, obstacles
  for (const std::string& collision : {std::string("trt"), kTrtLes, kRegularizedLes})
    for (const Flow flow : {Flow::Channel, Flow::PeriodicForce, Flow::Curved})
      cases.emplace_back(caseYaml("D3Q19", "single", collision, flow), flow == Flow::Curved ? 3 : 1);
  cases.emplace_back(openFacesYaml("D3Q19", "single"), 2);
  for (const auto& [yaml, obstacles] : cases) {
    const LbmSetup s = buildSetup(parseCase(yaml));
    for (const StreamingLayout layout : {StreamingLayout::TwoLattice, StreamingLayout::InPlace}) {
      auto g = cuda(s, layout);
      g->advance(5, true);
      g->advance(33, false);
      std::vector<double> rho, u;
      g->macroscopic(rho, u);
      const Observables o = g->observables();
      CHECK(std::isfinite(o.mass));
      CHECK(g->obstacleForces().size() == static_cast<std::size_t>(obstacles));
      g->advanceSampled(2, true);  // the sampling bulk kernel (two lattices)
      g->advanceSampled(1, false);
      CHECK(g->readObservables().size() == 2);
    }
  }
  // The inlet and outlet cells as bulk and wall cells, the face pass's ghost values wrapped into the opposite face
  // (HOPSIM_LBM_OPEN_WRAP=1), with a face pass in every step and with the face values kept by the bulk kernel
  // (HOPSIM_LBM_KEEP_FACES=1): plain, forces and sampled steps, a checkpoint saved and loaded.
  for (const int keep : {0, 1}) {
    DeviceOverrides wrap;
    wrap.openWrap = 1;
    wrap.keepFaces = keep;
    for (const std::string& yaml : {caseYaml("D3Q19", "single", "trt", Flow::Channel),
                                    openFacesYaml("D3Q19", "single", false)}) {
      const LbmSetup s = buildSetup(parseCase(yaml));
      auto g = cuda(s, StreamingLayout::TwoLattice, wrap);
      REQUIRE(g->description().find("the inlet and outlet cells are bulk or wall cells") != std::string::npos);
      CHECK((g->description().find("the bulk kernel's face cells store them") != std::string::npos) == (keep == 1));
      g->advance(5, true);
      g->advance(33, false);
      CHECK(std::isfinite(g->observables().mass));
      g->advance(33, false);
      std::vector<std::byte> saved;  // a checkpoint of a state that holds ghost values (kept), and its load
      g->savePopulations(saved);
      g->loadPopulations(saved);
      g->advanceSampled(2, true);
      g->advanceSampled(1, false);
      CHECK(g->readObservables().size() == 2);
    }
  }
}
