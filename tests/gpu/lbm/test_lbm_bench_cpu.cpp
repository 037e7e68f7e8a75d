// lbm::bench on the CPU backend: the same JSON as on a GPU, against the host's copy bandwidth.
#include "CatchCompat.h"
#include "solvers/lbm/LbmBench.h"

using namespace hopsim;
using namespace hopsim::lbm;

TEST_CASE("LBM bench runs on the CPU backend against the host copy bandwidth", "[unit][lbm]") {
  LbmCase c = defaultBenchCase();
  CHECK(c.lattice == LatticeKind::D3Q19);
  CHECK(c.cells == std::array<long long, 3>{256, 256, 256});
  CHECK(c.precision == Precision::Single);
  c.cells = {12, 10, 8};
  c.device.backend = Backend::Cpu;
  BenchOptions o;
  o.steps = 3;
  o.repeats = 3;
  o.copyBytes = std::size_t(32) << 20;
  const auto j = bench(c, o);
  INFO(j.dump(2));
  CHECK(j["copy_bandwidth"]["memory"] == "host");
  const double copy = j["copy_bandwidth"]["median_gbs"].get<double>();
  CHECK(copy > 0);
  CHECK(j["provenance"]["backend"] == "cpu");
  CHECK(j["provenance"]["gpu"].is_null());
  REQUIRE(j["runs"].size() == 1);
  const auto& r = j["runs"][0];
  REQUIRE(r.contains("mlups"));
  CHECK(r["mlups"]["median"].get<double>() > 0);
  CHECK(r["mlups"]["min"].get<double>() <= r["mlups"]["max"].get<double>());
  CHECK(r["steps"] == 3);
  CHECK(r["bytes_per_cell_step"].get<double>() == 152.0);
  CHECK(r["effective_bandwidth_gbs"].get<double>() > 0);
  CHECK(r["fraction_of_copy_bandwidth"].get<double>() ==
        Approx(r["effective_bandwidth_gbs"].get<double>() / copy).epsilon(1e-12));
  CHECK(r["layout"] == "in-place");  // the cpu backend's default where the case allows it
  CHECK(r["id"] == "lbm/periodic/D3Q19/single/cpu/in-place/12x10x8");
  // One step is 960 cells / (MLUPS * 1e6) seconds, for each repeat: with an odd number of repeats the step time's
  // median is the MLUPS median's.
  CHECK(r["step_time_ms"]["median"].get<double>() ==
        Approx(1e3 * 960 / (r["mlups"]["median"].get<double>() * 1e6)).epsilon(1e-12));
  CHECK(r["step_time_ms"]["min"].get<double>() ==
        Approx(1e3 * 960 / (r["mlups"]["max"].get<double>() * 1e6)).epsilon(1e-12));
  CHECK(r["throughput"]["unit"] == "MLUPS");
  CHECK(r["final_mass"].get<double>() == Approx(12.0 * 10 * 8).epsilon(1e-5));
}

TEST_CASE("LBM bench reports a run it cannot build and fails when none succeeds", "[unit][lbm]") {
  LbmCase c = defaultBenchCase();
  c.cells = {8, 8, 8};
  c.device.backend = Backend::Cpu;
  BenchOptions o;
  o.steps = 1;
  o.repeats = 1;
  o.layouts = {"diagonal"};  // no such layout
  CHECK_THROWS_AS(bench(c, o), std::runtime_error);
}
