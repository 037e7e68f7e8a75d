// MD case parser: a valid case, the initial state the solver builds from it, and each kind of error located at the
// offending key.
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "CatchCompat.h"
#include "io/md/MdCaseParser.h"
#include "kernels/md/VelocityInit.h"
#include "solvers/md/InitialState.h"

using hopsim::io::CaseDocument;
using hopsim::io::CaseError;
using hopsim::io::md::parseMdCase;

namespace {
const std::string kValid =
    "solver: md\n"                                                                  // 1
    "precision: double\n"                                                           // 2
    "system:\n"                                                                     // 3
    "  lattice: {type: fcc, density: 0.8442, cells: [4, 4, 4]}\n"                   // 4
    "potential: {type: lj, epsilon: 1.0, sigma: 1.0, cutoff: 2.5}\n"                // 5
    "neighbor: {skin: 0.3}\n"                                                       // 6
    "velocity: {temperature: 1.44, seed: 87287}\n"                                  // 7
    "integrator: {type: nve, dt: 0.005}\n"                                          // 8
    "run: {steps: 10}\n";                                                           // 9

// Expects a CaseError at line:column whose message contains `text`.
void expectError(const std::string& yaml, int line, int column, const std::string& text) {
  try {
    parseMdCase(CaseDocument::fromString(yaml, "case.yaml"));
    FAIL("no error for: " << yaml);
  } catch (const CaseError& e) {
    INFO(e.what());
    CHECK(e.where().line == line);
    CHECK(e.where().column == column);
    CHECK(std::string(e.what()).find(text) != std::string::npos);
  }
}
}  // namespace

TEST_CASE("md parser: a valid case describes an fcc crystal at the requested temperature", "[unit][md]") {
  const auto c = parseMdCase(CaseDocument::fromString(kValid, "case.yaml"));
  using hopsim::md::MdSystem;
  REQUIRE(c.system.kind == MdSystem::Kind::FccLattice);
  CHECK(c.system.lattice.density == 0.8442);
  CHECK(c.system.lattice.cells == std::array<long long, 3>{4, 4, 4});
  CHECK(c.system.lattice.mass == 1.0);
  CHECK(c.system.size() == 4u * 64u);
  CHECK(c.system.box().length[0] == Approx(4 * std::cbrt(4.0 / 0.8442)));
  CHECK(c.velocity.create);
  CHECK(c.velocity.temperature == 1.44);
  CHECK(c.velocity.seed == 87287u);
  CHECK(c.precision == hopsim::md::Precision::Double);
  CHECK(c.integrator.dt == 0.005);
}

TEST_CASE("md initial state: the parsed fcc case builds the crystal at the requested temperature", "[unit][md]") {
  const auto c = parseMdCase(CaseDocument::fromString(kValid, "case.yaml"));
  const auto s = hopsim::md::initialState(c);
  REQUIRE(s.size() == 4u * 64u);
  const double a = std::cbrt(4.0 / 0.8442);
  CHECK(s.box.length[0] == Approx(4 * a));
  CHECK(s.box.length == c.system.box().length);
  CHECK(static_cast<double>(s.size()) / s.box.volume() == Approx(0.8442));
  // Zero total momentum and exactly T with 3N - 3 degrees of freedom.
  double p[3] = {0, 0, 0};
  for (std::size_t i = 0; i < s.size(); ++i) p[0] += s.vx[i], p[1] += s.vy[i], p[2] += s.vz[i];
  for (double v : p) CHECK(std::abs(v) < 1e-10);
  CHECK(hopsim::md::twiceKineticEnergy(s) / hopsim::md::degreesOfFreedom(s.size()) == Approx(1.44).epsilon(1e-12));
}

TEST_CASE("md parser: unknown key, wrong type, out of range, bad choice are located", "[unit][md]") {
  SECTION("unknown key with a suggestion") {
    std::string y = kValid;
    y.replace(y.find("neighbor: {skin"), 15, "neighbor: {skni");
    expectError(y, 6, 12, "did you mean 'skin'");
  }
  SECTION("a ghost transport that does not exist") {
    expectError(kValid + "device: {halo: shm}\n", 10, 16, "ipc");
  }
  SECTION("wrong type") {
    std::string y = kValid;
    y.replace(y.find("dt: 0.005"), 9, "dt: fast");
    expectError(y, 8, 29, "must be a number");
  }
  SECTION("out of range") {
    std::string y = kValid;
    y.replace(y.find("cutoff: 2.5"), 11, "cutoff: -1");
    expectError(y, 5, 57, "greater than zero");
  }
  SECTION("bad choice") {
    std::string y = kValid;
    y.replace(y.find("precision: double"), 17, "precision: duoble");
    expectError(y, 2, 12, "did you mean 'double'");
  }
  SECTION("missing key") {
    std::string y = kValid;
    y.replace(y.find("run: {steps: 10}"), 16, "run: {}");
    expectError(y, 9, 6, "missing required key 'steps'");
  }
  SECTION("integrator keys depend on its type") {
    std::string y = kValid;
    y.replace(y.find("{type: nve, dt: 0.005}"), 22, "{type: nve, dt: 0.005, tau: 1}");
    expectError(y, 8, 36, "unknown key 'tau'");
  }
}

TEST_CASE("md parser: lattice sizes whose atom count overflows are errors at 'cells'", "[unit][md]") {
  SECTION("2^21 cells per axis: the product wraps a 64-bit integer") {
    std::string y = kValid;
    y.replace(y.find("cells: [4, 4, 4]"), 16, "cells: [2097152, 2097152, 2097152]");
    expectError(y, 4, 48, "2097152 x 2097152 x 2097152 unit cells make more than 2^31 atoms");
  }
  SECTION("just above 2^31 atoms") {
    std::string y = kValid;
    y.replace(y.find("cells: [4, 4, 4]"), 16, "cells: [1024, 1024, 513]");
    expectError(y, 4, 48, "more than 2^31 atoms");
  }
}

TEST_CASE("md parser: a box shorter than 2 (cutoff + skin) is an error at 'system'", "[unit][md]") {
  std::string y = kValid;
  y.replace(y.find("cells: [4, 4, 4]"), 16, "cells: [4, 3, 4]");  // 3 cells = 5.04 < 2 x 2.8
  expectError(y, 4, 3, "shorter than twice the cutoff plus skin");
}

TEST_CASE("md parser: LAMMPS data file problems are located in the data file", "[unit][md]") {
  const auto dir = std::filesystem::temp_directory_path() / "hopsim-md-parser-test";
  std::filesystem::create_directories(dir);
  const auto data = dir / "bad.data";
  {
    std::ofstream out(data);
    out << "title\n\n2 atoms\n1 atom types\n0 10 xlo xhi\n0 10 ylo yhi\n0 10 zlo zhi\n\nAtoms # atomic\n\n"
           "1 1 1.0 1.0 1.0\n2 1 2.0 abc 2.0\n";
  }
  const std::string y = "solver: md\nsystem: {read: {lammps_data: " + data.string() +
                        "}}\npotential: {type: lj, cutoff: 2.5}\nintegrator: {type: nve, dt: 0.005}\nrun: {steps: 1}\n";
  try {
    parseMdCase(CaseDocument::fromString(y, "case.yaml"));
    FAIL("no error");
  } catch (const CaseError& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(e.where().line == 2);  // the key that names the file
    CHECK(what.find("bad.data:12:9: a coordinate must be a finite number, found 'abc'") != std::string::npos);
  }
  SECTION("a missing file") {
    const std::string y2 = "solver: md\nsystem: {read: {lammps_data: /nonexistent/x.data}}\n"
                           "potential: {type: lj, cutoff: 2.5}\nintegrator: {type: nve, dt: 0.005}\nrun: {steps: 1}\n";
    CHECK_THROWS_AS(parseMdCase(CaseDocument::fromString(y2, "case.yaml")), CaseError);
  }
}
