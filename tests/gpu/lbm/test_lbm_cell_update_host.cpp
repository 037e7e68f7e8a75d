// The CUDA backend's per-cell code run on the host against the CPU backend: both layouts (the in-place AA pattern
// included), 32- and 64-bit indices, FP16 storage against single precision; and the wall cells updated in the bulk
// pass against the boundary kernel's gather(), bitwise. Runs without a GPU ([unit]).
#if HOPSIM_WITH_CUDA
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <type_traits>

#include "CatchCompat.h"
#include "HostCellUpdateRunner.h"
#include "LbmAgreementCases.h"
#include "kernels/lbm/cuda/CudaLbmFactory.h"

using namespace hopsim::lbm;
using namespace hopsim::lbm::testing;

namespace {

// Calls f.template operator()<L, S>() with the setup's lattice L and stored type S.
template <class F>
void withLatticeAndStorage(const LbmSetup& s, F&& f) {
  const auto stored = [&]<class L>() {
    switch (s.precision) {
      case Precision::Double: return f.template operator()<L, double>();
      case Precision::Single: return f.template operator()<L, float>();
      case Precision::Half: return f.template operator()<L, __half>();
    }
  };
  switch (s.lattice) {
    case LatticeKind::D2Q9: return stored.template operator()<D2Q9>();
    case LatticeKind::D3Q19: return stored.template operator()<D3Q19>();
    case LatticeKind::D3Q27: return stored.template operator()<D3Q27>();
  }
}

// The setup of the case `yaml(stored precision)` in `precision`; FP16 storage as the FP16 test below makes it: the
// single-precision setup, stored in half.
template <class Yaml>
LbmSetup setupIn(const std::string& precision, Yaml yaml) {
  LbmSetup s = buildSetup(parseCase(yaml(precision == "double" ? "double" : "single")));
  if (precision == "half") s.precision = Precision::Half;
  return s;
}

// 64-bit indices for D3Q19 with FP64 and FP32 storage only: the index type changes the address arithmetic alone,
// the same for every lattice, and each instantiation of the runner costs CI about 15 s of compilation.
std::unique_ptr<LbmBackend> hostRunner(const LbmSetup& s, bool inPlace, bool wide = false) {
  std::unique_ptr<LbmBackend> runner;
  withLatticeAndStorage(s, [&]<class L, class S>() {
    if constexpr (std::is_same_v<L, D3Q19> && !std::is_same_v<S, __half>) {
      if (wide) return void(runner = std::make_unique<HostCellUpdateRunner<L, S, unsigned long long>>(s, inPlace));
    }
    if (wide) throw std::invalid_argument("the host runner has 64-bit indices for D3Q19 in FP64 and FP32 only");
    runner = std::make_unique<HostCellUpdateRunner<L, S>>(s, inPlace);
  });
  return runner;
}

void checkAgainstCpu(const std::string& lattice, const std::string& precision, const std::string& collision,
                     Flow flow, bool wide) {
  const LbmCase c = parseCase(caseYaml(lattice, precision, collision, flow));
  const LbmSetup setup = buildSetup(c);
  // FP16 storage on both sides: the same conversions and arithmetic, and bitwise the same values when measured
  // (GCC 12, x86-64, 2026-12-02: every difference 0); but an operation rounded differently in FP32 (an FMA where
  // one compiler contracts) would round a stored value to the next half, so held to FP16 storage's bound.
  const Tolerance tol = precision == "double"   ? Tolerance{1e-13, 1e-13, 1e-12, 1e-11}
                        : precision == "single" ? Tolerance{1e-6, 1e-6, 1e-5, 1e-5}
                                                : kHalfTolerance;
  for (const bool inPlace : {false, true}) {
    if (inPlace && !inPlaceRefusal(setup).empty()) continue;
    INFO(lattice << " " << precision << " " << collision << " " << flowName(flow) << (inPlace ? " in-place" : " two-lattice")
                 << (wide ? " 64-bit" : " 32-bit"));
    auto cpu = makeCpuBackend(setup);
    auto host = hostRunner(setup, inPlace, wide);
    // Odd step counts too: the in-place state alternates, and forces come from the last step.
    cpu->advance(37, false);
    host->advance(37, false);
    cpu->advance(64, true);
    host->advance(64, true);
    const Agreement a = compare(*cpu, *host, setup.flags);
    if (precision == "half")
      std::printf("cuda-host half vs cpu half %s %s %-30s velocity %.2e density %.2e ke %.2e force %.2e\n",
                  lattice.c_str(), collision.c_str(), flowName(flow), a.velocity, a.density, a.kineticEnergy, a.force);
    checkAgreement(a, tol);
  }
}

// Two host runs of one case by different paths: bitwise the same populations after steps without forces and after
// a step with them.
template <class L, class S>
void checkSamePopulations(HostCellUpdateRunner<L, S>& a, HostCellUpdateRunner<L, S>& b) {
  for (const bool forces : {false, true}) {
    a.advance(12, forces);
    b.advance(12, forces);
    REQUIRE(a.populations().size() == b.populations().size());
    REQUIRE(std::memcmp(a.populations().data(), b.populations().data(), a.populations().size() * sizeof(S)) == 0);
  }
}

// The same case run with the wall cells in the bulk pass and in the boundary kernel (which does them in both on a
// step with forces).
template <class L, class S>
void checkWallsInBulk(const LbmSetup& s) {
  HostCellUpdateRunner<L, S> split(s, false, false), fused(s, false, true);
  checkSamePopulations(split, fused);
}

// The same channel with the inlet and outlet ghost nodes built from the face cells' moments of the step
// (storeOpenMoments, the GPU's default on 3-D lattices) and from their inner neighbours' populations link by link.
template <class L, class S>
void checkOpenMoments(const LbmSetup& s) {
  HostCellUpdateRunner<L, S> perLink(s, false, true, false), perStep(s, false, true, true);
  checkSamePopulations(perLink, perStep);
}

// The same channel with the inlet and outlet cells in the bulk pass (the face moments of the step, the wall cells
// there too) and in the boundary kernel.
template <class L, class S>
void checkOpenInBulk(const LbmSetup& s) {
  HostCellUpdateRunner<L, S> split(s, false, true, true), fused(s, false, true, true, true);
  checkSamePopulations(split, fused);
}

// The same channel with the face pass's ghost values wrapped into the opposite face (openWrap: the inlet and outlet
// cells bulk or wall cells) and read by the boundary kernel: bitwise the same populations and forces where the
// stored type holds the ghost value exactly; FP16 storage rounds it once more, held to FP16 storage's bound.
template <class L, class S>
void checkOpenWrap(const LbmSetup& s) {
  HostCellUpdateRunner<L, S> split(s, false, true, true), wrapped(s, false, true, true, false, true);
  REQUIRE(wrapped.wrappedFaces() == 3u);  // the x faces
  CHECK(wrapped.cellsOfClass(kCellBoundary) == 0);
  CHECK(wrapped.cellsOfClass(kCellBulk) > split.cellsOfClass(kCellBulk));
  if constexpr (sizeof(S) == 2) {
    split.advance(40, true);
    wrapped.advance(40, true);
    const Agreement a = compare(split, wrapped, s.flags);
    INFO("velocity " << a.velocity << " density " << a.density << " force " << a.force);
    checkAgreement(a, kHalfTolerance);
  } else {
    checkSamePopulations(split, wrapped);
    const auto fa = split.obstacleForces(), fb = wrapped.obstacleForces();
    REQUIRE(fa.size() == fb.size());
    for (std::size_t k = 0; k < fa.size(); ++k)
      for (int a = 0; a < 3; ++a) CHECK(fa[k][a] == fb[k][a]);
  }
}

// Calls check.template operator()<L, S>(setup) for the cases whose inlet and outlet faces are wrapped, on every
// lattice and stored type: the channel (walls across the faces, an obstacle inside), and the open faces' case with
// its obstacles off the face planes (a periodic axis and a moving wall across the faces, an inflow at an angle, a
// body force).
template <class Check>
void forEachWrappedCase(Check&& check) {
  for (const std::string lattice : {"D2Q9", "D3Q19", "D3Q27"})
    for (const std::string precision : {"double", "single", "half"})
      for (const bool channel : {true, false}) {
        const LbmSetup s = setupIn(precision, [&](const std::string& stored) {
          return channel ? caseYaml(lattice, stored, "trt", Flow::Channel) : openFacesYaml(lattice, stored, false);
        });
        INFO(lattice << " " << precision << (channel ? " channel" : " open faces, obstacles off the face planes"));
        withLatticeAndStorage(s, [&]<class L, class S>() { check.template operator()<L, S>(s); });
      }
}

// The wrapped channel with the face values kept by the bulk pass of the step before (keepFaces: no face pass and no
// copy after a step without forces, the ghost values left in the state) and with a face pass and a copy in every
// step: bitwise the same populations once the displaced ones are put back, and the kept values bitwise what a face
// pass over the state stores (FP16 storage included: the kept values are rounded to it first); a step with forces
// keeps none, and the step after it runs the pass again; a step after the state was read copies the ghost values
// again.
template <class L, class S>
void checkKeepFaces(const LbmSetup& s) {
  HostCellUpdateRunner<L, S> pass(s, false, true, true, false, true), kept(s, false, true, true, false, true, true);
  REQUIRE(kept.wrappedFaces() == 3u);
  for (const bool forces : {false, true, false}) {
    pass.advance(9, forces);
    kept.advance(9, forces);
    CHECK(kept.ghostsInState() == !forces);
    REQUIRE(std::memcmp(pass.populations().data(), kept.populations().data(), pass.populations().size() * sizeof(S)) ==
            0);
    CHECK(kept.keptValuesAreFacePass() == !forces);
    CHECK_FALSE(pass.keptValuesAreFacePass());
  }
}

}  // namespace

TEST_CASE("CUDA inlet and outlet face values kept by the bulk pass for the next step are the face pass's (host run)",
          "[unit][lbm][cuda-host]") {
  forEachWrappedCase([]<class L, class S>(const LbmSetup& s) { checkKeepFaces<L, S>(s); });
}

TEST_CASE("CUDA inlet and outlet cells as bulk and wall cells, the face pass's ghost values wrapped into the "
          "opposite face, are the boundary kernel's (host run)",
          "[unit][lbm][cuda-host]") {
  forEachWrappedCase([]<class L, class S>(const LbmSetup& s) { checkOpenWrap<L, S>(s); });
  // Obstacles on the face planes: the faces are not wrapped (a ghost link next to a solid face cell reads another
  // cell's moments).
  const LbmSetup corners = buildSetup(parseCase(openFacesYaml("D3Q19", "single")));
  const HostCellUpdateRunner<D3Q19, float> unwrapped(corners, false, true, true, false, true);
  CHECK(unwrapped.wrappedFaces() == 0u);
  // An outlet on another axis than the inlet, or an inlet without an outlet: a link may cross two open faces, or a
  // face has no opposite one to hand its values through.
  const std::string channel = caseYaml("D3Q19", "single", "trt", Flow::Channel);
  const auto edited = [&](const std::string& from, const std::string& to, const std::string& from2,
                          const std::string& to2) {
    std::string y = channel;
    REQUIRE(y.find(from) != std::string::npos);
    y.replace(y.find(from), from.size(), to);
    REQUIRE(y.find(from2) != std::string::npos);
    y.replace(y.find(from2), from2.size(), to2);
    return buildSetup(parseCase(y));
  };
  const std::string outlet = "x+: {type: pressure_outlet, density: 1.0}";
  const LbmSetup bend =
      edited(outlet, "x+: {type: wall}", "y+: {type: wall}", "y+: {type: pressure_outlet, density: 1.0}");
  const LbmSetup closed = edited(outlet, "x+: {type: wall}", "y+: {type: wall}", "y+: {type: wall}");
  for (const LbmSetup* s : {&bend, &closed}) {
    const HostCellUpdateRunner<D3Q19, float> r(*s, false, true, true, false, true);
    CHECK(r.wrappedFaces() == 0u);
    CHECK(r.cellsOfClass(kCellBoundary) > 0);
  }
}

TEST_CASE("CUDA inlet/outlet ghost nodes from the face cells' moments are bitwise the per-link ones, in the boundary "
          "kernel and in the bulk pass (host run)",
          "[unit][lbm][cuda-host]") {
  for (const std::string lattice : {"D2Q9", "D3Q19", "D3Q27"})
    for (const std::string precision : {"double", "single", "half"})
      for (const bool corners : {false, true}) {
        const LbmSetup s = setupIn(precision, [&](const std::string& stored) {
          return corners ? openFacesYaml(lattice, stored) : caseYaml(lattice, stored, "trt", Flow::Channel);
        });
        INFO(lattice << " " << precision << (corners ? " open faces with obstacles and a moving wall" : " channel"));
        REQUIRE(hasOpenFaces(s));
        withLatticeAndStorage(s, [&]<class L, class S>() {
          checkOpenMoments<L, S>(s);
          checkOpenInBulk<L, S>(s);
        });
      }
}

// TRT only: which links bounce does not depend on the collision model, and TRT exercises both relaxation rates.
TEST_CASE("CUDA wall cells in the bulk pass are bitwise the boundary kernel's (host run)", "[unit][lbm][cuda-host]") {
  for (const std::string lattice : {"D2Q9", "D3Q19", "D3Q27"})
    for (const std::string precision : {"double", "single"})
      for (const Flow flow : flowsFor(lattice)) {
        const LbmSetup s = buildSetup(parseCase(caseYaml(lattice, precision, "trt", flow)));
        INFO(lattice << " " << precision << " " << flowName(flow));
        long long walls = 0;
        withLatticeAndStorage(s, [&]<class L, class S>() {
          checkWallsInBulk<L, S>(s);
          const HostCellUpdateRunner<L, S> classes(s, false);
          walls = classes.cellsOfClass(kCellWall) + classes.cellsOfClass(kCellWallSolid);
        });
        CHECK(walls > 0);  // every flow has walls or an obstacle: the path under test ran
      }
}

// TRT only: both sides relax through the same collideWith() (Collision.h), and BGK and TRT without a force or LES
// run the same kernel variant (Terms 0), so BGK adds no path of the CUDA cell code; it runs in the 64-bit case
// below and in the [gpu] agreement tests. (BGK here too doubled this entry, the longest of CI's ctest: 140 s.)
TEST_CASE("CUDA cell update on the host matches the CPU backend, both layouts", "[unit][lbm][cuda-host]") {
  for (const std::string lattice : {"D2Q9", "D3Q19", "D3Q27"})
    for (const std::string precision : {"double", "single", "half"})
      for (const Flow flow : flowsFor(lattice)) checkAgainstCpu(lattice, precision, "trt", flow, false);
}

TEST_CASE("CUDA cell update with Smagorinsky LES and the regularised operator on the host matches the CPU backend",
          "[unit][lbm][cuda-host]") {
  // FP16 storage: FP32 arithmetic, and the GPU's fastest kernels (the other precisions run in the [gpu] tests).
  for (const std::string& collision : {kTrtLes, kRegularizedLes})
    for (const std::string lattice : {"D2Q9", "D3Q19", "D3Q27"})
      for (const Flow flow : flowsFor(lattice)) checkAgainstCpu(lattice, "half", collision, flow, false);
}

TEST_CASE("CUDA cell update with 64-bit indices matches the CPU backend", "[unit][lbm][cuda-host]") {
  checkAgainstCpu("D3Q19", "double", "trt", Flow::PeriodicForce, true);
  checkAgainstCpu("D3Q19", "single", "bgk", Flow::Cavity, true);
  checkAgainstCpu("D3Q19", "double", "bgk", Flow::Channel, true);
}

TEST_CASE("FP16 storage stays within the stated bound of single precision", "[unit][lbm][cuda-host]") {
  for (const std::string lattice : {"D2Q9", "D3Q19", "D3Q27"})
    for (const Flow flow : flowsFor(lattice)) {
      LbmCase c = parseCase(caseYaml(lattice, "single", "trt", flow));
      const LbmSetup single = buildSetup(c);
      LbmSetup half = single;
      half.precision = Precision::Half;
      for (const bool inPlace : {false, true}) {
        if (inPlace && !inPlaceRefusal(single).empty()) continue;
        INFO(lattice << " " << flowName(flow) << (inPlace ? " in-place" : " two-lattice"));
        auto ref = makeCpuBackend(single);
        auto h = hostRunner(half, inPlace);
        ref->advance(100, true);
        h->advance(100, true);
        const Agreement a = compare(*ref, *h, single.flags);
        std::printf("half vs single %s %-30s %-11s velocity %.2e density %.2e mass %.2e ke %.2e force %.2e\n",
                    lattice.c_str(), flowName(flow), inPlace ? "in-place" : "two-lattice", a.velocity, a.density,
                    a.mass, a.kineticEnergy, a.force);
        INFO("velocity " << a.velocity << " density " << a.density << " ke " << a.kineticEnergy << " force " << a.force);
        CHECK(a.velocity <= kHalfTolerance.field);
        CHECK(a.density <= kHalfTolerance.field);
        CHECK(a.mass <= kHalfTolerance.observable);
        CHECK(a.kineticEnergy <= kHalfTolerance.kineticEnergy);
        CHECK(a.force <= kHalfTolerance.force);
      }
    }
}
#endif
