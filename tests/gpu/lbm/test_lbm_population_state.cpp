// The population state a checkpoint holds: a backend loaded with what another saved continues as the one that saved
// it, bitwise, on every lattice, precision, layout and launch parity; one generic check for the CPU backend (runs
// everywhere) and the CUDA backend (labelled gpu).
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "CatchCompat.h"
#include "LbmAgreementCases.h"
#include "PlannedBackend.h"
#include "kernels/common/DeviceInfo.h"

using namespace hopsim;
using namespace hopsim::lbm;
using namespace hopsim::lbm::testing;

namespace {

using MakeBackend = std::function<std::unique_ptr<LbmBackend>(const LbmSetup&)>;

// Runs `first` steps, hands the state to a fresh backend, runs both `then` more steps (forces on the last) and
// checks that fields, observables and the saved states are equal bit for bit, and the obstacle forces too where
// `exactForces`. The CUDA backend sums a force over its links with atomicAdd, in an order that differs from launch to
// launch: the same populations give forces equal to round-off of the sum, 1e-10 of the force's magnitude (a small
// component is a difference of large link terms, so its own relative error can be far larger).
// `makeRestored` builds the backend that takes the state over (by default one like the original); it runs
// `restoredFirst` steps of its own before the load, which must replace everything they left.
void checkContinues(const LbmSetup& setup, const MakeBackend& make, long long first, long long then,
                    bool exactForces, const MakeBackend& makeRestored = {}, long long restoredFirst = 0) {
  auto original = make(setup);
  original->advance(first, false);
  std::vector<std::byte> state;
  original->savePopulations(state);
  auto restored = makeRestored ? makeRestored(setup) : make(setup);
  CHECK(restored->populationLayout() == original->populationLayout());
  restored->advance(restoredFirst, false);
  restored->loadPopulations(state);
  original->advance(then, true);
  restored->advance(then, true);

  std::vector<double> rhoA, uA, rhoB, uB;
  original->macroscopic(rhoA, uA);
  restored->macroscopic(rhoB, uB);
  CHECK(rhoA == rhoB);
  CHECK(uA == uB);
  const Observables a = original->observables(), b = restored->observables();
  CHECK(a.mass == b.mass);
  CHECK(a.kineticEnergy == b.kineticEnergy);
  CHECK(a.maxSpeed == b.maxSpeed);
  const auto forcesA = original->obstacleForces(), forcesB = restored->obstacleForces();
  if (exactForces) {
    CHECK(forcesA == forcesB);
  } else {
    REQUIRE(forcesA.size() == forcesB.size());
    for (std::size_t k = 0; k < forcesA.size(); ++k) {
      const double magnitude = std::abs(forcesA[k][0]) + std::abs(forcesA[k][1]) + std::abs(forcesA[k][2]);
      for (int d = 0; d < 3; ++d) CHECK(std::abs(forcesB[k][d] - forcesA[k][d]) <= 1e-10 * magnitude + 1e-15);
    }
  }
  std::vector<std::byte> stateA, stateB;
  original->savePopulations(stateA);
  restored->savePopulations(stateB);
  CHECK((stateA == stateB));
  // The state moved on: the check above compared two runs, not two copies of the start.
  CHECK_FALSE((stateA == state));

  // A state of another size is refused, not read past its end.
  state.pop_back();
  CHECK_THROWS_AS(restored->loadPopulations(state), std::invalid_argument);
}

}  // namespace

// Both layouts save the same state (the current populations, cell by cell), so a checkpoint of either continues in
// the other; after an odd and an even number of steps, as the in-place layout keeps populations in other slots
// after each.
TEST_CASE("a CPU LBM backend loaded with saved populations continues bitwise", "[unit][lbm][checkpoint]") {
  const auto withLayout = [](StreamingLayout layout) {
    return [layout](const LbmSetup& s) {
      LbmSetup copy = s;
      copy.layout = layout;
      return makeCpuBackend(copy);
    };
  };
  constexpr StreamingLayout layouts[] = {StreamingLayout::TwoLattice, StreamingLayout::InPlace};
  for (const std::string lattice : {"D2Q9", "D3Q19"})
    for (const std::string precision : {"double", "single"})
      for (const Flow flow : flowsFor(lattice))
        for (const StreamingLayout saved : layouts)
          for (const StreamingLayout loaded : layouts)
            for (const long long first : {17LL, 40LL}) {
              INFO(lattice << " " << precision << " " << flowName(flow) << ", saved " << toString(saved)
                           << ", loaded " << toString(loaded) << " after " << first);
              const LbmSetup setup = buildSetup(parseCase(caseYaml(lattice, precision, "trt", flow)));
              // The restored backend steps before the load (an even and an odd count): in place, the load must
              // replace its state's slots and the inlet and outlet cells it kept.
              checkContinues(setup, withLayout(saved), first, 23, true, withLayout(loaded), first == 17 ? 2 : 3);
            }
}

TEST_CASE("a CUDA LBM backend loaded with saved populations continues bitwise", "[gpu][lbm][checkpoint]") {
  if (cudaDeviceCount() == 0) {
    std::printf("no CUDA device: GPU test skipped\n");
    return;
  }
  for (const std::string lattice : {"D2Q9", "D3Q19", "D3Q27"})
    for (const std::string precision : {"double", "single", "half"})
      for (const Flow flow : flowsFor(lattice))
        for (const StreamingLayout layout : {StreamingLayout::TwoLattice, StreamingLayout::InPlace})
          // An odd and an even number of launches first: the parity travels with the state; 70 steps after it
          // cover a whole graph of launches as well as single ones.
          for (const long long first : {17LL, 40LL}) {
            INFO(lattice << " " << precision << " " << flowName(flow) << " " << toString(layout) << " after "
                         << first);
            LbmSetup setup = buildSetup(parseCase(caseYaml(lattice, precision == "half" ? "single" : precision,
                                                           "trt", flow)));
            if (precision == "half") setup.precision = Precision::Half;
            setup.layout = layout;
            checkContinues(setup,
                           [](const LbmSetup& s) { return plannedCudaBackend(s, KernelVariant::Portable); }, first,
                           70, false);
          }
}
