// Decomposition geometry: sub-boxes tile the box, neighbours agree with each other, periodic axes wrap.
#include <cmath>
#include <set>
#include <stdexcept>
#include <vector>

#include "CatchCompat.h"
#include "core/Decomposition.h"
#include "core/Mpi.h"

using hopsim::Decomposition;
namespace mpi = hopsim::mpi;

namespace {
const Decomposition::Real3 kLo{-1.0, 0.5, 2.0};
const Decomposition::Real3 kLength{13.4, 7.3, 9.1};
}  // namespace

TEST_CASE("the sub-boxes of every grid shape tile the box, and the neighbours are mutual", "[mpi][decomposition]") {
  // Pure geometry: every rank checks grids of any size, not only the one it runs in.
  for (const Decomposition::Int3 dims : {Decomposition::Int3{1, 1, 1}, {2, 1, 1}, {1, 2, 2}, {3, 2, 1}, {2, 3, 4}})
    for (const Decomposition::Bool3 periodic : {Decomposition::Bool3{true, true, true}, {false, true, false}}) {
      INFO("dims " << dims[0] << "x" << dims[1] << "x" << dims[2] << ", periodic x " << periodic[0]);
      const int n = dims[0] * dims[1] * dims[2];
      double volume = 0;
      for (int r = 0; r < n; ++r) {
        const Decomposition d(r, dims, kLo, kLength, periodic);
        CHECK(d.rankAt(d.coords()) == r);
        double v = 1;
        for (int a = 0; a < 3; ++a) {
          v *= d.subHi(a) - d.subLo(a);
          // Faces shared exactly with the next rank along each axis; the first and last faces are the box ends.
          if (d.coords()[a] == 0) CHECK(d.subLo(a) == kLo[a]);
          if (d.coords()[a] == dims[a] - 1) CHECK(d.subHi(a) == kLo[a] + kLength[a]);
          Decomposition::Int3 up = d.coords();
          ++up[a];
          if (up[a] < dims[a]) CHECK(Decomposition(d.rankAt(up), dims, kLo, kLength, periodic).subLo(a) == d.subHi(a));
          // Ownership agrees with the faces.
          CHECK(d.ownerCoord(a, d.subLo(a)) == d.coords()[a]);
          CHECK(d.ownerCoord(a, 0.5 * (d.subLo(a) + d.subHi(a))) == d.coords()[a]);
        }
        volume += v;
        // Each of the 26 neighbours sees this rank as its neighbour in the opposite direction.
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              const int nb = d.neighbor(dx, dy, dz);
              const bool offEdge = (!periodic[0] && (d.coords()[0] + dx < 0 || d.coords()[0] + dx >= dims[0])) ||
                                   (!periodic[1] && (d.coords()[1] + dy < 0 || d.coords()[1] + dy >= dims[1])) ||
                                   (!periodic[2] && (d.coords()[2] + dz < 0 || d.coords()[2] + dz >= dims[2]));
              if (offEdge) {
                CHECK(nb == mpi::kNoRank);
                continue;
              }
              REQUIRE(nb >= 0);
              REQUIRE(nb < n);
              CHECK(Decomposition(nb, dims, kLo, kLength, periodic).neighbor(-dx, -dy, -dz) == r);
            }
      }
      CHECK(volume == Approx(kLength[0] * kLength[1] * kLength[2]).epsilon(1e-12));
    }
}

TEST_CASE("periodic axes wrap to the far end of the grid, others end", "[mpi][decomposition]") {
  const Decomposition::Int3 dims{3, 2, 1};
  const Decomposition corner(0, dims, kLo, kLength, {true, false, true});
  CHECK(corner.neighbor(-1, 0, 0) == 2);       // x wraps to the last column
  CHECK(corner.neighbor(0, -1, 0) == mpi::kNoRank);
  CHECK(corner.neighbor(0, 1, 0) == 3);
  CHECK(corner.neighbor(-1, 1, 0) == 5);
  CHECK(corner.neighbor(0, 0, 1) == 0);        // one rank along a periodic axis: its own neighbour
  const auto all = corner.neighbors();
  CHECK(all.size() == 26u);
  CHECK(all[0] == mpi::kNoRank);               // (-1, -1, -1): y has no lower neighbour
  // Ownership at the wrapped ends.
  CHECK(corner.ownerCoord(0, kLo[0]) == 0);
  CHECK(corner.ownerCoord(0, kLo[0] + kLength[0] * (1 - 1e-16)) == 2);
}

TEST_CASE("cell ranges split a lattice into near-equal blocks that cover it once", "[mpi][decomposition]") {
  for (long long n : {1LL, 7LL, 64LL, 401LL})
    for (int parts = 1; parts <= std::min<long long>(n, 5); ++parts) {
      long long next = 0;
      for (int i = 0; i < parts; ++i) {
        const auto [first, last] = Decomposition::splitRange(n, parts, i);
        CHECK(first == next);
        CHECK(last - first >= n / parts);
        CHECK(last - first <= n / parts + 1);
        next = last;
      }
      CHECK(next == n);
    }
}

TEST_CASE("the world grid: one sub-box per rank, neighbours confirmed by messages", "[mpi][decomposition]") {
  const mpi::Comm world = mpi::Comm::world();
  const Decomposition d(world, kLo, kLength, {true, true, true});
  CHECK(d.size() == world.size());
  CHECK(d.rank() == world.rank());
  // The sub-box volumes add up to the box.
  double v = 1;
  for (int a = 0; a < 3; ++a) v *= d.subHi(a) - d.subLo(a);
  CHECK(world.allreduceSum(v) == Approx(kLength[0] * kLength[1] * kLength[2]).epsilon(1e-12));
  // Every rank sends its rank to each neighbour and must hear from the opposite one.
  int tag = 0;
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        if (!dx && !dy && !dz) continue;
        std::vector<double> got;
        world.sendrecv({double(d.rank())}, d.neighbor(dx, dy, dz), got, d.neighbor(-dx, -dy, -dz), ++tag);
        REQUIRE(got.size() == 1u);
        CHECK(got[0] == double(d.neighbor(-dx, -dy, -dz)));
      }
  // Every rank has a GPU slot on its node: node rank modulo the GPUs there.
  CHECK(d.nodeRank() >= 0);
  CHECK(d.nodeRank() < world.nodeSize());
  CHECK(d.gpu(1) == 0);
  CHECK(d.gpu(0) == -1);
  CHECK(d.gpu(2) == d.nodeRank() % 2);
}

TEST_CASE("a requested grid is kept, and one that does not fit is refused", "[mpi][decomposition]") {
  const mpi::Comm world = mpi::Comm::world();
  const int n = world.size();
  const Decomposition along(world, kLo, kLength, {true, true, true}, {1, 1, n});
  CHECK(along.dims() == Decomposition::Int3{1, 1, n});
  CHECK_THROWS_AS(Decomposition(world, kLo, kLength, {true, true, true}, {n + 1, 1, 1}), std::invalid_argument);
  // Sub-boxes narrower than the interaction range are refused.
  if (n > 1) CHECK_THROWS_AS(Decomposition(world, kLo, kLength, {true, true, true}, {n, 1, 1}, 7.0), std::invalid_argument);
  // Automatic grids leave short axes whole.
  const Decomposition automatic(world, kLo, {100.0, 3.0, 3.0}, {true, true, true}, {0, 0, 0}, 2.0);
  CHECK(automatic.dims() == Decomposition::Int3{n, 1, 1});
}
