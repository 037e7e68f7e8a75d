// lbm::bench on the CPU backend: the same JSON as on a GPU, with no copy bandwidth (null) and no roofline fraction.
#include "CatchCompat.h"
#include "solvers/lbm/LbmBench.h"

using namespace hopsim;
using namespace hopsim::lbm;

TEST_CASE("LBM bench runs on the CPU backend and reports null bandwidth", "[unit][lbm]") {
  LbmCase c = defaultBenchCase();
  CHECK(c.lattice == LatticeKind::D3Q19);
  CHECK(c.cells == std::array<long long, 3>{256, 256, 256});
  CHECK(c.precision == Precision::Single);
  c.cells = {12, 10, 8};
  c.device.backend = Backend::Cpu;
  BenchOptions o;
  o.steps = 3;
  o.repeats = 2;
  const auto j = bench(c, o);
  INFO(j.dump(2));
  CHECK(j["copy_bandwidth_gbs"].is_null());
  CHECK(j["device"]["name"] == "cpu");
  REQUIRE(j["runs"].size() == 1);
  const auto& r = j["runs"][0];
  REQUIRE(r.contains("mlups"));
  CHECK(r["mlups"]["median"].get<double>() > 0);
  CHECK(r["mlups"]["min"].get<double>() <= r["mlups"]["max"].get<double>());
  CHECK(r["steps"] == 3);
  CHECK(r["bytes_per_cell_step"].get<double>() == 152.0);
  CHECK(r["effective_bandwidth_gbs"].get<double>() > 0);
  CHECK(r["fraction_of_copy_bandwidth"].is_null());
  CHECK(r["layout"] == "two-lattice");
  CHECK(r["final_mass"].get<double>() == Approx(12.0 * 10 * 8).epsilon(1e-5));
}

TEST_CASE("LBM bench reports a run it cannot build and fails when none succeeds", "[unit][lbm]") {
  LbmCase c = defaultBenchCase();
  c.cells = {8, 8, 8};
  c.device.backend = Backend::Cpu;
  c.precision = Precision::Half;  // the CPU backend has no FP16 storage
  BenchOptions o;
  o.steps = 1;
  o.repeats = 1;
  CHECK_THROWS_AS(bench(c, o), std::runtime_error);
}
