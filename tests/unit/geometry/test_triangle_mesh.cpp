// Triangle meshes: exact orientation, placement, the closed-surface check, and the generated shapes.
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>

#include "CatchCompat.h"
#include "core/geometry/Orientation.h"
#include "core/geometry/TriangleMesh.h"

using hopsim::geometry::boxMesh;
using hopsim::geometry::checkClosed;
using hopsim::geometry::icosphere;
using hopsim::geometry::orient2d;
using hopsim::geometry::signedVolume;
using hopsim::geometry::TriangleMesh;
using hopsim::geometry::Vec3;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("orient2d gives the exact sign where a floating-point determinant rounds", "[unit][stl]") {
  // Points a few units in the last place beside the line y = x, seen from far along it (Kettner et al.'s classroom
  // example): the rounded determinant gets many of these signs wrong; the exact sign is sign(j - i).
  const double ulp = std::ldexp(1.0, -53);
  int wrongNaive = 0;
  for (int i = 0; i < 48; ++i)
    for (int j = 0; j < 48; ++j) {
      const double px = 0.5 + i * ulp, py = 0.5 + j * ulp;
      const int expected = (j > i) - (j < i);
      CHECK(orient2d(12, 12, 24, 24, px, py) == expected);
      const double naive = (24.0 - 12) * (py - 12) - (24.0 - 12) * (px - 12);
      if ((naive > 0) - (naive < 0) != expected) ++wrongNaive;
    }
  CHECK(wrongNaive > 0);  // the example does exercise the exact path
  CHECK(orient2d(0, 0, 1, 0, 0.5, 1e-300) == 1);
  CHECK(orient2d(0, 0, 1, 0, 0.5, -1e-300) == -1);
  CHECK(orient2d(0.1, 0.2, 0.1, 0.2, 5, 7) == 0);
}

TEST_CASE("transformPoint scales, then rotates about x, y, z, then translates", "[unit][stl]") {
  using hopsim::geometry::transformPoint;
  // Hand-computed: scale 2 -> (2, 2, 2); a quarter turn about z takes x to y and y to -x -> (-2, 2, 2); then + t.
  CHECK(transformPoint({1, 1, 1}, 2, {0, 0, 90}, {1, 2, 3}) == Vec3{-1, 4, 5});
  // About x (y -> z, z -> -y): (1, 2, 3) -> (1, -3, 2); about y (z -> x, x -> -z): -> (2, -3, -1); about z
  // (x -> y, y -> -x): -> (3, 2, -1).
  CHECK(transformPoint({1, 2, 3}, 1, {90, 90, 90}, {0, 0, 0}) == Vec3{3, 2, -1});
  // The order matters: about z first would give another point.
  CHECK(transformPoint({0, 1, 0}, 1, {90, 90, 0}, {0, 0, 0}) == Vec3{1, 0, 0});
  // Multiples of 90 degrees are exact in any form.
  CHECK(transformPoint({1, 0, 0}, 1, {0, 0, -90}, {0, 0, 0}) == Vec3{0, -1, 0});
  CHECK(transformPoint({1, 0, 0}, 1, {0, 0, 270}, {0, 0, 0}) == Vec3{0, -1, 0});
  CHECK(transformPoint({1, 0, 0}, 1, {0, 0, 450}, {0, 0, 0}) == Vec3{0, 1, 0});
  CHECK(transformPoint({0.5, 1.5, 2.5}, 1, {180, 0, 0}, {0, 0, 0}) == Vec3{0.5, -1.5, -2.5});
  // Other angles: 30 degrees about z and 45 about x, to rounding.
  const Vec3 p = transformPoint({1, 0, 0}, 3, {0, 0, 30}, {0, 0, 0});
  CHECK(p[0] == Approx(3 * std::sqrt(3.0) / 2).epsilon(1e-15));
  CHECK(p[1] == Approx(1.5).epsilon(1e-15));
  CHECK(p[2] == 0);
  const Vec3 q = transformPoint({0, 1, 0}, 1, {45, 0, 0}, {10, 0, 0});
  CHECK(q[0] == 10);
  CHECK(q[1] == Approx(std::sqrt(0.5)).epsilon(1e-15));
  CHECK(q[2] == Approx(std::sqrt(0.5)).epsilon(1e-15));
  CHECK_THROWS_AS(transformPoint({1, 0, 0}, -1, {0, 0, 0}, {0, 0, 0}), std::invalid_argument);
  CHECK_THROWS_AS(transformPoint({1, 0, 0}, 0, {0, 0, 0}, {0, 0, 0}), std::invalid_argument);
}

TEST_CASE("transform moves every vertex and keeps the surface closed and outward", "[unit][stl]") {
  const TriangleMesh box = boxMesh({0, 0, 0}, {1, 2, 3});
  const TriangleMesh moved = hopsim::geometry::transform(box, 0.5, {0, 0, 90}, {10, 20, 30});
  // (x, y, z) -> 0.5 (-y, x, z) + (10, 20, 30): the box [0,1]x[0,2]x[0,3] becomes [9,10]x[20,20.5]x[30,31.5].
  const auto b = hopsim::geometry::boundingBox(moved);
  CHECK(b.min == Vec3{9, 20, 30});
  CHECK(b.max == Vec3{10, 20.5, 31.5});
  CHECK(checkClosed(moved).empty());
  CHECK(hopsim::geometry::signedVolume(moved) == Approx(0.75).epsilon(1e-14));
}

TEST_CASE("generated shapes are closed and outward, with the expected size", "[unit][stl]") {
  const TriangleMesh box = boxMesh({-1, 2, 0.5}, {3, 2.5, 7});
  CHECK(box.triangles.size() == 12);
  CHECK(checkClosed(box).empty());
  CHECK(hopsim::geometry::signedVolume(box) == Approx(4 * 0.5 * 6.5).epsilon(1e-14));
  const auto b = hopsim::geometry::boundingBox(box);
  CHECK(b.min == Vec3{-1, 2, 0.5});
  CHECK(b.max == Vec3{3, 2.5, 7});

  for (int s = 0; s <= 4; ++s) {
    const double r = 5;
    const TriangleMesh sphere = icosphere({1, 2, 3}, r, s);
    CHECK(sphere.triangles.size() == 20u << (2 * s));
    CHECK(checkClosed(sphere).empty());
    // Inscribed: the enclosed volume lies below the sphere's, and above that of the ball inside every facet plane.
    double inner = r;
    for (const auto& t : sphere.triangles) {
      Vec3 e1, e2, a;
      for (int k = 0; k < 3; ++k) {
        e1[k] = t[1][k] - t[0][k];
        e2[k] = t[2][k] - t[0][k];
        a[k] = t[0][k] - Vec3{1, 2, 3}[k];
      }
      const Vec3 n{e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
      const double len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
      inner = std::min(inner, (n[0] * a[0] + n[1] * a[1] + n[2] * a[2]) / len);  // > 0: faces outward
      for (const Vec3& p : t)
        CHECK(std::hypot(p[0] - 1, p[1] - 2, p[2] - 3) == Approx(r).epsilon(1e-15));
    }
    CHECK(inner > 0);
    const double v = hopsim::geometry::signedVolume(sphere);
    CHECK(v < 4.0 / 3 * std::numbers::pi * r * r * r);
    CHECK(v > 4.0 / 3 * std::numbers::pi * inner * inner * inner);
  }
}

TEST_CASE("checkClosed names what keeps a surface from bounding a body", "[unit][stl]") {
  SECTION("no triangles") { CHECK(contains(checkClosed(TriangleMesh{}), "no triangles")); }

  SECTION("a missing triangle leaves a hole") {
    TriangleMesh sphere = icosphere({0, 0, 0}, 1, 2);
    sphere.triangles.erase(sphere.triangles.begin() + 17);
    const std::string msg = checkClosed(sphere);
    CHECK(contains(msg, "hole"));
    CHECK(contains(msg, "has no neighbouring triangle"));
  }

  SECTION("a flipped triangle runs along its neighbours' edges in their direction") {
    TriangleMesh sphere = icosphere({0, 0, 0}, 1, 2);
    std::swap(sphere.triangles[37][1], sphere.triangles[37][2]);
    const std::string msg = checkClosed(sphere);
    CHECK(contains(msg, "flipped"));
    CHECK((contains(msg, " and 37 both") || contains(msg, "triangles 37 and")));
  }

  SECTION("vertices are welded by exact equality only") {
    TriangleMesh box = boxMesh({0, 0, 0}, {1, 1, 1});
    box.triangles[3][0][0] = std::nextafter(box.triangles[3][0][0], 2.0);
    CHECK(contains(checkClosed(box), "hole"));
  }

  SECTION("a third triangle on an edge") {
    TriangleMesh box = boxMesh({0, 0, 0}, {1, 1, 1});
    box.triangles.push_back(box.triangles[4]);
    CHECK(contains(checkClosed(box), "more than two triangles meet"));
  }

  SECTION("a zero-area triangle is named by its index") {
    TriangleMesh box = boxMesh({0, 0, 0}, {1, 1, 1});
    box.triangles[5] = {Vec3{0, 0, 0}, Vec3{0.25, 0.5, 0.75}, Vec3{1, 2, 3}};
    const std::string msg = checkClosed(box);
    CHECK(msg.rfind("triangle 5 has zero area", 0) == 0);
    // Two vertices in one place is zero area too.
    box = boxMesh({0, 0, 0}, {1, 1, 1});
    box.triangles[8][2] = box.triangles[8][0];
    CHECK(checkClosed(box).rfind("triangle 8 has zero area", 0) == 0);
  }

  SECTION("a non-finite coordinate") {
    TriangleMesh box = boxMesh({0, 0, 0}, {1, 1, 1});
    box.triangles[2][1][2] = std::numeric_limits<double>::quiet_NaN();
    CHECK(checkClosed(box).rfind("triangle 2 has a non-finite coordinate", 0) == 0);
  }
}

TEST_CASE("torus: closed, facing outward, with the torus's volume", "[unit][stl]") {
  const double R = 10, r = 3;
  const TriangleMesh ring = hopsim::geometry::torus({1, 2, 3}, R, r, 120, 60);
  CHECK(ring.triangles.size() == 2u * 120 * 60);
  CHECK(checkClosed(ring).empty());
  // The facets lie inside the smooth torus (2 pi^2 R r^2), within a fraction of a percent at this resolution.
  const double exact = 2 * std::numbers::pi * std::numbers::pi * R * r * r;
  CHECK(signedVolume(ring) > 0.99 * exact);
  CHECK(signedVolume(ring) < exact);
  CHECK_THROWS_AS(hopsim::geometry::torus({0, 0, 0}, 3, 3, 10, 10), std::invalid_argument);
  CHECK_THROWS_AS(hopsim::geometry::torus({0, 0, 0}, 5, 1, 2, 10), std::invalid_argument);
}
