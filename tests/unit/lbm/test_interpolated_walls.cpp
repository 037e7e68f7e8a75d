// Interpolated bounce-back: where a link between cell centres enters each obstacle shape (against distances worked
// out by hand and against the shape's own equation), the wall distances buildSetup() gives every link, the linear
// and quadratic forms against the profiles they must reproduce exactly, and the solver with q = 1/2 everywhere
// against half-way bounce-back.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "CatchCompat.h"
#include "LbmCaseText.h"
#include "core/lbm/ObstacleShapes.h"
#include "kernels/lbm/Lattice.h"
#include "kernels/lbm/StreamCollide.h"
#include "kernels/lbm/cpu/CpuLbmBackend.h"
#include "solvers/lbm/LbmSimulation.h"

using namespace hopsim;
using namespace hopsim::lbm;

namespace {

Obstacle round(ShapeKind shape, Vec3 center, double radius, int axis = 2) {
  Obstacle o;
  o.shape = shape;
  o.center = center;
  o.radius = radius;
  o.axis = axis;
  return o;
}

Obstacle box(Vec3 min, Vec3 max) {
  Obstacle o;
  o.shape = ShapeKind::Box;
  o.min = min;
  o.max = max;
  return o;
}

LbmCase parse(const std::string& text) { return testing::parseCaseText(text); }

// A 2-D channel around one obstacle, given as the YAML flow map of its entry.
std::string channel(const std::string& obstacle, const std::string& cells = "[40, 24]") {
  return "solver: lbm\nlattice: D2Q9\nprecision: double\ndomain: {cells: " + cells +
         ", periodic: [x]}\nfluid: {tau: 0.7}\nbody_force: [1.0e-6, 0]\nboundaries:\n  y-: {type: wall}\n  y+: "
         "{type: wall}\nobstacles:\n  - " +
         obstacle + "\nrun: {steps: 1}\n";
}

}  // namespace

TEST_CASE("segmentEntry: distances worked out by hand for each shape", "[unit][interpolated]") {
  const auto near = [](std::optional<double> t, double expected) {
    INFO("expected " << expected);
    REQUIRE(t.has_value());
    CHECK(std::abs(*t - expected) < 1e-14);
  };
  // Unit circle: along x from (2, 0) to (0.5, 0) it enters at x = 1; along the diagonal from (1, 1) at |p| = 1.
  const Obstacle circle = round(ShapeKind::Circle, {0, 0, 0}, 1);
  near(segmentEntry(circle, {2, 0, 0}, {0.5, 0, 0}, 2), 2.0 / 3.0);
  near(segmentEntry(circle, {1, 1, 0}, {0, 0, 0}, 2), 1 - 1 / std::sqrt(2.0));
  // A 2-D circle ignores z, a 3-D sphere does not.
  near(segmentEntry(circle, {2, 0, 5}, {0.5, 0, -5}, 2), 2.0 / 3.0);
  // Sphere of radius 2: from (3, 1, 1) to (1, 0, 0), (3 - 2t)^2 + 2 (1 - t)^2 = 4, 6 t^2 - 16 t + 7 = 0.
  near(segmentEntry(round(ShapeKind::Sphere, {0, 0, 0}, 2), {3, 1, 1}, {1, 0, 0}, 3), (16 - std::sqrt(88.0)) / 12);
  // Cylinder along z, radius 2 about (5, 5): the z component of the segment does not count.
  near(segmentEntry(round(ShapeKind::Cylinder, {5, 5, 0}, 2), {8, 5, 3}, {6, 5, 2}, 3), 0.5);
  // Cylinder along x: only y and z count.
  near(segmentEntry(round(ShapeKind::Cylinder, {0, 5, 5}, 2, 0), {9, 5, 8}, {1, 5, 6}, 3), 0.5);
  // Boxes: the latest entry over the slabs.
  const Obstacle b2 = box({2, 3, 0}, {6, 8, 1});
  near(segmentEntry(b2, {1.5, 2.5, 0.5}, {2.5, 3.5, 0.5}, 2), 0.5);
  near(segmentEntry(b2, {7, 5, 0.5}, {5, 5, 0.5}, 2), 0.5);
  near(segmentEntry(b2, {1.5, 2.9, 0.5}, {2.5, 3.9, 0.5}, 2), 0.5);  // x enters at 0.5, y at 0.1
  near(segmentEntry(b2, {1.8, 2.5, 0.5}, {2.8, 3.5, 0.5}, 2), 0.5);  // x at 0.2, y at 0.5
  const Obstacle b3 = box({0, 0, 0}, {4, 4, 4});
  near(segmentEntry(b3, {5, 2, 2}, {3, 2, 2}, 3), 0.5);
  near(segmentEntry(b3, {5, 5, 4.5}, {3.5, 3.5, 3.5}, 3), 2.0 / 3.0);
  // Misses and a start inside.
  CHECK_FALSE(segmentEntry(circle, {2, 2, 0}, {1.5, 2, 0}, 2).has_value());
  CHECK_FALSE(segmentEntry(circle, {2, 0, 0}, {3, 0, 0}, 2).has_value());   // moving away
  CHECK_FALSE(segmentEntry(circle, {3, 0, 0}, {2, 0, 0}, 2).has_value());   // short of it
  CHECK_FALSE(segmentEntry(b3, {5, 5, 5}, {4.5, 6, 5}, 3).has_value());
  CHECK(segmentEntry(circle, {0.5, 0, 0}, {0, 0, 0}, 2) == 0.0);
  CHECK(segmentEntry(b3, {1, 1, 1}, {2, 2, 2}, 3) == 0.0);
}

TEST_CASE("segmentEntry: the entry point lies on the surface for every link into a circle and a sphere",
          "[unit][interpolated]") {
  // Every pair of cell centres one D3Q27 link apart, the first outside and the second inside: the entry point
  // solves the shape's equation, and lies between them.
  const Obstacle sphere = round(ShapeKind::Sphere, {10.3, 9.7, 10.1}, 4.37);
  int links = 0;
  double worst = 0;
  for (int z = 3; z < 18; ++z)
    for (int y = 3; y < 18; ++y)
      for (int x = 3; x < 18; ++x) {
        const Vec3 from{x + 0.5, y + 0.5, z + 0.5};
        if (inside(sphere, from, 3)) continue;
        for (int i = 1; i < D3Q27::Q; ++i) {
          const Vec3 to{from[0] - D3Q27::c(i, 0), from[1] - D3Q27::c(i, 1), from[2] - D3Q27::c(i, 2)};
          if (!inside(sphere, to, 3)) continue;
          const auto t = segmentEntry(sphere, from, to, 3);
          REQUIRE(t.has_value());
          CHECK(*t > 0);
          CHECK(*t <= 1);
          double r2 = 0;
          for (int a = 0; a < 3; ++a) {
            const double p = from[a] + *t * (to[a] - from[a]) - sphere.center[a];
            r2 += p * p;
          }
          worst = std::max(worst, std::abs(std::sqrt(r2) - sphere.radius));
          ++links;
        }
      }
  INFO("links " << links << ", largest |r - R| " << worst);
  CHECK(links > 1000);
  CHECK(worst < 1e-12);
}

TEST_CASE("buildSetup: a wall distance for every link into an interpolated obstacle, none for staircase ones",
          "[unit][interpolated]") {
  const LbmCase c = parse(channel("{name: disc, shape: circle, center: [15.3, 11.8], radius: 5.6, boundary: "
                                  "interpolated}"));
  const LbmSetup s = buildSetup(c);
  const auto& d = s.domain;
  REQUIRE(s.curved.q.size() == s.curved.cells.size() * D2Q9::Q);
  // Count the links into the disc from the flags alone, and check each q puts the wall on the circle.
  long long expected = 0, found = 0;
  double worst = 0;
  for (int y = 0; y < d.n[1]; ++y)
    for (int x = 0; x < d.n[0]; ++x) {
      const long long cell = d.index(x, y, 0);
      if (s.flags[cell] != kFluid) continue;
      for (int i = 1; i < D2Q9::Q; ++i) {
        const int sx = x - D2Q9::c(i, 0), sy = y - D2Q9::c(i, 1);
        if (sy < 0 || sy >= d.n[1]) continue;
        expected += s.flags[d.index((sx + d.n[0]) % d.n[0], sy, 0)] == kObstacleBase;
      }
    }
  for (std::size_t k = 0; k < s.curved.cells.size(); ++k) {
    const long long cell = s.curved.cells[k];
    CHECK((k == 0 || s.curved.cells[k - 1] < cell));
    const double px = cell % d.n[0] + 0.5, py = cell / d.n[0] + 0.5;
    for (int i = 1; i < D2Q9::Q; ++i) {
      const double q = s.curved.q[k * D2Q9::Q + i];
      if (q == 0) continue;
      ++found;
      CHECK(q > 0);
      CHECK(q <= 1);
      worst = std::max(worst, std::abs(std::hypot(px - q * D2Q9::c(i, 0) - 15.3, py - q * D2Q9::c(i, 1) - 11.8) - 5.6));
    }
  }
  INFO("links into the disc " << expected << ", with a wall distance " << found << ", largest |r - R| " << worst);
  CHECK(expected > 50);
  CHECK(found == expected);
  CHECK(worst < 1e-12);

  const LbmCase stairs = parse(channel("{name: disc, shape: circle, center: [15.3, 11.8], radius: 5.6}"));
  CHECK(buildSetup(stairs).curved.cells.empty());
}

TEST_CASE("buildSetup: a quadratic obstacle's links carry the same wall distances, negated", "[unit][interpolated]") {
  const std::string disc = "{name: disc, shape: circle, center: [15.3, 11.8], radius: 5.6, boundary: ";
  const LbmSetup linear = buildSetup(parse(channel(disc + "interpolated}")));
  const LbmSetup quadratic = buildSetup(parse(channel(disc + "quadratic}")));
  CHECK(quadratic.curved.cells == linear.curved.cells);
  REQUIRE(quadratic.curved.q.size() == linear.curved.q.size());
  REQUIRE(linear.curved.q.size() > 100);
  long long differ = 0;
  for (std::size_t k = 0; k < linear.curved.q.size(); ++k) differ += quadratic.curved.q[k] != -linear.curved.q[k];
  CHECK(differ == 0);
}

// interpolatedBounce() on a floor whose top cuts the links at q = 0.2 (from row 3) or 0.7 (from row 4), with the
// post-collision populations along each link's line given by a profile g(s) of the distance s from the wall (in
// links): the population coming back to the cell is g where it lands, g(q), having left from g(1 - q). The
// quadratic form reproduces a quadratic g exactly and the linear form a linear one; each misses the other's.
TEST_CASE("Interpolated bounce-back: the quadratic form is exact for quadratic profiles, the linear for linear",
          "[unit][interpolated]") {
  const auto quadraticG = [](double s) { return 0.3 + 0.7 * s - 0.45 * s * s; };
  const auto linearG = [](double s) { return 0.3 + 0.7 * s; };
  for (const double top : {3.3, 3.8})
    for (const std::string boundary : {"interpolated", "quadratic"}) {
      const LbmSetup st = buildSetup(parse(channel(
          "{name: floor, shape: box, min: [0, 0], max: [6, " + std::to_string(top) + "], boundary: " + boundary + "}",
          "[6, 12]")));
      const auto& d = st.domain;
      const int row = static_cast<int>(top + 0.5);  // the first fluid row
      for (const bool quadraticProfile : {false, true}) {
        const auto g = [&](double s) { return quadraticProfile ? quadraticG(s) : linearG(s); };
        for (int i = 1; i < D2Q9::Q; ++i) {
          if (D2Q9::c(i, 1) != 1) continue;  // the links that come up from the floor
          const int o = opposite(i);
          const int pos[3] = {2, row, 0};
          const long long self = d.index(2, row, 0);
          const std::size_t k = std::find(st.curved.cells.begin(), st.curved.cells.end(), self) -
                                st.curved.cells.begin();
          REQUIRE(k < st.curved.cells.size());
          const double q = st.curved.q[k * D2Q9::Q + i], dist = std::abs(q);
          REQUIRE(std::abs(dist - (row + 0.5 - top)) < 1e-12);
          // Along the link's line the cells x + m c_i lie at s = |q| + m: f*_o there is what heads for the wall.
          // Below 1/2 the returning population starts at s = 1 - |q| among them; above, it starts between the
          // wall and x, and the populations leaving the wall (f*_i at s = 1 + |q| + m, having bounced) frame it.
          const auto load = [&](int dir, long long cell) {
            const double s = dist + static_cast<double>(cell / d.n[0] - row);
            if (dir == o) return dist >= 0.5 ? g(1 - dist) : g(s);
            REQUIRE(dir == i);
            return g(s + 1);
          };
          const double got = interpolatedBounce<D2Q9>(d, st.flags.data(), load, pos, self, i, q);
          const double expected = dist >= 0.5 ? g(dist) : g(1 - dist);
          const bool exact = !quadraticProfile || boundary == "quadratic";
          INFO(boundary << " q " << q << " link " << i << (quadraticProfile ? " quadratic" : " linear")
                        << " profile: got " << got << ", expected " << expected);
          if (exact) CHECK(std::abs(got - expected) < 1e-14);
          else CHECK(std::abs(got - expected) > 1e-3);
        }
      }
    }
}

TEST_CASE("buildSetup: a box across a periodic face meets its links where its image lies", "[unit][interpolated]") {
  // A wall along the whole periodic x axis, its top at y = 3.3: every link from row y = 3 down into it crosses at
  // q = 0.2 of the link, also the diagonal ones that wrap around x.
  const LbmCase c = parse(channel("{name: floor, shape: box, min: [0, 0], max: [6, 3.3], boundary: interpolated}",
                                  "[6, 12]"));
  const LbmSetup s = buildSetup(c);
  REQUIRE(s.curved.cells.size() == 6);
  for (std::size_t k = 0; k < 6; ++k) {
    CHECK(s.curved.cells[k] == 3 * 6 + static_cast<long long>(k));
    for (int i = 1; i < D2Q9::Q; ++i) {
      INFO("cell " << k << ", link " << i);
      CHECK(std::abs(s.curved.q[k * D2Q9::Q + i] - (D2Q9::c(i, 1) == 1 ? 0.2 : 0.0)) < 1e-12);
    }
  }
}

TEST_CASE("Interpolated bounce-back with every wall half a link away is half-way bounce-back, bitwise",
          "[unit][interpolated]") {
  // Boxes whose faces lie on cell faces put every wall at q = 1/2, where the interpolation gives back the half-way
  // population exactly: fields and forces must not change by a bit.
  const std::string obstacles = "{name: block, shape: box, min: [10, 6], max: [16, 13]";
  LbmCase stairs = parse(channel(obstacles + "}"));
  LbmSimulation a(stairs, Backend::Cpu);
  a.advance(200, true);
  std::vector<double> ra, ua;
  a.fields(ra, ua);
  const auto fa = a.forces()[0];
  CHECK(std::abs(fa[0]) > 0);
  const auto bits = [](double v) { return std::bit_cast<std::uint64_t>(v); };
  for (const std::string boundary : {"interpolated", "quadratic"}) {
    INFO(boundary);
    LbmCase curved = parse(channel(obstacles + ", boundary: " + boundary + "}"));
    LbmSimulation b(curved, Backend::Cpu);
    REQUIRE(buildSetup(curved).curved.cells.size() > 20);
    b.advance(200, true);
    std::vector<double> rb, ub;
    b.fields(rb, ub);
    REQUIRE(ua.size() == ub.size());
    long long differ = 0;
    for (std::size_t k = 0; k < ua.size(); ++k) differ += bits(ua[k]) != bits(ub[k]);
    for (std::size_t k = 0; k < ra.size(); ++k) differ += bits(ra[k]) != bits(rb[k]);
    CHECK(differ == 0);
    const auto fb = b.forces()[0];
    for (int k = 0; k < 3; ++k) CHECK(bits(fa[k]) == bits(fb[k]));
  }
}

// The lift of Schaefer and Turek's cylinder has a mean of its own (docs/validation.md): a mirror-symmetric
// discretisation must give a channel and its mirror image about the mid-height mirrored flows. Here a cylinder 0.5
// cells below the mid-height of a channel with a parabolic inlet, a pressure outlet and walls, and the same with the
// cylinder 0.5 cells above it (cell centres at j + 1/2: y -> 41 - y), for each boundary form of the cylinder: drag
// equal, lift opposite, u_x(x, y) = u_x'(x, 40 - y) and u_y = -u_y', to round-off (the mirrored run sums the same
// terms in another order). A profile, wall or force sum that favoured one side would show at 1e-4 or more.
TEST_CASE("A channel and its mirror image give mirrored flows and forces, for every boundary form of a cylinder",
          "[unit][interpolated]") {
  const int nx = 96, ny = 41;
  for (const std::string boundary : {"staircase", "interpolated", "quadratic"}) {
    INFO(boundary);
    std::vector<double> rho[2], u[2];
    std::array<double, 3> force[2];
    for (int side = 0; side < 2; ++side) {
      const std::string yaml =
          "solver: lbm\nlattice: D2Q9\nprecision: double\ncollision: {model: trt}\ndomain: {cells: [" +
          std::to_string(nx) + ", " + std::to_string(ny) + "]}\nfluid: {viscosity: 0.02}\nboundaries:\n" +
          "  x-: {type: velocity_inlet, profile: parabolic, velocity: [0.04, 0]}\n" +
          "  x+: {type: pressure_outlet, density: 1.0}\n  y-: {type: wall}\n  y+: {type: wall}\n" +
          "obstacles:\n  - {name: cylinder, shape: circle, center: [24, " + (side ? "21" : "20") +
          "], radius: 6.3, boundary: " + boundary + "}\nrun: {steps: 1}\n";
      const LbmSetup setup = buildSetup(parse(yaml));
      auto backend = makeCpuBackend(setup);
      backend->advance(1500, true);
      backend->macroscopic(rho[side], u[side]);
      force[side] = backend->obstacleForces().at(0);
    }
    const double fx = std::abs(force[0][0]);
    CHECK(fx > 1e-4);
    CHECK(std::abs(force[0][1]) > 1e-3 * fx);  // the cylinder off the mid-height has a lift
    CHECK(std::abs(force[0][0] - force[1][0]) <= 1e-10 * fx);
    CHECK(std::abs(force[0][1] + force[1][1]) <= 1e-10 * fx);
    double worst = 0, umax = 0;
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        const std::size_t a = static_cast<std::size_t>(y) * nx + x, b = static_cast<std::size_t>(ny - 1 - y) * nx + x;
        umax = std::max(umax, std::abs(u[0][3 * a]));
        worst = std::max({worst, std::abs(u[0][3 * a] - u[1][3 * b]), std::abs(u[0][3 * a + 1] + u[1][3 * b + 1]),
                          std::abs(rho[0][a] - rho[1][b])});
      }
    CHECK(umax > 0.01);
    CHECK(worst <= 1e-12);
  }
}
