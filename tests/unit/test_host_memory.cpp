// Host memory: MemAvailable is read from meminfo, and LBM and MD cases that need more than that are refused before
// anything is allocated for them.
#include <sstream>
#include <string>

#include "CatchCompat.h"
#include "core/ExitCode.h"
#include "core/RunOptions.h"
#include "io/CaseReader.h"
#include "io/LbmCaseParser.h"
#include "io/md/MdCaseParser.h"
#include "solvers/common/HostMemory.h"
#include "solvers/lbm/LbmSimulation.h"
#include "solvers/md/MdSimulation.h"

using hopsim::io::CaseDocument;

namespace {

// The message of the InputError `f` throws, or "" when it throws none.
template <class F>
std::string inputError(F&& f) {
  try {
    f();
  } catch (const hopsim::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("MemAvailable is read from meminfo in bytes", "[unit][memory]") {
  std::istringstream meminfo("MemTotal:       131072000 kB\nMemFree:         2048 kB\nMemAvailable:   4194304 kB\n");
  CHECK(hopsim::parseMemAvailable(meminfo) == 4194304ull * 1024);
  std::istringstream none("MemTotal: 1 kB\n");
  CHECK(!hopsim::parseMemAvailable(none).has_value());
  CHECK(hopsim::availableHostMemory().value_or(0) > 0);  // this machine runs Linux
}

TEST_CASE("a need above the available memory is an InputError naming both", "[unit][memory]") {
  const double gib = 1024.0 * 1024.0 * 1024.0;
  CHECK(inputError([&] { hopsim::checkHostMemory(3 * gib, std::uint64_t(4 * gib), "this case"); }).empty());
  CHECK(inputError([&] { hopsim::checkHostMemory(1.5 * gib, std::nullopt, "this case"); }).empty());
  CHECK(inputError([&] { hopsim::checkHostMemory(12.25 * gib, std::uint64_t(4 * gib), "this case"); })
            .find("this case needs 12.2 GiB of host memory, 4.0 GiB available") == 0);
}

TEST_CASE("an LBM case larger than host memory is refused before its lattices are allocated", "[unit][memory]") {
  // 8192^3 D3Q19 cells: 5.5e11 cells, two single-precision lattices alone need 77 TiB.
  const std::string text =
      "solver: lbm\nlattice: D3Q19\ndomain: {cells: [8192, 8192, 8192], periodic: [x, y, z]}\n"
      "fluid: {tau: 0.8}\nrun: {steps: 1}\ndevice: {backend: cpu}\n";
  const auto c = hopsim::io::parseLbmCase(CaseDocument::fromString(text, "case.yaml"));
  const std::string msg = inputError([&] { hopsim::lbm::LbmSimulation sim(c, hopsim::Backend::Cpu); });
  INFO(msg);
  CHECK(msg.find("this case (549755813888 cells) needs ") == 0);
  CHECK(msg.find(" GiB of host memory, ") != std::string::npos);
  CHECK(msg.find(" GiB available (MemAvailable)") != std::string::npos);
}

// The cpu backend keeps one lattice where it runs in place (a periodic box) and two where it cannot (an inlet and an
// outlet): per cell 74 bytes of setup and output copies, 1 of flags, and 76 or 152 of single-precision D3Q19
// populations.
TEST_CASE("an LBM case's host memory counts the lattices its cpu layout keeps", "[unit][memory]") {
  const auto needs = [](const std::string& geometry) {
    const std::string text = "solver: lbm\nlattice: D3Q19\nprecision: single\n" + geometry +
                             "fluid: {tau: 0.8}\nrun: {steps: 1}\ndevice: {backend: cpu}\n";
    const auto c = hopsim::io::parseLbmCase(CaseDocument::fromString(text, "case.yaml"));
    const std::string msg = inputError([&] { hopsim::lbm::LbmSimulation sim(c, hopsim::Backend::Cpu); });
    INFO(msg);
    const std::string before = "needs ";
    REQUIRE(msg.find(before) != std::string::npos);
    return std::stod(msg.substr(msg.find(before) + before.size()));
  };
  const double inPlace = needs("domain: {cells: [8192, 8192, 8192], periodic: [x, y, z]}\n");
  const double twoLattices = needs(
      "domain: {cells: [8192, 8192, 8192], periodic: [y, z]}\n"
      "boundaries:\n  x-: {type: velocity_inlet, velocity: [0.01, 0, 0]}\n  x+: {type: pressure_outlet}\n");
  CHECK(twoLattices / inPlace == Approx(227.0 / 151.0).epsilon(1e-3));
}

TEST_CASE("an MD case larger than host memory is refused before its atoms are built", "[unit][memory][md]") {
  // 4 x 800^3 = 2.048e9 atoms: the state and neighbour lists need about a terabyte.
  const std::string text =
      "solver: md\nsystem: {lattice: {type: fcc, density: 0.8442, cells: [800, 800, 800]}}\n"
      "potential: {type: lj, cutoff: 2.5}\nintegrator: {type: nve, dt: 0.005}\nrun: {steps: 1}\n"
      "device: {backend: cpu}\n";
  const auto c = hopsim::io::md::parseMdCase(CaseDocument::fromString(text, "case.yaml"));
  hopsim::RunOptions o;
  o.quiet = true;
  o.writeOutput = false;
  const std::string msg = inputError([&] { hopsim::md::runMd(c, o); });
  INFO(msg);
  CHECK(msg.find("this case (2048000000 atoms) needs ") == 0);
  CHECK(msg.find(" GiB available (MemAvailable)") != std::string::npos);
}
