// LbmCaseParser: one test per kind of case error, each checking the reported line, column and message.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "CatchCompat.h"
#include "LbmCaseText.h"
#include "io/CaseReader.h"
#include "io/LbmCaseParser.h"

using hopsim::io::CaseDocument;
using hopsim::io::CaseError;
using hopsim::io::parseLbmCase;
namespace lbm = hopsim::lbm;
using hopsim::testing::edited;
using hopsim::testing::expectError;
using hopsim::testing::expectWarning;

namespace {

// A valid 2D channel; tests edit one line and expect the error at a known line and column.
const std::string k2D =
    "solver: lbm\n"                                      // 1
    "lattice: D2Q9\n"                                    // 2
    "domain: {cells: [64, 32], periodic: [x]}\n"         // 3
    "fluid: {viscosity: 0.1}\n"                          // 4
    "boundaries:\n"                                      // 5
    "  y-: {type: wall}\n"                               // 6
    "  y+: {type: moving_wall, velocity: [0.05, 0]}\n"   // 7
    "run: {steps: 100}\n";                               // 8

// A valid 3D box, walls everywhere but a lid on z+.
const std::string k3D =
    "solver: lbm\n"                                          // 1
    "lattice: D3Q19\n"                                       // 2
    "domain: {cells: [16, 16, 16]}\n"                        // 3
    "fluid: {tau: 0.8}\n"                                    // 4
    "boundaries:\n"                                          // 5
    "  x-: {type: wall}\n"                                   // 6
    "  x+: {type: wall}\n"                                   // 7
    "  y-: {type: wall}\n"                                   // 8
    "  y+: {type: wall}\n"                                   // 9
    "  z-: {type: wall}\n"                                   // 10
    "  z+: {type: moving_wall, velocity: [0.05, 0, 0]}\n"    // 11
    "run: {steps: 10}\n";                                    // 12

lbm::LbmCase parse(const std::string& text, std::vector<std::string>* warnings = nullptr) {
  return hopsim::testing::parseCaseText(text, warnings);
}

std::filesystem::path tempFile(const std::string& stem) {
  std::random_device rd;
  return std::filesystem::temp_directory_path() /
         ("hopsim_test_" + stem + "_" + std::to_string(rd()) + "_" + std::to_string(rd()) + ".yaml");
}

std::filesystem::path writeTemp(const std::string& stem, const std::string& bytes) {
  const auto path = tempFile(stem);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

}  // namespace

TEST_CASE("a valid 2D case fills the typed case", "[unit]") {
  std::vector<std::string> warnings;
  const auto c = parse(k2D, &warnings);
  CHECK(warnings.empty());
  CHECK(c.sourceFile == "case.yaml");
  CHECK(c.lattice == lbm::LatticeKind::D2Q9);
  CHECK(c.dimensions == 2);
  CHECK(c.precision == lbm::Precision::Single);
  CHECK(c.collision == lbm::CollisionModel::BGK);
  CHECK(c.cells == std::array<long long, 3>{64, 32, 1});
  CHECK(c.periodic == std::array<bool, 3>{true, false, true});
  CHECK(c.viscosity == Approx(0.1));
  CHECK(c.tau == Approx(0.8));
  CHECK(c.faces[0].type == lbm::BoundaryType::Periodic);
  CHECK(c.faces[1].type == lbm::BoundaryType::Periodic);
  CHECK(c.faces[2].type == lbm::BoundaryType::Wall);
  CHECK(c.faces[3].type == lbm::BoundaryType::MovingWall);
  CHECK(c.faces[3].velocity[0] == Approx(0.05));
  CHECK(c.faces[4].type == lbm::BoundaryType::Periodic);
  CHECK(c.faces[5].type == lbm::BoundaryType::Periodic);
  CHECK(c.steps == 100);
  CHECK(c.output.dir == "out/case");
  CHECK(c.obstacles.empty());
  CHECK(hopsim::io::latticeMach(c) == Approx(0.05 * std::sqrt(3.0)));
}

TEST_CASE("a full 3D case with every section parses", "[unit]") {
  const std::string text =
      "solver: lbm\n"
      "lattice: D3Q27\n"
      "precision: double\n"
      "collision: {model: trt, magic: 0.25}\n"
      "domain: {cells: [40, 20, 10], periodic: [z]}\n"
      "fluid: {tau: 0.6}\n"
      "body_force: [1.0e-6, 0, 0]\n"
      "boundaries:\n"
      "  x-: {type: velocity_inlet, profile: parabolic, velocity: [0.04, 0, 0]}\n"
      "  x+: {type: pressure_outlet, density: 1.01}\n"
      "  y-: {type: wall}\n"
      "  y+: {type: moving_wall, velocity: [0.02, 0, 0.01]}\n"
      "obstacles:\n"
      "  - {name: ball, shape: sphere, center: [10, 10, 5], radius: 3}\n"
      "  - {shape: cylinder, center: [20, 10, -50], radius: 4, axis: z}\n"
      "  - {shape: box, min: [30, 0, 0], max: [32, 5, 10]}\n"
      "initial: {density: 1.0, velocity: [0.01, 0, 0]}\n"
      "run: {steps: 5}\n"
      "output:\n"
      "  dir: out/x\n"
      "  every: 0\n"
      "  fields: [velocity, flags]\n"
      "  formats: [hdf5]\n"
      "  observables: {every: 0}\n"
      "  forces: {every: 2, reference: {velocity: 0.04, area: 16}}\n"
      "device: {backend: cpu}\n";
  const auto c = parse(text);
  CHECK(c.lattice == lbm::LatticeKind::D3Q27);
  CHECK(c.dimensions == 3);
  CHECK(c.precision == lbm::Precision::Double);
  CHECK(c.collision == lbm::CollisionModel::TRT);
  CHECK(c.trtMagic == Approx(0.25));
  CHECK(c.cells == std::array<long long, 3>{40, 20, 10});
  CHECK(c.periodic == std::array<bool, 3>{false, false, true});
  CHECK(c.viscosity == Approx(0.1 / 3));
  CHECK(c.bodyForce[0] == Approx(1e-6));
  CHECK(c.faces[0].type == lbm::BoundaryType::VelocityInlet);
  CHECK(c.faces[0].profile == lbm::InletProfile::Parabolic);
  CHECK(c.faces[1].type == lbm::BoundaryType::PressureOutlet);
  CHECK(c.faces[1].density == Approx(1.01));
  CHECK(c.faces[3].velocity[2] == Approx(0.01));
  CHECK(c.faces[4].type == lbm::BoundaryType::Periodic);
  REQUIRE(c.obstacles.size() == 3);
  CHECK(c.obstacles[0].name == "ball");
  CHECK(c.obstacles[0].shape == lbm::ShapeKind::Sphere);
  CHECK(c.obstacles[1].name == "obstacle1");
  CHECK(c.obstacles[1].shape == lbm::ShapeKind::Cylinder);
  CHECK(c.obstacles[1].axis == 2);
  CHECK(c.obstacles[2].shape == lbm::ShapeKind::Box);
  CHECK(c.obstacles[2].max[1] == Approx(5));
  CHECK(c.initial.velocity[0] == Approx(0.01));
  CHECK(!c.initial.taylorGreenU0);
  CHECK(c.output.dir == "out/x");
  CHECK(c.output.every == 0);
  CHECK(c.output.fields == std::vector<lbm::FieldName>{lbm::FieldName::Velocity, lbm::FieldName::Flags});
  CHECK(c.output.observablesEvery == 0);
  CHECK(c.output.forces.every == 2);
  CHECK(c.output.forces.refLength == Approx(16));
  CHECK(c.output.forces.refDensity == Approx(1.0));
  CHECK(c.device.backend == hopsim::Backend::Cpu);
}

TEST_CASE("unknown keys are errors with a suggestion", "[unit]") {
  SECTION("top level") {
    expectError(edited(k2D, "boundaries:", "boundary:"), 5, 1, "unknown key 'boundary' in the top level (did you mean 'boundaries'?)");
  }
  SECTION("nested") {
    expectError(edited(k2D, "{viscosity: 0.1}", "{viscocity: 0.1}"), 4, 9, "did you mean 'viscosity'?");
  }
  SECTION("inside a boundary entry, against the keys of its type") {
    expectError(edited(k2D, "velocity: [0.05", "velocty: [0.05"), 7, 27, "did you mean 'velocity'?");
  }
}

TEST_CASE("duplicate keys are errors at the second occurrence", "[unit]") {
  SECTION("top level") { expectError(k2D + "run: {steps: 5}\n", 9, 1, "duplicate key 'run'"); }
  SECTION("nested") {
    expectError(edited(k2D, "{viscosity: 0.1}", "{viscosity: 0.1, viscosity: 0.2}"), 4, 25, "duplicate key 'viscosity'");
  }
}

TEST_CASE("wrong value types are errors", "[unit]") {
  SECTION("text where a number is expected") {
    expectError(edited(k2D, "{viscosity: 0.1}", "{viscosity: abc}"), 4, 20, "must be a number, found 'abc'");
  }
  SECTION("a quoted number is text") {
    expectError(edited(k2D, "{steps: 100}", "{steps: \"100\"}"), 8, 14, "quoted string");
  }
  SECTION("a list where a map is expected") {
    expectError(edited(k2D, "fluid: {viscosity: 0.1}", "fluid: [0.1]"), 4, 8, "'fluid' must be a map of keys, found a list");
  }
  SECTION("a map where a list is expected") {
    expectError(edited(k2D, "[64, 32]", "{x: 64}"), 3, 17, "'domain.cells' must be a list, found a map");
  }
  SECTION("a fraction where a whole number is expected") {
    expectError(edited(k2D, "[64, 32]", "[64, 32.5]"), 3, 22, "must be a whole number, found '32.5'");
  }
}

TEST_CASE("missing required keys are errors", "[unit]") {
  SECTION("lattice") { expectError(edited(k2D, "lattice: D2Q9\n", ""), 1, 1, "missing required key 'lattice'"); }
  SECTION("solver") { expectError(edited(k2D, "solver: lbm\n", ""), 1, 1, "missing required key 'solver'"); }
  SECTION("fluid") { expectError(edited(k2D, "fluid: {viscosity: 0.1}\n", ""), 1, 1, "missing required key 'fluid'"); }
  SECTION("run") { expectError(edited(k2D, "run: {steps: 100}\n", ""), 1, 1, "missing required key 'run'"); }
  SECTION("domain.cells") {
    expectError(edited(k2D, "cells: [64, 32], ", ""), 3, 9, "missing required key 'cells' in 'domain'");
  }
  SECTION("run.steps") { expectError(edited(k2D, "{steps: 100}", "{}"), 8, 6, "missing required key 'steps' in 'run'"); }
  SECTION("a key written without a value") {
    expectError(edited(k2D, "fluid: {viscosity: 0.1}", "fluid:"), 4, 1, "'fluid' has no value");
  }
  SECTION("neither viscosity nor tau") { expectError(edited(k2D, "{viscosity: 0.1}", "{}"), 4, 8, "needs viscosity or tau"); }
  SECTION("both viscosity and tau") {
    expectError(edited(k2D, "{viscosity: 0.1}", "{viscosity: 0.1, tau: 0.8}"), 4, 30, "not both");
  }
  SECTION("boundary type") { expectError(edited(k2D, "{type: wall}", "{}"), 6, 7, "missing required key 'type'"); }
}

TEST_CASE("solver must be lbm", "[unit]") {
  SECTION("md") { expectError(edited(k2D, "solver: lbm", "solver: md"), 1, 9, "allowed here: lbm"); }
  SECTION("typo") { expectError(edited(k2D, "solver: lbm", "solver: lmb"), 1, 9, "did you mean 'lbm'?"); }
  SECTION("an md case is reported as such, not by its unknown keys") {
    expectError("system: {lattice: {type: fcc}}\nsolver: md\n", 2, 9, "molecular dynamics cases are read by the md solver");
  }
}

TEST_CASE("lattice, precision and collision choices are checked", "[unit]") {
  SECTION("unknown lattice") { expectError(edited(k2D, "D2Q9", "D2Q7"), 2, 10, "allowed: D2Q9, D3Q19, D3Q27"); }
  SECTION("lower case lattice") { expectError(edited(k2D, "D2Q9", "d2q9"), 2, 10, "write 'D2Q9'"); }
  SECTION("unknown precision") { expectError(k2D + "precision: quarter\n", 9, 12, "allowed: single, double, half"); }
  SECTION("magic without trt") {
    expectError(k2D + "collision: {model: bgk, magic: 0.1875}\n", 9, 32, "needs collision.model: trt");
  }
  SECTION("magic must be positive") {
    expectError(k2D + "collision: {model: trt, magic: -1}\n", 9, 32, "must be greater than zero");
  }
}

TEST_CASE("out-of-range fluid values", "[unit]") {
  SECTION("tau = 0.5") {
    expectError(edited(k2D, "{viscosity: 0.1}", "{tau: 0.5}"), 4, 14, "fluid.tau = 0.5 must be greater than 0.5");
  }
  SECTION("tau below 0.5") { expectError(edited(k2D, "{viscosity: 0.1}", "{tau: 0.4}"), 4, 14, "must be greater than 0.5"); }
  SECTION("zero viscosity") {
    expectError(edited(k2D, "{viscosity: 0.1}", "{viscosity: 0}"), 4, 20, "fluid.viscosity = 0 must be greater than 0");
  }
  SECTION("negative viscosity") { expectError(edited(k2D, "{viscosity: 0.1}", "{viscosity: -0.1}"), 4, 20, "must be greater than 0"); }
  SECTION("tau close to 0.5 is a warning") {
    expectWarning(edited(k2D, "{viscosity: 0.1}", "{tau: 0.505}"), 4, 14, "below 0.51");
  }
}

TEST_CASE("domain sizes are checked", "[unit]") {
  SECTION("zero cells") { expectError(edited(k2D, "[64, 32]", "[64, 0]"), 3, 22, "'domain.cells[1]' = 0 must be at least 1"); }
  SECTION("negative cells") { expectError(edited(k2D, "[64, 32]", "[-4, 32]"), 3, 18, "must be at least 1"); }
  SECTION("3 cell counts in a 2D case") {
    expectError(edited(k2D, "[64, 32]", "[64, 32, 8]"), 3, 17, "has 3 numbers but D2Q9 is a 2D lattice");
  }
  SECTION("2 cell counts in a 3D case") {
    expectError(edited(k3D, "[16, 16, 16]", "[16, 16]"), 3, 17, "has 2 numbers but D3Q19 is a 3D lattice");
  }
  SECTION("z periodic in a 2D case") {
    expectError(edited(k2D, "periodic: [x]", "periodic: [x, z]"), 3, 41, "2D lattice");
  }
  SECTION("an axis listed twice") { expectError(edited(k2D, "periodic: [x]", "periodic: [x, x]"), 3, 41, "lists x twice"); }
  SECTION("a cell count whose product overflows 64 bits") {
    // 2^24 x 2^16 x 2^24 = 2^64: each axis is allowed, the product wraps to 0 unless checked before multiplying.
    expectError(edited(k3D, "[16, 16, 16]", "[16777216, 65536, 16777216]"), 3, 17,
                "the domain [16777216, 65536, 16777216] has more than 1099511627776 cells");
  }
  SECTION("a product above the limit by two axes") {
    expectError(edited(k2D, "[64, 32]", "[16777216, 16777216]"), 3, 17,
                "the domain [16777216, 16777216] has more than 1099511627776 cells");
  }
  SECTION("an axis above the per-axis limit") {
    expectError(edited(k2D, "[64, 32]", "[64, 16777217]"), 3, 22, "'domain.cells[1]' = 16777217 is too large");
  }
}

TEST_CASE("run.steps must be at least 1", "[unit]") {
  SECTION("negative") { expectError(edited(k2D, "{steps: 100}", "{steps: -5}"), 8, 14, "run.steps = -5 must be at least 1"); }
  SECTION("zero") { expectError(edited(k2D, "{steps: 100}", "{steps: 0}"), 8, 14, "must be at least 1"); }
}

TEST_CASE("boundaries must match the periodic axes", "[unit]") {
  SECTION("a boundary on a periodic face") {
    expectError(edited(k2D, "boundaries:\n", "boundaries:\n  x-: {type: wall}\n"), 6, 7, "x is periodic");
  }
  SECTION("a non-periodic face without a boundary") {
    expectError(edited(k2D, "  y+: {type: moving_wall, velocity: [0.05, 0]}\n", ""), 6, 3,
                "face y+ is not periodic and has no boundary");
  }
  SECTION("no boundaries section at all") {
    expectError(edited(k2D, "periodic: [x]", "periodic: []"), 6, 3, "face x- is not periodic");
  }
  SECTION("a z face in a 2D case") {
    expectError(edited(k2D, "boundaries:\n", "boundaries:\n  z-: {type: wall}\n"), 6, 7, "face z- exists only in 3D cases");
  }
  SECTION("periodic given as a boundary type") {
    expectError(edited(k2D, "y-: {type: wall}", "y-: {type: periodic}"), 6, 14, "domain.periodic");
  }
  SECTION("an unknown boundary type") {
    expectError(edited(k2D, "y-: {type: wall}", "y-: {type: wal}"), 6, 14, "did you mean 'wall'?");
  }
  SECTION("an empty boundary entry") { expectError(edited(k2D, "  y-: {type: wall}", "  y-:"), 6, 3, "has no value"); }
}

TEST_CASE("boundaries without any periodic axis need every face", "[unit]") {
  const std::string text = "solver: lbm\nlattice: D2Q9\ndomain: {cells: [8, 8]}\nfluid: {tau: 1}\nrun: {steps: 1}\n";
  expectError(text, 1, 1, "face x- is not periodic and has no boundary");
}

TEST_CASE("boundary velocities are checked", "[unit]") {
  SECTION("a moving wall may not move through itself") {
    expectError(edited(k2D, "[0.05, 0]", "[0.05, 0.01]"), 7, 44, "component of the velocity of face y+ must be 0");
  }
  SECTION("a 2D velocity in a 3D case") {
    expectError(edited(k3D, "[0.05, 0, 0]", "[0.05, 0]"), 11, 37, "has 2 numbers but D3Q19 is a 3D lattice");
  }
  SECTION("a 3D velocity in a 2D case") {
    expectError(edited(k2D, "[0.05, 0]", "[0.05, 0, 0]"), 7, 37, "has 3 numbers but D2Q9 is a 2D lattice");
  }
  SECTION("a 2D body force in a 3D case") {
    expectError(k3D + "body_force: [1.0e-6, 0]\n", 13, 13, "'body_force' has 2 numbers but D3Q19");
  }
  SECTION("pressure outlet density must be positive") {
    expectError(edited(k2D, "y-: {type: wall}", "y-: {type: pressure_outlet, density: 0}"), 6, 40, "greater than zero");
  }
  SECTION("an inlet pointing out of the domain is a warning") {
    expectWarning(edited(k2D, "y-: {type: wall}", "y-: {type: velocity_inlet, velocity: [0, -0.01]}"), 6, 40,
                  "does not point into the domain");
  }
}

TEST_CASE("an obstacle that covers every cell is an error at the obstacle", "[unit]") {
  SECTION("a box as large as the domain") {
    expectError(k2D + "obstacles:\n  - {shape: box, min: [0, 0], max: [64, 32]}\n", 10, 5,
                "obstacle 'obstacle0' covers every cell of the domain 64 x 32: no fluid is left to simulate");
  }
  SECTION("a box that reaches every cell centre") {
    expectError(k3D + "obstacles:\n  - {name: block, shape: box, min: [0.4, 0.5, 0], max: [15.5, 16, 15.6]}\n", 14,
                5, "obstacle 'block' covers every cell of the domain 16 x 16 x 16");
  }
  SECTION("a sphere around a tiny domain") {
    expectError(edited(k3D, "[16, 16, 16]", "[2, 2, 2]") + "obstacles:\n  - {shape: sphere, center: [1, 1, 1], radius: 1}\n",
                14, 5, "covers every cell of the domain 2 x 2 x 2");
  }
  SECTION("a box that leaves the top row of cells free parses") {
    const auto c = parse(k2D + "obstacles:\n  - {shape: box, min: [0, 0], max: [64, 31.4]}\n");
    CHECK(c.obstacles.size() == 1);
  }
}

TEST_CASE("obstacles must fit the domain and its dimension", "[unit]") {
  SECTION("a circle crossing x = n") {
    expectError(k2D + "obstacles:\n  - {shape: circle, center: [60, 16], radius: 8}\n", 10, 30,
                "spans x = 52 .. 68, outside the domain x = 0 .. 64");
  }
  SECTION("a circle crossing y = 0") {
    expectError(k2D + "obstacles:\n  - {shape: circle, center: [30, 4], radius: 8}\n", 10, 34, "spans y = -4 .. 12");
  }
  SECTION("a box with min not below max") {
    expectError(k2D + "obstacles:\n  - {shape: box, min: [10, 10], max: [5, 20]}\n", 10, 39, "must be greater than min");
  }
  SECTION("a box outside the domain") {
    expectError(k2D + "obstacles:\n  - {shape: box, min: [10, 10], max: [20, 40]}\n", 10, 43, "outside the domain");
  }
  SECTION("a sphere in a 2D case") {
    expectError(k2D + "obstacles:\n  - {shape: sphere, center: [30, 16], radius: 4}\n", 10, 13, "shape 'sphere' is 3D");
  }
  SECTION("a circle in a 3D case") {
    expectError(k3D + "obstacles:\n  - {shape: circle, center: [8, 8, 8], radius: 4}\n", 14, 13, "shape 'circle' is 2D");
  }
  SECTION("a 2D center in a 3D case") {
    expectError(k3D + "obstacles:\n  - {shape: sphere, center: [8, 8], radius: 4}\n", 14, 29, "has 2 numbers but D3Q19");
  }
  SECTION("a cylinder may run past the domain along its axis, not across it") {
    CHECK(parse(k3D + "obstacles:\n  - {shape: cylinder, center: [8, 100, 8], radius: 4, axis: y}\n").obstacles[0].axis == 1);
    expectError(k3D + "obstacles:\n  - {shape: cylinder, center: [8, 100, 8], radius: 4, axis: z}\n", 14, 35,
                "spans y = 96 .. 104");
  }
  SECTION("radius must be positive") {
    expectError(k2D + "obstacles:\n  - {shape: circle, center: [30, 16], radius: 0}\n", 10, 47, "greater than zero");
  }
  SECTION("a key of another shape") {
    expectError(k2D + "obstacles:\n  - {shape: box, center: [30, 16], radius: 4}\n", 10, 18, "unknown key 'center'");
  }
  SECTION("duplicate names") {
    expectError(k2D + "obstacles:\n  - {name: a, shape: circle, center: [20, 16], radius: 2}\n"
                      "  - {name: a, shape: circle, center: [40, 16], radius: 2}\n",
                11, 12, "obstacle name 'a' is used by obstacles[0] and obstacles[1]");
  }
  SECTION("a name that clashes with a default name") {
    expectError(k2D + "obstacles:\n  - {shape: circle, center: [20, 16], radius: 2}\n"
                      "  - {name: obstacle0, shape: circle, center: [40, 16], radius: 2}\n",
                11, 12, "obstacle name 'obstacle0' is used by");
  }
  SECTION("more than 253 obstacles") {
    std::string text = k2D + "obstacles:\n";
    for (int i = 0; i < 254; ++i) text += "  - {shape: box, min: [0, 0], max: [1, 1]}\n";
    expectError(text, 10, 3, "at most 253");
    std::string ok = k2D + "obstacles:\n";
    for (int i = 0; i < 253; ++i) ok += "  - {shape: box, min: [0, 0], max: [1, 1]}\n";
    CHECK(parse(ok).obstacles.size() == 253);
  }
}

TEST_CASE("initial conditions are checked", "[unit]") {
  SECTION("taylor_green needs periodic x and y") {
    expectError(k2D + "initial: {taylor_green: {u0: 0.01}}\n", 9, 25, "y is not");
  }
  SECTION("taylor_green replaces velocity") {
    expectError(k2D + "initial: {velocity: [0, 0], taylor_green: {u0: 0.01}}\n", 9, 21, "cannot be combined");
  }
  SECTION("initial velocity of the wrong length") {
    expectError(k2D + "initial: {velocity: [0, 0, 0]}\n", 9, 21, "has 3 numbers but D2Q9");
  }
  SECTION("taylor_green parses") {
    const auto c = parse(edited(edited(k2D, "periodic: [x]", "periodic: [y, x]"),
                                "boundaries:\n  y-: {type: wall}\n  y+: {type: moving_wall, velocity: [0.05, 0]}\n",
                                "initial: {taylor_green: {u0: 0.03}}\n"));
    REQUIRE(c.initial.taylorGreenU0);
    CHECK(*c.initial.taylorGreenU0 == Approx(0.03));
    CHECK(c.initial.taylorGreenForm == lbm::TaylorGreenForm::TwoD);
  }
}

TEST_CASE("the Taylor-Green form: 3d by default on 3-D lattices, a cubic box", "[unit]") {
  const std::string box = "solver: lbm\n"                                        // 1
                          "lattice: D3Q19\n"                                     // 2
                          "domain: {cells: [16, 16, 16], periodic: [x, y, z]}\n"  // 3
                          "fluid: {tau: 0.8}\n"                                  // 4
                          "run: {steps: 10}\n"                                   // 5
                          "initial: {taylor_green: {u0: 0.02}}\n";               // 6
  SECTION("3d is the default on a 3-D lattice") {
    CHECK(parse(box).initial.taylorGreenForm == lbm::TaylorGreenForm::ThreeD);
  }
  SECTION("form: 2d keeps the extruded 2-D vortex") {
    const auto c = parse(edited(box, "u0: 0.02}", "u0: 0.02, form: 2d}"));
    CHECK(c.initial.taylorGreenForm == lbm::TaylorGreenForm::TwoD);
    // The 2-D vortex needs no cubic box.
    CHECK_NOTHROW(parse(edited(edited(box, "[16, 16, 16]", "[16, 16, 4]"), "u0: 0.02}", "u0: 0.02, form: 2d}")));
  }
  SECTION("an unknown form names the allowed ones") {
    expectError(edited(box, "u0: 0.02}", "u0: 0.02, form: 4d}"), 6, 42, "2d");
  }
  SECTION("3d needs a cubic box") {
    expectError(edited(box, "[16, 16, 16]", "[16, 16, 8]"), 6, 25, "needs a cubic box");
    expectError(edited(edited(box, "[16, 16, 16]", "[32, 16, 16]"), "u0: 0.02}", "u0: 0.02, form: 3d}"), 6, 42,
                "32 x 16 x 16");
  }
  SECTION("3d needs a 3-D lattice") {
    const std::string flat = "solver: lbm\nlattice: D2Q9\ndomain: {cells: [16, 16], periodic: [x, y]}\n"
                             "fluid: {tau: 0.8}\nrun: {steps: 10}\ninitial: {taylor_green: {u0: 0.02, form: 3d}}\n";
    expectError(flat, 6, 42, "needs a 3-D lattice");
    CHECK(parse(edited(flat, "form: 3d", "form: 2d")).initial.taylorGreenForm == lbm::TaylorGreenForm::TwoD);
  }
}

TEST_CASE("lattice Mach number: warning above 0.1, error above 0.3", "[unit]") {
  SECTION("moving wall at Ma 0.17 warns") {
    expectWarning(edited(k2D, "[0.05, 0]", "[0.1, 0]"), 7, 37, "lattice Mach number 0.173");
  }
  SECTION("moving wall at Ma 0.35 fails") {
    expectError(edited(k2D, "[0.05, 0]", "[0.2, 0]"), 7, 37, "lattice Mach number 0.346");
  }
  SECTION("the largest of several velocities is reported") {
    expectWarning(k2D + "initial: {velocity: [0.08, 0]}\n", 9, 21, "lattice Mach number 0.139");
  }
  SECTION("taylor_green u0") {
    const std::string tg = "solver: lbm\nlattice: D2Q9\ndomain: {cells: [8, 8], periodic: [x, y]}\n"
                           "fluid: {tau: 1}\ninitial: {taylor_green: {u0: 0.2}}\nrun: {steps: 1}\n";
    expectError(tg, 5, 30, "above 0.3");
  }
  SECTION("the check alone") {
    const auto doc = CaseDocument::fromString(edited(k2D, "[0.05, 0]", "[0.1, 0]"), "case.yaml");
    auto c = parse(k2D);
    c.faces[3].velocity = {0.1, 0, 0};
    hopsim::io::checkLatticeMach(doc.root(), c);
    REQUIRE(doc.warnings().size() == 1);
    CHECK(doc.warnings()[0].find("case.yaml:7:37: warning: lattice Mach number") == 0);
    CHECK(hopsim::io::latticeMach(c) == Approx(0.1 * std::sqrt(3.0)));
  }
}

TEST_CASE("output section is checked", "[unit]") {
  SECTION("negative every") { expectError(k2D + "output: {every: -1}\n", 9, 17, "must be at least 0"); }
  SECTION("unknown field") { expectError(k2D + "output: {fields: [density, pressure]}\n", 9, 28, "allowed: density, velocity, flags"); }
  SECTION("repeated format") { expectError(k2D + "output: {formats: [hdf5, hdf5]}\n", 9, 26, "lists hdf5 twice"); }
  SECTION("vtk needs a VTK build") {
    const std::string text = k2D + "output: {formats: [hdf5, vtk]}\n";
    if (HOPSIM_WITH_VTK)
      CHECK(parse(text).output.formats.size() == 2);
    else
      expectError(text, 9, 26, "HOPSIM_WITH_VTK");
  }
  SECTION("hdf5 layout of a decomposed run") {
    CHECK(parse(k2D).output.hdf5 == lbm::Hdf5Layout::Auto);
    CHECK(parse(k2D + "output: {hdf5: per-rank}\n").output.hdf5 == lbm::Hdf5Layout::PerRank);
    expectError(k2D + "output: {hdf5: parallel}\n", 9, 16, "allowed: auto, collective, per-rank");
    const std::string collective = k2D + "output: {hdf5: collective}\n";
    if (HOPSIM_HDF5_PARALLEL)
      CHECK(parse(collective).output.hdf5 == lbm::Hdf5Layout::Collective);
    else
      expectError(collective, 9, 16, "needs a build with parallel HDF5");
  }
  SECTION("forces need an obstacle") {
    expectError(k2D + "output: {forces: {every: 10, reference: {velocity: 0.05, length: 8}}}\n", 9, 18,
                "needs at least one obstacle");
  }
  SECTION("forces in 2D use a length, not an area") {
    expectError(k2D + "obstacles:\n  - {shape: circle, center: [30, 16], radius: 4}\n"
                      "output: {forces: {every: 10, reference: {velocity: 0.05, area: 8}}}\n",
                11, 64, "2D cases give reference.length");
  }
  SECTION("forces reference is required") {
    expectError(k2D + "obstacles:\n  - {shape: circle, center: [30, 16], radius: 4}\n"
                      "output: {forces: {every: 10}}\n",
                11, 18, "missing required key 'reference'");
  }
  SECTION("default directory from the file name") {
    const auto c = parseLbmCase(CaseDocument::fromString(k2D, "cases/my_channel.yaml"));
    CHECK(c.output.dir == "out/my_channel");
  }
}

TEST_CASE("device ranks along z are refused in 2D", "[unit]") {
  expectError(k2D + "device: {ranks: [2, 1, 2]}\n", 9, 17, "2D lattice");
}

TEST_CASE("device halo transport: auto by default, staged or ipc when asked, anything else refused", "[unit]") {
  CHECK(parseLbmCase(CaseDocument::fromString(k2D, "case.yaml")).device.halo == hopsim::HaloTransport::Auto);
  CHECK(parseLbmCase(CaseDocument::fromString(k2D + "device: {halo: ipc}\n", "case.yaml")).device.halo ==
        hopsim::HaloTransport::Ipc);
  CHECK(parseLbmCase(CaseDocument::fromString(k2D + "device: {halo: staged}\n", "case.yaml")).device.halo ==
        hopsim::HaloTransport::Staged);
  expectError(k2D + "device: {halo: nccl}\n", 9, 16, "allowed: auto, staged, ipc");
}

TEST_CASE("empty, comment-only, binary and missing files are clear errors", "[unit]") {
  auto loadError = [](const std::filesystem::path& path) -> std::string {
    try {
      CaseDocument::load(path.string());
    } catch (const CaseError& e) {
      CHECK(e.where().file == path.string());
      return e.message();
    }
    FAIL("no error for " << path);
    return {};
  };
  SECTION("empty") {
    const auto p = writeTemp("empty", "  \n\n");
    CHECK(loadError(p).find("the case file is empty") != std::string::npos);
    std::filesystem::remove(p);
  }
  SECTION("comments only") {
    const auto p = writeTemp("comments", "# solver: lbm\n");
    CHECK(loadError(p).find("no content") != std::string::npos);
    std::filesystem::remove(p);
  }
  SECTION("binary") {
    const auto p = writeTemp("binary", std::string("\x89HDF\r\n\x1a\n\0\0\0", 11));
    CHECK(loadError(p).find("binary file") != std::string::npos);
    std::filesystem::remove(p);
  }
  SECTION("not UTF-8") {
    const auto p = writeTemp("latin1", "solver: lbm\nname: caf\xe9\n");
    CHECK(loadError(p).find("not UTF-8") != std::string::npos);
    std::filesystem::remove(p);
  }
  SECTION("missing") {
    const auto p = tempFile("missing");
    CHECK(loadError(p).find("cannot open the case file") != std::string::npos);
  }
  SECTION("a file that loads is parsed with its name in errors") {
    const auto p = writeTemp("bad", edited(k2D, "{steps: 100}", "{steps: -1}"));
    try {
      parseLbmCase(CaseDocument::load(p.string()));
      FAIL("no error");
    } catch (const CaseError& e) {
      CHECK(std::string(e.what()).find(p.string() + ":8:14: run.steps = -1") == 0);
    }
    std::filesystem::remove(p);
  }
}

TEST_CASE("every example in inputs/lbm parses, without warnings, with sensible tau and Mach", "[unit]") {
  const std::filesystem::path dir = std::filesystem::path(HOPSIM_SOURCE_DIR) / "inputs" / "lbm";
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    names.push_back(entry.path().filename().string());
    INFO(entry.path().string());
    const auto doc = CaseDocument::load(entry.path().string());
    lbm::LbmCase c;
    try {
      c = parseLbmCase(doc);
    } catch (const CaseError& e) {
      FAIL(e.what());
    }
    CHECK(doc.warnings().empty());
    CHECK((c.tau >= 0.51 || c.smagorinsky));  // LES cases run close to 1/2 (taylor_green3d_les.yaml)
    CHECK(c.tau <= 2.0);
    CHECK(hopsim::io::latticeMach(c) < 0.1);
  }
  for (const char* expected : {"poiseuille2d.yaml", "cavity2d_re100.yaml", "cavity3d.yaml", "taylor_green2d.yaml",
                               "cylinder2d.yaml", "duct3d.yaml", "taylor_green3d.yaml"}) {
    INFO(expected);
    CHECK(std::find(names.begin(), names.end(), expected) != names.end());
  }
}

TEST_CASE("LBM enumerations print as case files spell them", "[unit]") {
  CHECK(std::string(lbm::toString(lbm::LatticeKind::D3Q19)) == "D3Q19");
  CHECK(std::string(lbm::toString(lbm::Precision::Half)) == "half");
  CHECK(std::string(lbm::toString(lbm::CollisionModel::TRT)) == "trt");
  CHECK(std::string(lbm::toString(lbm::BoundaryType::VelocityInlet)) == "velocity_inlet");
  CHECK(std::string(lbm::toString(lbm::Hdf5Layout::PerRank)) == "per-rank");
  CHECK(std::string(lbm::faceName(0)) == "x-");
  CHECK(std::string(lbm::faceName(3)) == "y+");
  CHECK(std::string(lbm::faceName(5)) == "z+");
  CHECK(std::string(lbm::faceName(6)) == "?");
}

TEST_CASE("assigning a CaseNode rebinds it and leaves the document alone", "[unit]") {
  // The parser walks paths with std::optional<CaseNode>; a write-through assignment once replaced the root.
  const auto doc = CaseDocument::fromString("a: {b: [1, 2]}\nc: 3\n", "case.yaml");
  std::optional<hopsim::io::CaseNode> n = doc.root();
  n = n->find("a");
  n = n->find("b");
  CHECK(n->size() == 2);
  CHECK(n->location().line == 1);
  CHECK(n->location().column == 8);
  CHECK(doc.root().at("c").integer() == 3);
  CHECK(doc.root().at("a").isMap());
}
