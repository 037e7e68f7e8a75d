// The CPU backend's vectorised bulk rows, on two lattices and in place, with the loop the CPU picks (AVX2 where the
// build targets less) and the build's own, against its per-cell update on two lattices
// (gather() + collide() on every cell): the same arithmetic on the same values, so the fields, observables and
// obstacle forces must agree bitwise, on every lattice, boundary type, precision (FP16 storage included), collision
// model and thread count. And FP16 storage against single precision, within the bound the cuda backend's FP16
// storage is held to.
#include <omp.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fmt/format.h>
#include <string>
#include <vector>

#include "CatchCompat.h"
#include "gpu/lbm/LbmAgreementCases.h"
#include "kernels/lbm/cpu/CpuLbmBackend.h"

using namespace hopsim;
using namespace hopsim::lbm;
using namespace hopsim::lbm::testing;

namespace {

bool sameBits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

// Restores the OpenMP thread count when a check fails halfway.
struct ThreadCount {
  explicit ThreadCount(int threads) : saved(omp_get_max_threads()) { omp_set_num_threads(threads); }
  ~ThreadCount() { omp_set_num_threads(saved); }
  int saved;
};

// Enough steps for every population to have crossed boundary and bulk cells several times; few enough for CI.
constexpr long long kSteps = 20;

void checkIdentical(LbmBackend& ref, LbmBackend& test) {
  std::vector<double> rr, ur, rt, ut;
  ref.macroscopic(rr, ur);
  test.macroscopic(rt, ut);
  REQUIRE(rr.size() == rt.size());
  REQUIRE(ur.size() == ut.size());
  std::size_t differ = 0;
  double maxSpeed = 0;
  for (std::size_t c = 0; c < rr.size(); ++c) {
    differ += !(sameBits(rr[c], rt[c]) && sameBits(ur[3 * c], ut[3 * c]) && sameBits(ur[3 * c + 1], ut[3 * c + 1]) &&
                sameBits(ur[3 * c + 2], ut[3 * c + 2]));
    maxSpeed = std::max(maxSpeed, std::hypot(ur[3 * c], ur[3 * c + 1], ur[3 * c + 2]));
  }
  INFO("cells " << rr.size() << ", differing in density or velocity: " << differ);
  CHECK(std::isfinite(maxSpeed));
  CHECK(maxSpeed > 1e-4);  // a flow, not a fluid at rest
  CHECK(differ == 0);
  // OpenMP combines the threads' partial sums in no fixed order: bitwise on one thread, else to double round-off.
  const Observables a = ref.observables(), b = test.observables();
  const double tolerance = omp_get_max_threads() == 1 ? 0.0 : 1e-12;
  CHECK(relative(b.mass, a.mass) <= tolerance);
  CHECK(relative(b.kineticEnergy, a.kineticEnergy) <= tolerance);
  CHECK(sameBits(a.maxSpeed, b.maxSpeed));
  const auto fa = ref.obstacleForces(), fb = test.obstacleForces();
  REQUIRE(fa.size() == fb.size());
  for (std::size_t k = 0; k < fa.size(); ++k)
    for (int d = 0; d < 3; ++d) CHECK(sameBits(fa[k][d], fb[k][d]));
}

}  // namespace

TEST_CASE("CPU LBM: bulk rows and the in-place layout equal the per-cell update bitwise on every case, on 1, 2 and 3 "
          "threads",
          "[unit][lbm][cpu]") {
  int index = 0;
  for (const std::string lattice : {"D2Q9", "D3Q19", "D3Q27"})
    for (const std::string precision : {"single", "double", "half"})
      for (const std::string& collision : collisionModels())  // with and without Smagorinsky LES
        for (const Flow flow : flowsFor(lattice)) {
          // Each case on one thread count, in turn: every lattice and boundary type meets all three, at a third of
          // the time.
          const int threads = 1 + index++ % 3;
          const ThreadCount count(threads);
          LbmSetup setup = buildSetup(parseCase(caseYaml(lattice, precision, collision, flow)));
          setup.cellsPerThread = 0;  // every thread, however small the box
          setup.layout = StreamingLayout::TwoLattice;
          auto ref = makeCpuBackend(setup, CpuCellUpdate::PerCell);
          auto rows = makeCpuBackend(setup, CpuCellUpdate::BulkRows);
          // In place where the layout can run the case: inlets and outlets too, not interpolated bounce-back.
          setup.layout = StreamingLayout::InPlace;
          const bool inPlace = setup.curved.cells.empty();
          auto rowsInPlace = makeCpuBackend(setup, CpuCellUpdate::BulkRows);
          auto cellsInPlace = makeCpuBackend(setup, CpuCellUpdate::PerCell);
          // The runs' loop of the build's instruction set, where BulkRows picks its AVX2 variant.
          auto buildTarget = makeCpuBackend(setup, CpuCellUpdate::BulkRowsBuildTarget);
          INFO(lattice << " " << precision << " " << collision << " " << flowName(flow) << ", " << threads
                       << " threads | " << rows->description() << " | " << rowsInPlace->description());
          CHECK(ref->description().find("per cell") != std::string::npos);
          CHECK(rows->description().find(fmt::format("{} OpenMP threads", threads)) != std::string::npos);
          CHECK(rows->description().find("vectorised rows") != std::string::npos);
          CHECK(rowsInPlace->layout() == (inPlace ? "in-place" : "two-lattice"));
          CHECK(rowsInPlace->description().find(inPlace ? "in place (AA pattern)" : "in place not used") !=
                std::string::npos);
          // An even and an odd number of steps: in place, the populations sit in other slots after each.
          for (const long long steps : {kSteps, 1LL}) {
            for (LbmBackend* b : {ref.get(), rows.get(), rowsInPlace.get(), cellsInPlace.get(), buildTarget.get()})
              b->advance(steps, true);
            checkIdentical(*ref, *rows);
            checkIdentical(*ref, *rowsInPlace);
            checkIdentical(*ref, *cellsInPlace);
            checkIdentical(*ref, *buildTarget);
          }
        }
}

TEST_CASE("CPU LBM: FP16 storage stays within the stated bound of single precision", "[unit][lbm][cpu]") {
  for (const std::string lattice : {"D2Q9", "D3Q19", "D3Q27"})
    for (const Flow flow : flowsFor(lattice)) {
      const LbmSetup single = buildSetup(parseCase(caseYaml(lattice, "single", "trt", flow)));
      LbmSetup halfSetup = single;
      halfSetup.precision = Precision::Half;
      auto ref = makeCpuBackend(single);
      auto half = makeCpuBackend(halfSetup);
      INFO(lattice << " " << flowName(flow) << " | " << half->description());
      CHECK(half->bytesPerCellUpdate() == Approx(0.5 * ref->bytesPerCellUpdate()));
      ref->advance(100, true);
      half->advance(100, true);
      const Agreement a = compare(*ref, *half, single.flags);
      std::printf("cpu half vs single %s %-30s velocity %.2e density %.2e mass %.2e ke %.2e force %.2e\n",
                  lattice.c_str(), flowName(flow), a.velocity, a.density, a.mass, a.kineticEnergy, a.force);
      checkAgreement(a, kHalfTolerance);
      // Not single precision under another name: FP16 rounding leaves its mark on the velocity field.
      CHECK(a.velocity > 1e-6);
    }
}

TEST_CASE("CPU LBM: a small box steps on one thread per LbmSetup::cellsPerThread cells", "[unit][lbm][cpu]") {
  const ThreadCount count(4);
  LbmSetup setup = buildSetup(parseCase(caseYaml("D2Q9", "single", "bgk", Flow::Cavity)));
  const long long cells = setup.domain.cells;
  REQUIRE(cells < 16384);
  CHECK(makeCpuBackend(setup)->description().find("1 OpenMP threads") != std::string::npos);
  setup.cellsPerThread = cells / 3;
  CHECK(makeCpuBackend(setup)->description().find("3 OpenMP threads") != std::string::npos);
  setup.cellsPerThread = 0;
  CHECK(makeCpuBackend(setup)->description().find("4 OpenMP threads") != std::string::npos);
}

// The rows along a wall face bounce the populations from beyond it in the vectorised loop, adding the wall's term
// where it moves, and so do the two ends of every row at a wall x face (the bitwise agreement is the test above,
// whose cases cover walls, moving walls, their corners with wall and periodic x faces, in both layouts).
TEST_CASE("CPU LBM: rows along wall faces, moving or not, are vectorised rows", "[unit][lbm][cpu]") {
  const std::string yaml =
      "solver: lbm\nlattice: D2Q9\nprecision: single\ndomain: {cells: [16, 12]}\nfluid: {viscosity: 0.1}\n"
      "boundaries:\n  x-: {type: wall}\n  x+: {type: wall}\n  y-: {type: wall}\n"
      "  y+: {type: moving_wall, velocity: [0.05, 0]}\nrun: {steps: 1}\ndevice: {backend: cpu}\n";
  const auto rows = makeCpuBackend(buildSetup(parseCase(yaml)));
  INFO(rows->description());
  // All 12 rows, the lid's too, each with its two end cells.
  CHECK(rows->description().find("(192 of 192 cells)") != std::string::npos);
}
