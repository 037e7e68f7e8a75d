// What a halo exchange moves across a face (kernels/lbm/Halo.h): the populations that cross it, and the planes they
// are taken from and put into, checked against the lattice vectors and the box with its ghost layers.
#include <set>

#include "CatchCompat.h"
#include "kernels/lbm/Halo.h"

using namespace hopsim::lbm;

namespace {

// Every face of the lattice's dimensions: the sent populations point out through the face, the received ones in;
// the counts are those that cross a face (3 of D2Q9, 5 of D3Q19, 9 of D3Q27), the same on both sides.
template <class L>
void checkPopulations(int crossing) {
  INFO(L::name);
  for (int face = 0; face < 2 * L::D; ++face) {
    const int axis = face / 2, outward = (face & 1) ? 1 : -1;
    int sent[27], received[27], all[27];
    const int ns = haloPopulations<L>(face, true, false, sent);
    const int nr = haloPopulations<L>(face, false, false, received);
    CHECK(ns == crossing);
    CHECK(nr == crossing);
    for (int k = 0; k < ns; ++k) CHECK(L::c(sent[k], axis) == outward);
    for (int k = 0; k < nr; ++k) CHECK(L::c(received[k], axis) == -outward);
    // What the neighbour beyond this face receives through its opposite face is what this face sends, in order.
    int across[27];
    REQUIRE(haloPopulations<L>(face ^ 1, false, false, across) == ns);
    for (int k = 0; k < ns; ++k) CHECK(across[k] == sent[k]);
    CHECK(haloPopulations<L>(face, true, true, all) == L::Q);
    std::set<int> distinct(all, all + L::Q);
    CHECK(static_cast<int>(distinct.size()) == L::Q);
  }
}

}  // namespace

TEST_CASE("halo: the populations crossing each face, and the same list on both sides", "[unit][lbm][halo]") {
  checkPopulations<D2Q9>(3);
  checkPopulations<D3Q19>(5);
  checkPopulations<D3Q27>(9);
}

TEST_CASE("halo: send planes are the owned cells next to a face, receive planes the ghost layer beyond it",
          "[unit][lbm][halo]") {
  // A 10 x 7 x 5 box: ghost layers on both x faces and the plus y face (owned x 1..8, y 0..5, z 0..4).
  DomainParams<double> p;
  p.n[0] = 10, p.n[1] = 7, p.n[2] = 5;
  p.cells = 10 * 7 * 5;
  p.ghost[0] = p.ghost[1] = p.ghost[3] = 1;
  CHECK(p.hasGhosts());
  CHECK(p.ownLo(0) == 1);
  CHECK(p.ownHi(0) == 9);
  CHECK(p.ownLo(1) == 0);
  CHECK(p.ownHi(1) == 6);
  CHECK(p.owns(1, 0, 0));
  CHECK_FALSE(p.owns(0, 3, 2));
  CHECK_FALSE(p.owns(4, 6, 2));

  const HaloPlane xMinusSend = haloPlane(p, 0, true), xPlusSend = haloPlane(p, 1, true);
  const HaloPlane xMinusGhost = haloPlane(p, 0, false), xPlusGhost = haloPlane(p, 1, false);
  CHECK(xMinusSend.fixed == 1);
  CHECK(xPlusSend.fixed == 8);
  CHECK(xMinusGhost.fixed == 0);
  CHECK(xPlusGhost.fixed == 9);
  // Planes span the whole box along the other axes, ghosts included (edges and corners travel through them).
  CHECK(xPlusSend.cells() == 7 * 5);
  const HaloPlane yPlusSend = haloPlane(p, 3, true), yPlusGhost = haloPlane(p, 3, false);
  CHECK(yPlusSend.fixed == 5);
  CHECK(yPlusGhost.fixed == 6);
  CHECK(yPlusSend.cells() == 10 * 5);

  // Every cell of a plane has the plane's coordinate along its axis, and the cells are all different.
  for (const HaloPlane& h : {xMinusSend, xPlusGhost, yPlusSend, yPlusGhost}) {
    std::set<long long> seen;
    for (long long k = 0; k < h.cells(); ++k) {
      const long long c = h.cell(p, k);
      const long long pos[3] = {c % p.n[0], (c / p.n[0]) % p.n[1], c / (p.n[0] * p.n[1])};
      CHECK(pos[h.axis] == h.fixed);
      seen.insert(c);
    }
    CHECK(static_cast<long long>(seen.size()) == h.cells());
  }
}
