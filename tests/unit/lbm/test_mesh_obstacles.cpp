// Obstacles read from STL files (shape: stl): the case's errors, the cells and wall distances a mesh gives against
// the built-in sphere it approximates, and the drag on the two.
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "CatchCompat.h"
#include "ScratchDir.h"
#include "core/geometry/TriangleMesh.h"
#include "io/CaseReader.h"
#include "io/LbmCaseParser.h"
#include "io/StlReader.h"
#include "kernels/lbm/Lattice.h"
#include "solvers/lbm/LbmSimulation.h"

using namespace hopsim;
using namespace hopsim::lbm;

namespace {

// A 3-D channel with walls on y and z, driven along the periodic x by a body force, around one obstacle; the case
// file lies in `dir`, so that the obstacle's file may be named relative to it.
LbmCase parseIn(const std::filesystem::path& dir, const std::string& obstacle, const std::string& boundary = "") {
  const std::string text = "solver: lbm\nlattice: D3Q19\nprecision: double\ncollision: {model: trt}\n"
                           "domain: {cells: [24, 18, 18], periodic: [x]}\nfluid: {tau: 0.8}\n"
                           "body_force: [2.0e-6, 0, 0]\nboundaries:\n  y-: {type: wall}\n  y+: {type: wall}\n"
                           "  z-: {type: wall}\n  z+: {type: wall}\nobstacles:\n  - " +
                           obstacle + (boundary.empty() ? "" : ", boundary: " + boundary) + "}\nrun: {steps: 1}\n";
  return io::parseLbmCase(io::CaseDocument::fromString(text, (dir / "case.yaml").string()));
}

// The error of parsing the case, or "" when it parses.
std::string errorOf(const std::filesystem::path& dir, const std::string& obstacle) {
  try {
    parseIn(dir, obstacle);
  } catch (const io::CaseError& e) {
    return e.what();
  }
  return "";
}

// A unit sphere (5 subdivisions: 20,480 facets, whose centres lie up to 2.8e-4 of the radius inside the sphere)
// placed by the case at (10, 9, 9) with radius 4: the stl obstacle; and the built-in sphere it approximates.
const std::string kStl = "{name: ball, shape: stl, file: ball.stl, scale: 4, translate: [10, 9, 9]";
const std::string kSphere = "{name: ball, shape: sphere, center: [10, 9, 9], radius: 4";

}  // namespace

TEST_CASE("STL obstacles: errors name the file and what is wrong", "[unit][stl]") {
  ScratchDir dir("mesh_obstacles_errors");
  std::filesystem::create_directories(dir.path());
  geometry::TriangleMesh ball = geometry::icosphere({0, 0, 0}, 1, 2);
  io::writeStl((dir.path() / "ball.stl").string(), ball, true);
  ball.triangles.pop_back();
  io::writeStl((dir.path() / "open.stl").string(), ball, true);

  CHECK(errorOf(dir.path(), kStl).empty());
  std::string e = errorOf(dir.path(), "{name: ball, shape: stl, file: open.stl, scale: 4, translate: [10, 9, 9]");
  INFO(e);
  CHECK(e.find("case.yaml:") != std::string::npos);
  CHECK(e.find("open.stl") != std::string::npos);
  CHECK(e.find("closed surface") != std::string::npos);
  e = errorOf(dir.path(), "{name: ball, shape: stl, file: missing.stl");
  CHECK(e.find("missing.stl") != std::string::npos);
  // Placed partly outside the domain (x from -1 to 7).
  e = errorOf(dir.path(), "{name: ball, shape: stl, file: ball.stl, scale: 4, translate: [3, 9, 9]");
  CHECK(e.find("outside the domain") != std::string::npos);
  e = errorOf(dir.path(), "{name: ball, shape: stl, file: ball.stl, radius: 3");
  CHECK(e.find("radius") != std::string::npos);
}

TEST_CASE("STL obstacles: the cells and wall distances of a meshed sphere against the built-in sphere",
          "[unit][stl][interpolated]") {
  ScratchDir dir("mesh_obstacles_cells");
  std::filesystem::create_directories(dir.path());
  io::writeStl((dir.path() / "ball.stl").string(), geometry::icosphere({0, 0, 0}, 1, 5), true);
  const LbmSetup mesh = buildSetup(parseIn(dir.path(), kStl, "interpolated"));
  const LbmSetup shape = buildSetup(parseIn(dir.path(), kSphere, "interpolated"));
  // The facets lie inside the sphere by at most 4 * 2.8e-4 cells: only centres that close to the surface may differ.
  long long differ = 0, solid = 0;
  for (std::size_t k = 0; k < mesh.flags.size(); ++k) {
    differ += mesh.flags[k] != shape.flags[k];
    solid += shape.flags[k] != kFluid;
  }
  INFO("solid cells " << solid << ", differing " << differ);
  CHECK(solid > 200);
  CHECK(differ <= 2);
  // Every link of the mesh's table ends on the sphere to within the facets' depth below it.
  const auto& d = mesh.domain;
  double worst = 0;
  long long links = 0;
  for (std::size_t k = 0; k < mesh.curved.cells.size(); ++k) {
    const long long c = mesh.curved.cells[k];
    const long long row = c / d.n[0];
    const double p[3] = {c % d.n[0] + 0.5, row % d.n[1] + 0.5, row / d.n[1] + 0.5};
    for (int i = 1; i < D3Q19::Q; ++i) {
      const double q = mesh.curved.q[k * D3Q19::Q + i];
      if (q == 0) continue;
      ++links;
      double r2 = 0;
      const double centre[3] = {10, 9, 9};
      for (int a = 0; a < 3; ++a) r2 += std::pow(p[a] - q * D3Q19::c(i, a) - centre[a], 2);
      worst = std::max(worst, std::abs(std::sqrt(r2) - 4.0));
    }
  }
  INFO("links " << links << ", largest |r - R| " << worst);
  CHECK(links > 500);
  CHECK(worst < 4 * 3e-4);
}

TEST_CASE("STL obstacles: the drag on a meshed sphere equals the built-in sphere's within 0.5%",
          "[unit][stl][interpolated]") {
  ScratchDir dir("mesh_obstacles_drag");
  std::filesystem::create_directories(dir.path());
  io::writeStl((dir.path() / "ball.stl").string(), geometry::icosphere({0, 0, 0}, 1, 5), true);
  for (const std::string boundary : {"interpolated", "staircase"}) {
    LbmSimulation mesh(parseIn(dir.path(), kStl, boundary), Backend::Cpu);
    LbmSimulation shape(parseIn(dir.path(), kSphere, boundary), Backend::Cpu);
    mesh.advance(300, true);
    shape.advance(300, true);
    const double fm = mesh.forces()[0][0], fs = shape.forces()[0][0];
    INFO(boundary << ": drag " << fm << " (stl) and " << fs << " (sphere)");
    CHECK(fs > 0);
    CHECK(std::abs(fm / fs - 1) < 5e-3);
  }
}
