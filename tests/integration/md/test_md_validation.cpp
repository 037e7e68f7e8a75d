// The quick MD validation cases as Catch2 tests (CPU backend); the long ones are hidden behind [.md_long].
#include <cstdio>

#include "CatchCompat.h"
#include "core/DataDir.h"
#include "validation/md/MdChecks.h"

using namespace hopsim::validation;

namespace {
Context cpuContext() {
  Context c;
  c.backend = hopsim::Backend::Cpu;
  c.dataDir = hopsim::dataDir().string();
  return c;
}
void checkRows(const std::vector<Row>& rows) {
  for (const auto& r : rows) {
    INFO(r.caseName << ": " << r.quantity << " = " << r.measured << " (tolerance " << r.tolerance << "); " << r.detail);
    std::printf("  %s | %s = %.3g (tolerance %.3g) | %s\n", r.caseName.c_str(), r.quantity.c_str(), r.measured,
                r.tolerance, r.detail.c_str());
    if (md::isSkipped(r)) {
      std::printf("%s %s: %s\n", r.caseName.c_str(), r.quantity.c_str(), r.detail.c_str());
      continue;
    }
    CHECK(r.pass);
  }
}
}  // namespace

TEST_CASE("md: forces match finite differences of the energy", "[validation][md]") {
  checkRows({md::forcesVsFiniteDifferences(200, 7)});
  checkRows({md::forcesVsFiniteDifferences(150, 2024)});
}

TEST_CASE("md: LAMMPS bench state step 0 reproduces LAMMPS's pe, etotal, press", "[validation][md]") {
  checkRows(md::lammpsBenchmarkStepZero(cpuContext()));
}

TEST_CASE("md: thermo matches LAMMPS run on the same data file (100 steps NVE)", "[validation][md]") {
  SECTION("lj/cut") { checkRows(md::lammpsPeer(cpuContext(), "plain", 100)); }
  SECTION("lj/cut, shifted") { checkRows(md::lammpsPeer(cpuContext(), "shift", 100)); }
  SECTION("lj/cut with tail corrections") { checkRows(md::lammpsPeer(cpuContext(), "tail", 100)); }
}

TEST_CASE("md: NVE energy drift, short variant", "[validation][md]") {
  checkRows({md::nveEnergyDrift(cpuContext(), 10, 2000)});
}

TEST_CASE("md: NVE energy drift, 32,000 atoms, 10,000 steps", "[.md_long]") {
  checkRows({md::nveEnergyDrift(cpuContext(), 20, 10000)});
}

TEST_CASE("md: NIST LJ potential energy at T* = 0.85", "[.md_long]") {
  checkRows(md::nistLjEnergy(cpuContext(), 0.776, 60000));
  checkRows(md::nistLjEnergy(cpuContext(), 0.86, 60000));
}
