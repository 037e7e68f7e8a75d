// The enstrophy observable on the CUDA backend against the CPU backend's: the 3-D Taylor-Green vortex, and the
// agreement cases' walls, obstacles, inlets and moving lids (one-sided differences next to them), both layouts.
#include <cmath>
#include <cstdio>
#include <string>

#include "CatchCompat.h"
#include "HaveGpu.h"
#include "LbmAgreementCases.h"
#include "PlannedBackend.h"
#include "kernels/common/DeviceInfo.h"

using namespace hopsim;
using namespace hopsim::lbm;
using namespace hopsim::lbm::testing;

namespace {

using hopsim::testing::haveGpu;

// After the same steps, the two backends' enstrophy: double precision to round-off (the neighbours' moments summed
// in another order), single to float epsilon after 100 steps (as the kinetic energy, kSingleTolerance). The ring
// (sampleObservables) gives observables() bitwise.
void checkEnstrophy(LbmSetup setup, bool single) {
  setup.enstrophy = true;  // output.observables.enstrophy
  auto cpu = makeCpuBackend(setup);
  cpu->advance(100, false);
  const double expected = cpu->observables().enstrophy;
  REQUIRE(expected > 0);
  for (const StreamingLayout layout : {StreamingLayout::TwoLattice, StreamingLayout::InPlace}) {
    LbmSetup s = setup;
    s.layout = layout;
    auto gpu = plannedCudaBackend(s, KernelVariant::Portable);
    gpu->advance(100, false);
    const double got = gpu->observables().enstrophy;
    INFO(toString(layout) << ": cpu " << expected << ", cuda " << got);
    CHECK(got == Approx(expected).epsilon(single ? kSingleTolerance.kineticEnergy : kDoubleTolerance.kineticEnergy));
    gpu->sampleObservables();
    const auto ring = gpu->readObservables();
    REQUIRE(ring.size() == 1);
    CHECK(ring[0].enstrophy == got);
  }
}

}  // namespace

TEST_CASE("CUDA LBM: the enstrophy of the 3-D Taylor-Green vortex matches the CPU backend's", "[gpu][lbm]") {
  if (!haveGpu()) return;
  for (const std::string lattice : {"D3Q19", "D3Q27"})
    for (const std::string precision : {"double", "single"}) {
      INFO(lattice << " " << precision);
      const std::string text = "solver: lbm\nlattice: " + lattice + "\nprecision: " + precision +
                               "\ncollision: {model: trt}\ndomain: {cells: [24, 24, 24], periodic: [x, y, z]}\n"
                               "fluid: {tau: 0.6}\ninitial: {taylor_green: {u0: 0.05}}\nrun: {steps: 100}\n";
      checkEnstrophy(buildSetup(parseCase(text)), precision == "single");
    }
}

TEST_CASE("CUDA LBM: the enstrophy next to walls, obstacles and open faces matches the CPU backend's", "[gpu][lbm]") {
  if (!haveGpu()) return;
  for (const std::string lattice : {"D2Q9", "D3Q19", "D3Q27"})
    for (const std::string precision : {"double", "single"})
      for (const Flow flow : flowsFor(lattice)) {
        INFO(lattice << " " << precision << " " << flowName(flow));
        checkEnstrophy(buildSetup(parseCase(caseYaml(lattice, precision, "bgk", flow))), precision == "single");
      }
}
