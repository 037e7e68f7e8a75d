// Physical units of LBM cases: the conversion type, SI cases parsed to the lattice case they stand for, their errors
// and warnings, and the SI outputs of a run.
#include <hdf5.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "CatchCompat.h"
#include "LbmCaseText.h"
#include "ScratchDir.h"
#include "core/RunOptions.h"
#include "core/lbm/Units.h"
#include "io/CaseReader.h"
#include "io/LbmCaseParser.h"
#include "solvers/lbm/LbmRun.h"

using hopsim::io::CaseDocument;
using hopsim::io::CaseError;
using hopsim::io::parseLbmCase;
namespace lbm = hopsim::lbm;
namespace fs = std::filesystem;
using hopsim::testing::edited;
using lbm::Quantity;

namespace {

constexpr Quantity kQuantities[] = {Quantity::Length,       Quantity::Area, Quantity::Time,  Quantity::Velocity,
                                    Quantity::Viscosity,    Quantity::Density, Quantity::Pressure,
                                    Quantity::Acceleration, Quantity::Mass, Quantity::Force, Quantity::Energy,
                                    Quantity::Enstrophy,    Quantity::PowerDensity};

// The Schaefer-Turek 2D-1 case in SI; tests edit one line and expect the error at a known place.
const std::string kSI =
    "solver: lbm\n"                                                                                        // 1
    "lattice: D2Q9\n"                                                                                      // 2
    "units: {length: 0.1, velocity: 0.2, viscosity: 1.0e-3, density: 1.2, resolution: 20, mach: 0.05}\n"  // 3
    "domain: {size: [2.2, 0.41]}\n"                                                                        // 4
    "boundaries:\n"                                                                                        // 5
    "  x-: {type: velocity_inlet, profile: parabolic, velocity: [0.3, 0]}\n"                               // 6
    "  x+: {type: pressure_outlet, pressure: 0}\n"                                                         // 7
    "  y-: {type: wall}\n"                                                                                 // 8
    "  y+: {type: wall}\n"                                                                                 // 9
    "obstacles:\n"                                                                                         // 10
    "  - {name: cylinder, shape: circle, center: [0.2, 0.2], radius: 0.05}\n"                              // 11
    "run: {time: 1.0}\n";                                                                                  // 12

lbm::LbmCase parse(const std::string& text) { return hopsim::testing::parseCaseText(text); }

// The 1-based column of `token`'s first character on line `line` of `text`.
int columnOf(const std::string& text, int line, const std::string& token) {
  std::istringstream in(text);
  std::string row;
  for (int i = 0; i < line; ++i) std::getline(in, row);
  const auto at = row.find(token);
  REQUIRE(at != std::string::npos);
  return static_cast<int>(at) + 1;
}

// The first error of `text` must be at `line`, at the column where `token` starts, and contain `phrase`.
void expectError(const std::string& text, int line, const std::string& token, const std::string& phrase) {
  hopsim::testing::expectError(text, line, columnOf(text, line, token), phrase);
}

// Likewise for the one warning `text` must give.
void expectWarning(const std::string& text, int line, const std::string& token, const std::string& phrase) {
  hopsim::testing::expectWarning(text, line, columnOf(text, line, token), phrase);
}

std::string fileText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<double> readDataset(const fs::path& file, const char* name) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);
  const hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  REQUIRE(d >= 0);
  const hid_t space = H5Dget_space(d);
  std::vector<double> values(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
  REQUIRE(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
  H5Sclose(space);
  H5Dclose(d);
  H5Fclose(f);
  return values;
}

// The dataset's string attribute `units`, or "" when it has none.
std::string unitsAttribute(const fs::path& file, const char* name) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);
  const hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  REQUIRE(d >= 0);
  std::string out;
  if (H5Aexists(d, "units") > 0) {
    const hid_t a = H5Aopen(d, "units", H5P_DEFAULT);
    const hid_t type = H5Aget_type(a);
    std::string buffer(H5Tget_size(type), '\0');
    H5Aread(a, type, buffer.data());
    out = buffer.c_str();
    H5Tclose(type);
    H5Aclose(a);
  }
  H5Dclose(d);
  H5Fclose(f);
  return out;
}

}  // namespace

TEST_CASE("lattice units are the identity conversion", "[unit][units]") {
  const lbm::UnitSystem u;
  CHECK_FALSE(u.isPhysical());
  for (const Quantity q : kQuantities) {
    INFO(lbm::toString(q));
    CHECK(u.factor(q) == 1.0);
    CHECK(u.toLattice(q, 0.123) == 0.123);
    CHECK(std::string(u.unit(q)).empty());
  }
  CHECK(u.time(250) == 250.0);
  CHECK(u.densityFromPressure(0.0) == 1.0);
}

TEST_CASE("SI -> lattice -> SI returns every quantity to round-off", "[unit][units]") {
  for (const int dims : {2, 3}) {
    const auto u = lbm::UnitSystem::physical({0.1, 0.2, 1.2, 20, 0.05}, dims);
    REQUIRE(u.isPhysical());
    for (const Quantity q : kQuantities)
      for (const double v : {1e-7, 0.3, -2.5, 4.2e5}) {
        INFO(lbm::toString(q) << " " << v << " in " << dims << "D");
        CHECK(u.toPhysical(q, u.toLattice(q, v)) == Approx(v).epsilon(1e-14));
        CHECK(u.toLattice(q, u.toPhysical(q, v)) == Approx(v).epsilon(1e-14));
      }
    CHECK(u.pressureFromDensity(u.densityFromPressure(3.7)) == Approx(3.7).epsilon(1e-13));
  }
}

TEST_CASE("the derived lattice values follow from L, U, rho, the resolution and Ma", "[unit][units]") {
  const auto u = lbm::UnitSystem::physical({0.1, 0.2, 1.2, 20, 0.05}, 2);
  CHECK(u.dx() == Approx(0.005).epsilon(1e-15));
  CHECK(u.latticeVelocity() == Approx(0.05 / std::sqrt(3.0)).epsilon(1e-15));
  CHECK(u.dt() == Approx(u.latticeVelocity() * 0.005 / 0.2).epsilon(1e-15));
  CHECK(u.toLattice(Quantity::Velocity, 0.2) == Approx(u.latticeVelocity()).epsilon(1e-15));
  CHECK(u.toLattice(Quantity::Viscosity, 1e-3) == Approx(1e-3 * u.dt() / (0.005 * 0.005)).epsilon(1e-15));
  // p = c_s^2 (rho_lat - 1) rho_ref (dx/dt)^2
  const double c = 0.005 / u.dt();
  CHECK(u.pressureFromDensity(1.01) == Approx(0.01 / 3 * 1.2 * c * c).epsilon(1e-12));
  CHECK(u.factor(Quantity::Force) == Approx(1.2 * std::pow(0.005, 3) / (u.dt() * u.dt())).epsilon(1e-14));
  CHECK(std::string(u.unit(Quantity::Force)) == "N/m");
  CHECK(std::string(lbm::UnitSystem::physical({0.1, 0.2, 1.2, 20, 0.05}, 3).unit(Quantity::Force)) == "N");
  // Enstrophy is a squared rate; a dissipation rate per volume is a pressure per time, in 2-D as in 3-D.
  CHECK(u.factor(Quantity::Enstrophy) == Approx(1 / (u.dt() * u.dt())).epsilon(1e-14));
  CHECK(u.factor(Quantity::PowerDensity) == Approx(u.factor(Quantity::Pressure) / u.dt()).epsilon(1e-14));
  CHECK(std::string(u.unit(Quantity::PowerDensity)) == "W/m^3");
  CHECK_THROWS(lbm::UnitSystem::physical({0.1, 0.0, 1.2, 20, 0.05}, 2));
}

TEST_CASE("the Schaefer-Turek case in SI parses to the lattice-unit validation case", "[unit][units]") {
  const fs::path source(HOPSIM_SOURCE_DIR);
  const auto lattice =
      parseLbmCase(CaseDocument::load((source / "validation/lbm/cylinder2d_schaefer_turek.yaml").string()));
  // The validation case's resolution (D = 20 cells) and lattice velocity (mean inflow 0.02), its precision and
  // force reference, in SI: channel 2.2 x 0.41 m, D = 0.1 m at (0.2, 0.2), U_mean 0.2 m/s, nu 1e-3 m^2/s (Re 20).
  const std::string si =
      "solver: lbm\nlattice: D2Q9\nprecision: double\ncollision: {model: trt}\n"
      "units: {length: 0.1, velocity: 0.2, viscosity: 1.0e-3, density: 1.0, resolution: 20, lattice_velocity: 0.02}\n"
      "domain: {size: [2.2, 0.41]}\n"
      "boundaries:\n"
      "  x-: {type: velocity_inlet, profile: parabolic, velocity: [0.3, 0]}\n"
      "  x+: {type: pressure_outlet, pressure: 0}\n"
      "  y-: {type: wall}\n  y+: {type: wall}\n"
      "obstacles:\n  - {name: cylinder, shape: circle, center: [0.2, 0.2], radius: 0.05, boundary: interpolated}\n"
      "run: {steps: 1}\n"
      "output:\n  forces: {every: 100, reference: {velocity: 0.2, length: 0.1, density: 1.0}}\n";
  const auto c = parse(si);
  CHECK(c.cells == lattice.cells);
  CHECK(c.periodic == lattice.periodic);
  CHECK(c.tau == Approx(lattice.tau).epsilon(1e-12));
  CHECK(c.viscosity == Approx(lattice.viscosity).epsilon(1e-12));
  for (int f = 0; f < 4; ++f) {
    INFO(lbm::faceName(f));
    CHECK(c.faces[f].type == lattice.faces[f].type);
    CHECK(c.faces[f].profile == lattice.faces[f].profile);
    CHECK(c.faces[f].density == Approx(lattice.faces[f].density).epsilon(1e-12));
    for (int a = 0; a < 3; ++a) CHECK(c.faces[f].velocity[a] == Approx(lattice.faces[f].velocity[a]).epsilon(1e-12));
  }
  REQUIRE(c.obstacles.size() == 1);
  CHECK(c.obstacles[0].shape == lattice.obstacles[0].shape);
  CHECK(c.obstacles[0].boundary == lattice.obstacles[0].boundary);
  CHECK(c.obstacles[0].radius == Approx(lattice.obstacles[0].radius).epsilon(1e-12));
  for (int a = 0; a < 2; ++a) CHECK(c.obstacles[0].center[a] == Approx(lattice.obstacles[0].center[a]).epsilon(1e-12));
  CHECK(c.output.forces.refVelocity == Approx(lattice.output.forces.refVelocity).epsilon(1e-12));
  CHECK(c.output.forces.refLength == Approx(lattice.output.forces.refLength).epsilon(1e-12));
  CHECK(c.output.forces.refDensity == Approx(lattice.output.forces.refDensity).epsilon(1e-12));
  CHECK(hopsim::io::latticeMach(c) == Approx(hopsim::io::latticeMach(lattice)).epsilon(1e-12));

  // The shipped example is the same geometry at the default-like Mach number 0.05.
  const auto example = parseLbmCase(CaseDocument::load((source / "inputs/lbm/cylinder2d_si.yaml").string()));
  CHECK(example.cells == lattice.cells);
  CHECK(example.obstacles[0].radius == Approx(10).epsilon(1e-12));
  CHECK(example.obstacles[0].center[0] == Approx(40).epsilon(1e-12));
  CHECK(example.obstacles[0].boundary == lbm::ObstacleBoundary::Quadratic);
  CHECK(example.tau == Approx(3 * 0.05 / std::sqrt(3.0) + 0.5).epsilon(1e-12));  // nu_lat = u_lat D / Re, Re = 20
}

TEST_CASE("every dimensional value of a case with units is read in SI", "[unit][units]") {
  const auto c = parse(kSI);
  const lbm::UnitSystem& u = c.units;
  REQUIRE(u.isPhysical());
  CHECK(c.units.scales().mach == 0.05);
  CHECK(c.steps == std::llround(1.0 / u.dt()));
  CHECK(c.faces[1].density == 1.0);
  // Defaults: Ma 0.05 when units has neither mach nor lattice_velocity.
  CHECK(parse(edited(kSI, ", mach: 0.05", "")).units.scales().mach == 0.05);
  // Reynolds instead of viscosity: nu = U L / Re.
  CHECK(parse(edited(kSI, "viscosity: 1.0e-3", "reynolds: 20")).viscosity == Approx(c.viscosity).epsilon(1e-12));
  // fluid.viscosity in m^2/s instead.
  CHECK(parse(edited(kSI, "viscosity: 1.0e-3, ", "") + "fluid: {viscosity: 1.0e-3}\n").tau ==
        Approx(c.tau).epsilon(1e-12));

  const double p = 0.5;  // Pa
  const auto more = parse(edited(edited(kSI, "pressure: 0", "pressure: 0.5"), "run: {time: 1.0}",
                                 "run: {steps: 10}\n"
                                 "body_force: [0.01, 0]\n"
                                 "initial: {density: 1.5, velocity: [0.1, 0]}\n"
                                 "output:\n"
                                 "  every_time: 0.05\n"
                                 "  observables: {every_time: 0.01}\n"
                                 "  forces: {every: 7, reference: {velocity: 0.2, length: 0.1, density: 1.2}}\n"));
  CHECK(more.faces[1].density == Approx(1 + p / (1.2 * std::pow(u.dx() / u.dt(), 2)) * 3).epsilon(1e-12));
  CHECK(more.bodyForce[0] == Approx(0.01 * u.dt() * u.dt() / u.dx()).epsilon(1e-12));
  CHECK(more.initial.density == Approx(1.5 / 1.2).epsilon(1e-14));
  CHECK(more.initial.velocity[0] == Approx(0.1 * u.dt() / u.dx()).epsilon(1e-12));
  CHECK(more.output.every == std::llround(0.05 / u.dt()));
  CHECK(more.output.observablesEvery == std::llround(0.01 / u.dt()));
  CHECK(more.output.forces.every == 7);
  CHECK(more.output.forces.refLength == Approx(20).epsilon(1e-12));
  CHECK(more.output.forces.refDensity == Approx(1).epsilon(1e-14));

  const auto box = parse(edited(kSI, "{name: cylinder, shape: circle, center: [0.2, 0.2], radius: 0.05}",
                                "{name: step, shape: box, min: [0.5, 0], max: [0.6, 0.1]}"));
  CHECK(box.obstacles[0].min[0] == Approx(100).epsilon(1e-12));
  CHECK(box.obstacles[0].max[1] == Approx(20).epsilon(1e-12));
}

TEST_CASE("units mixed with lattice values, or missing, are located errors", "[unit][units]") {
  expectError(edited(kSI, "{size: [2.2, 0.41]}", "{cells: [440, 82]}"), 4, "[440", "domain.cells is in lattice units");
  expectError(edited(kSI, "[2.2, 0.41]", "[2.213, 0.41]"), 4, "2.213",
              "sizes that fit: 2.21 m (442 cells) or 2.215 m (443 cells)");
  expectError(edited(kSI, "[2.2, 0.41]", "[2.2, 0.413]"), 4, "0.413", "0.41 m (82 cells) or 0.415 m (83 cells)");
  expectError(edited(kSI, "pressure: 0", "density: 1.0"), 7, "1.0", "give pressure in Pa");
  expectError(edited(kSI, "pressure: 0", "pressure: -1e9"), 7, "-1e9", "lattice density would be 0 or less");
  expectError(kSI + "fluid: {tau: 0.6}\n", 13, "0.6", "fluid.tau is in lattice units");
  expectError(kSI + "fluid: {viscosity: 1.0e-3}\n", 13, "1.0e-3", "the viscosity is given twice");
  expectError(edited(kSI, "viscosity: 1.0e-3, ", ""), 3, "{", "the case has units but no viscosity");
  expectError(edited(kSI, "viscosity: 1.0e-3", "viscosity: 1.0e-3, reynolds: 20"), 3, "20,",
              "not both (Re = U L / nu");
  expectError(edited(kSI, "mach: 0.05", "mach: 0.05, lattice_velocity: 0.03"), 3, "0.03",
              "give units.mach or units.lattice_velocity, not both");
  expectError(edited(kSI, "mach: 0.05", "mach: 0.4"), 3, "0.4", "neither accurate nor stable");
  expectError(edited(kSI, "density: 1.2, ", ""), 3, "{", "density");
  expectError(edited(kSI, "run: {time: 1.0}", "run: {time: 1.0e-5}"), 12, "1.0e-5", "less than half a time step");
  expectError(edited(kSI, "run: {time: 1.0}", "run: {time: 1.0, steps: 3}"), 12, "1.0",
              "give run.steps (steps) or run.time (seconds), not both");
  expectError(kSI + "output: {every: 10, every_time: 0.1}\n", 13, "0.1", "not both");

  // The lattice-unit case: SI keys need a units section.
  const std::string lattice =
      "solver: lbm\nlattice: D2Q9\ndomain: {cells: [64, 32], periodic: [x]}\nfluid: {viscosity: 0.1}\n"
      "boundaries:\n  y-: {type: wall}\n  y+: {type: moving_wall, velocity: [0.05, 0]}\nrun: {steps: 100}\n";
  expectError(edited(lattice, "cells: [64, 32]", "size: [0.64, 0.32]"), 3, "[0.64", "needs a units section");
  expectError(edited(lattice, "run: {steps: 100}", "run: {time: 1.0}"), 8, "1.0", "needs a units section");
  expectError(lattice + "output: {every_time: 0.5}\n", 9, "0.5", "needs a units section");
  expectError(lattice + "output: {fields: [velocity, pressure]}\n", 9, "pressure", "written by cases with a units");
  expectError(edited(lattice, "{type: wall}", "{type: pressure_outlet, pressure: 10}"), 6, "10",
              "needs a units section");
}

TEST_CASE("a --set of steps replaces the time the file gives, and the other way round", "[unit][units]") {
  CHECK(parseLbmCase(CaseDocument::fromString(kSI, "case.yaml", {"run.steps=20"})).steps == 20);
  CHECK(parseLbmCase(CaseDocument::fromString(kSI + "output: {every: 10}\n", "case.yaml", {"output.every_time=0.1"}))
            .output.every == parseLbmCase(CaseDocument::fromString(kSI + "output: {every_time: 0.1}\n")).output.every);
  CHECK_THROWS_AS(parseLbmCase(CaseDocument::fromString(kSI, "case.yaml", {"run.steps=20", "run.time=2"})),
                  CaseError);
}

TEST_CASE("tau near 1/2 and Mach above 0.1 in a case with units are warned about with the fix", "[unit][units]") {
  // nu 1e-5: tau - 1/2 = 3 nu dt / dx^2 is tiny.
  expectWarning(edited(kSI, "viscosity: 1.0e-3", "viscosity: 1.0e-5"), 3, "1.0e-5",
                "raise units.resolution from 20 to");
  // The inflow's peak at Ma 0.11 (1.5 U at units.mach 0.075).
  expectWarning(edited(kSI, "mach: 0.05", "mach: 0.075"), 6, "[0.3", "lower units.mach from 0.075 to 0.066");
  // A flow driven by a body force imposes no speed: U's own Mach number is checked.
  const std::string driven =
      "solver: lbm\nlattice: D2Q9\n"
      "units: {length: 0.1, velocity: 0.2, reynolds: 10, density: 1000, resolution: 16, mach: 0.15}\n"
      "domain: {size: [0.1, 0.1], periodic: [x]}\nbody_force: [0.01, 0]\n"
      "boundaries:\n  y-: {type: wall}\n  y+: {type: wall}\nrun: {steps: 10}\n";
  expectWarning(driven, 3, "0.15", "units.mach = 0.15 (the lattice Mach number of units.velocity) is above 0.1");
}

TEST_CASE("a run of a case with units writes SI fields, observables and forces", "[unit][units][writers]") {
  ScratchDir dir("units_run");
  // A sheared channel with a box on the floor: the same lattice case twice, once in SI, once in lattice units.
  // dx = 1/16 m, u_lat 0.05 for U = 1 m/s: dt = 1/320 s, velocity scale dx/dt = 20 m/s, nu_lat = 0.08.
  const std::string common = "solver: lbm\nlattice: D2Q9\nprecision: double\ndevice: {backend: cpu}\n";
  const std::string si =
      common +
      "units: {length: 1.0, velocity: 1.0, viscosity: 0.1, density: 1000, resolution: 16, lattice_velocity: 0.05}\n"
      "domain: {size: [1.0, 0.5], periodic: [x]}\n"
      "boundaries:\n  y-: {type: wall}\n  y+: {type: moving_wall, velocity: [1.0, 0]}\n"
      "obstacles: [{name: step, shape: box, min: [0.25, 0], max: [0.5, 0.125]}]\n"
      "run: {time: 0.15625}\n"
      "output: {every: 50, fields: [density, velocity, pressure], formats: [hdf5], observables: {every: 10, enstrophy: true},\n"
      "         forces: {every: 10, reference: {velocity: 1.0, length: 0.25, density: 1000}}}\n";
  const std::string lattice =
      common +
      "domain: {cells: [16, 8], periodic: [x]}\nfluid: {viscosity: 0.08}\n"
      "boundaries:\n  y-: {type: wall}\n  y+: {type: moving_wall, velocity: [0.05, 0]}\n"
      "obstacles: [{name: step, shape: box, min: [4, 0], max: [8, 2]}]\n"
      "run: {steps: 50}\n"
      "output: {every: 50, fields: [density, velocity], formats: [hdf5], observables: {every: 10, enstrophy: true},\n"
      "         forces: {every: 10, reference: {velocity: 0.05, length: 4}}}\n";
  hopsim::RunOptions options;
  options.quiet = true;
  options.outputDir = (dir.path() / "si").string();
  const auto siDoc = CaseDocument::fromString(si, "si.yaml");
  REQUIRE(parseLbmCase(siDoc).steps == 50);
  REQUIRE(hopsim::lbm::runCase(siDoc, options) == 0);
  options.outputDir = (dir.path() / "lattice").string();
  REQUIRE(hopsim::lbm::runCase(CaseDocument::fromString(lattice, "lattice.yaml"), options) == 0);

  const double dx = 1.0 / 16, dt = 0.05 * dx, c = dx / dt;
  const fs::path siFile = dir.path() / "si" / "fields_000000050.h5";
  const fs::path latticeFile = dir.path() / "lattice" / "fields_000000050.h5";
  const auto uSI = readDataset(siFile, "velocity");
  const auto uLat = readDataset(latticeFile, "velocity");
  REQUIRE(uSI.size() == uLat.size());
  double largest = 0;
  for (std::size_t i = 0; i < uSI.size(); ++i) {
    CHECK(uSI[i] == Approx(uLat[i] * c).margin(1e-12));
    largest = std::max(largest, std::abs(uSI[i]));
  }
  CHECK(largest > 0.1);  // the lid has moved the fluid
  const auto rhoSI = readDataset(siFile, "density");
  const auto rhoLat = readDataset(latticeFile, "density");
  const auto pSI = readDataset(siFile, "pressure");
  for (std::size_t i = 0; i < rhoSI.size(); ++i) {
    CHECK(rhoSI[i] == Approx(rhoLat[i] * 1000).epsilon(1e-10));
    CHECK(pSI[i] == Approx((rhoLat[i] - 1) / 3 * 1000 * c * c).margin(1e-8));
  }
  CHECK(unitsAttribute(siFile, "velocity") == "m/s");
  CHECK(unitsAttribute(siFile, "pressure") == "Pa");
  CHECK(unitsAttribute(siFile, "density") == "kg/m^3");
  CHECK(unitsAttribute(latticeFile, "velocity").empty());  // lattice-unit files as before

  const std::string xmf = fileText(dir.path() / "si" / "fields.xmf");
  CHECK(xmf.find("<Information Name=\"units\" Value=\"m/s\"/>") != std::string::npos);
  CHECK(xmf.find("<Information Name=\"units\" Value=\"m\"/>") != std::string::npos);
  CHECK(xmf.find("Format=\"XML\">0.0625 0.0625 0.0625</DataItem>") != std::string::npos);
  CHECK(xmf.find("<Time Value=\"0.15625\"/>") != std::string::npos);
  CHECK(fileText(dir.path() / "lattice" / "fields.xmf").find("Information") == std::string::npos);

  // observables.csv: time in s beside the step, the rest in SI; forces.csv in N/m with the same coefficients.
  std::istringstream obs(fileText(dir.path() / "si" / "observables.csv"));
  std::string header, row;
  std::getline(obs, header);
  CHECK(header == "step,time,mass,kinetic_energy,max_speed,enstrophy,dissipation_rate");
  std::getline(obs, row);
  std::getline(obs, row);
  CHECK(row.rfind("10,0.03125,", 0) == 0);
  // Enstrophy in 1/s^2 and the dissipation rate in W/m^3 (per volume, so 2-D alike): the lattice run's values
  // times 1/dt^2 and rho_ref (dx/dt)^2 / dt.
  const auto cells = [](const std::string& line) {
    std::vector<double> v;
    std::stringstream in(line);
    for (std::string cell; std::getline(in, cell, ',');) v.push_back(std::stod(cell));
    return v;
  };
  std::istringstream latObs(fileText(dir.path() / "lattice" / "observables.csv"));
  std::string latRow;
  for (int k = 0; k < 3; ++k) std::getline(latObs, latRow);
  const auto siCells = cells(row), latCells = cells(latRow);
  REQUIRE(siCells.size() == 7);
  REQUIRE(latCells.size() == 6);
  CHECK(latCells[4] > 0);
  CHECK(siCells[5] == Approx(latCells[4] / (dt * dt)).epsilon(1e-12));
  CHECK(siCells[6] == Approx(latCells[5] * 1000 * c * c / dt).epsilon(1e-9));
  std::istringstream siForces(fileText(dir.path() / "si" / "forces.csv"));
  std::istringstream latForces(fileText(dir.path() / "lattice" / "forces.csv"));
  std::string a, b;
  std::getline(siForces, a);
  std::getline(latForces, b);
  CHECK(a == b);
  const double forceScale = 1000 * dx * dx * dx / (dt * dt);
  while (std::getline(siForces, a) && std::getline(latForces, b)) {
    std::vector<std::string> x, y;
    std::stringstream sa(a), sb(b);
    for (std::string cell; std::getline(sa, cell, ',');) x.push_back(cell);
    for (std::string cell; std::getline(sb, cell, ',');) y.push_back(cell);
    REQUIRE(x.size() == 7);
    REQUIRE(y.size() == 7);
    CHECK(std::stod(x[2]) == Approx(std::stod(y[2]) * forceScale).epsilon(1e-8).margin(1e-12));
    CHECK(std::stod(x[5]) == Approx(std::stod(y[5])).epsilon(1e-8).margin(1e-12));  // cd
  }

  const auto run = nlohmann::json::parse(fileText(dir.path() / "si" / "run.json"));
  CHECK(run["units"]["system"] == "SI");
  CHECK(run["units"]["dx_m"].get<double>() == Approx(dx));
  CHECK(run["units"]["dt_s"].get<double>() == Approx(dt));
  CHECK(run["units"]["tau"].get<double>() == Approx(3 * 0.08 + 0.5));
  CHECK(nlohmann::json::parse(fileText(dir.path() / "lattice" / "run.json"))["units"]["system"] == "lattice");
}
