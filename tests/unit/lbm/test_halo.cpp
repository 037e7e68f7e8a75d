// What a halo exchange moves across a face (kernels/lbm/Halo.h): the populations that cross it, and the planes they
// are taken from and put into, checked against the lattice vectors and the box with its ghost layers.
#include <set>
#include <vector>

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

TEST_CASE("halo: ghost layers k deep travel as slabs of k planes into the neighbour's layer, plane for plane",
          "[unit][lbm][halo]") {
  // A domain 12 x 4 x 3 cells, periodic along x, split along x over two ranks of 6 cells each, ghost layers 3 deep
  // on both x faces (the temporal kernel at 3 steps per launch would need them). Each box holds, per cell, the
  // global x coordinate it stands for, ghosts included once filled. Both ranks' slabs are packed in the slab order
  // and unpacked into the other's opposite layer: every ghost cell then holds the right global coordinate.
  constexpr int depth = 3, owned = 6, global = 12;
  DomainParams<double> box[2];
  std::vector<int> value[2];
  for (int r = 0; r < 2; ++r) {
    DomainParams<double>& p = box[r];
    p.n[0] = owned + 2 * depth, p.n[1] = 4, p.n[2] = 3;
    p.cells = static_cast<long long>(p.n[0]) * p.n[1] * p.n[2];
    p.ghost[0] = p.ghost[1] = depth;
    CHECK(p.ownLo(0) == depth);
    CHECK(p.ownHi(0) == depth + owned);
    value[r].assign(static_cast<std::size_t>(p.cells), -1);
    for (long long c = 0; c < p.cells; ++c) {
      const int x = static_cast<int>(c % p.n[0]);
      if (p.owns(x, 0, 0)) value[r][c] = r * owned + x - depth;
    }
  }
  for (int face = 0; face < 2; ++face) {
    const HaloPlane send = haloPlane(box[0], face, true);
    CHECK(send.depth == depth);
    CHECK(send.cells() == depth * 4 * 3);
    CHECK(send.fixed == (face ? owned : depth));  // the 3 owned planes next to the face
    CHECK(haloPlane(box[0], face, false).fixed == (face ? owned + depth : 0));
  }
  // Rank r's face f goes to the other rank's face f ^ 1 (two ranks on a periodic axis: the same neighbour both ways).
  for (int r = 0; r < 2; ++r)
    for (int face = 0; face < 2; ++face) {
      const HaloPlane send = haloPlane(box[r], face, true), recv = haloPlane(box[1 - r], face ^ 1, false);
      REQUIRE(send.cells() == recv.cells());
      for (long long k = 0; k < send.cells(); ++k)
        value[1 - r][recv.cell(box[1 - r], k)] = value[r][send.cell(box[r], k)];
    }
  for (int r = 0; r < 2; ++r) {
    INFO("rank " << r);
    const DomainParams<double>& p = box[r];
    bool right = true;
    for (long long c = 0; c < p.cells; ++c) {
      const int x = static_cast<int>(c % p.n[0]);
      const int expected = ((r * owned + x - depth) % global + global) % global;
      right = right && value[r][c] == expected;
    }
    CHECK(right);
  }
}
