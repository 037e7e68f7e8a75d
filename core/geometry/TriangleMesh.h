// Triangle surfaces (from STL files or generated) and the checks a surface must pass before it can bound a body.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace hopsim::geometry {

using Vec3 = std::array<double, 3>;
using Triangle = std::array<Vec3, 3>;

// A triangle soup: vertices are repeated per triangle, as STL stores them. The vertex order of each triangle gives
// its orientation (counter-clockwise seen from outside for an outward-facing surface).
struct TriangleMesh {
  std::vector<Triangle> triangles;
};

struct Box3 {
  Vec3 min;
  Vec3 max;
};

// Smallest axis-aligned box holding every vertex; min > max (infinities) for an empty mesh.
Box3 boundingBox(const TriangleMesh& mesh);

// p scaled by `scale` (about the origin), then rotated by rotateDegrees[0] about x, then rotateDegrees[1] about y,
// then rotateDegrees[2] about z (right-handed, counter-clockwise looking down the axis), then translated.
// Multiples of 90 degrees rotate exactly: a vertex on a half-integer stays there. Throws std::invalid_argument for
// a scale that is not finite and positive (a mirror would turn the surface inside out).
Vec3 transformPoint(const Vec3& p, double scale, const Vec3& rotateDegrees, const Vec3& translate);
TriangleMesh transform(const TriangleMesh& mesh, double scale, const Vec3& rotateDegrees, const Vec3& translate);

// Why the mesh cannot bound a body, or "" when it can: it must have triangles, finite coordinates, no zero-area
// triangle, and, after welding vertices with exactly equal coordinates, every edge must be shared by exactly two
// triangles that run along it in opposite directions (closed, consistently oriented). Self-intersections are not
// looked for.
std::string checkClosed(const TriangleMesh& mesh);

// Volume enclosed by a closed mesh: positive when its triangles face outward, negative when they all face inward.
double signedVolume(const TriangleMesh& mesh);

// A sphere approximated by an icosahedron whose triangles are split in four `subdivisions` times (20 * 4^s
// triangles), vertices on the sphere, closed and facing outward. Its facets lie inside the sphere.
TriangleMesh icosphere(const Vec3& center, double radius, int subdivisions);

// A torus about the z axis through `center`: the tube's centre line has radius majorRadius, the tube minorRadius;
// `around` x `across` quads (along the centre line, around the tube), each split in two: 2 * around * across
// triangles, vertices on the torus, closed and facing outward. Not convex: lines through it cross it four times.
TriangleMesh torus(const Vec3& center, double majorRadius, double minorRadius, int around, int across);

// The surface of the box [min, max]: 12 triangles facing outward.
TriangleMesh boxMesh(const Vec3& min, const Vec3& max);

}  // namespace hopsim::geometry
