// What a halo exchange moves across one face of a decomposed box, shared by the CPU and CUDA backends.
//
// Face f = 2 * axis + side. packHalo(f) takes the owned plane next to face f and keeps the populations that stream
// out through it (c_axis = +1 for the plus face, -1 for the minus face); the neighbour beyond f unpacks them into
// the ghost plane beyond its opposite face f ^ 1, where its owned cells pull them from. Both sides list the same
// populations in the same order (ascending i with that c_axis), so the buffers match without a header.
// Planes span the whole box along the other two axes, ghosts included: exchanging x, then y, then z moves the
// populations that cross an edge or a corner through an intermediate ghost layer, so 6 messages serve all 26
// neighbours. With `allPopulations` every population of the plane travels: the inlet and outlet ghost nodes of
// gather() read whole cells next to a face, which may be ghost cells along a split tangential axis.
// A ghost layer d cells deep (the Hopper temporal kernel's k steps per launch need k) travels as a slab of the d
// owned planes next to the face, every population, into the neighbour's d ghost planes, in the same plane order.
#pragma once

#include "kernels/lbm/BoundaryParams.h"
#include "kernels/lbm/Lattice.h"

namespace hopsim::lbm {

// The cells of `depth` planes along `axis` from coordinate `fixed` on (one plane for a ghost layer one cell deep).
struct HaloPlane {
  int axis = 0, fixed = 0;  // the cells with coordinate fixed .. fixed + depth - 1 along `axis`
  int depth = 1;
  int u = 1, v = 2;         // the other two axes, u fastest, then v, then the planes
  int nu = 1, nv = 1;

  HOPSIM_HD long long cells() const { return static_cast<long long>(nu) * nv * depth; }
  // Box index of the k-th cell of the slab.
  template <class T>
  HOPSIM_HD long long cell(const DomainParams<T>& p, long long k) const {
    const long long perPlane = static_cast<long long>(nu) * nv;
    const long long inPlane = k % perPlane;
    int pos[3];
    pos[axis] = fixed + static_cast<int>(k / perPlane);
    pos[u] = static_cast<int>(inPlane % nu);
    pos[v] = static_cast<int>(inPlane / nu);
    return p.index(pos[0], pos[1], pos[2]);
  }
};

// The owned planes next to face f (send = true) or the ghost planes beyond it (send = false), as deep as the face's
// ghost layer (the neighbour's opposite layer is as deep: the solver gives every split face one depth).
template <class T>
HOPSIM_HD HaloPlane haloPlane(const DomainParams<T>& p, int face, bool send) {
  HaloPlane h;
  h.axis = face / 2;
  h.depth = p.ghost[face] > 1 ? p.ghost[face] : 1;
  const bool plus = face & 1;
  if (send) h.fixed = plus ? p.ownHi(h.axis) - h.depth : p.ownLo(h.axis);
  else h.fixed = plus ? p.n[h.axis] - h.depth : 0;
  h.u = h.axis == 0 ? 1 : 0;
  h.v = h.axis == 2 ? 1 : 2;
  h.nu = p.n[h.u];
  h.nv = p.n[h.v];
  return h;
}

// The populations that cross face f: leaving through it (send) or entering the box's owned part through it from
// the ghost plane (receive), in ascending order; returns how many were written to `out` (at most L::Q).
template <class L>
HOPSIM_HD int haloPopulations(int face, bool send, bool allPopulations, int* out) {
  const int axis = face / 2;
  const int outward = (face & 1) ? 1 : -1;
  const int wanted = send ? outward : -outward;
  int count = 0;
  for (int i = 0; i < L::Q; ++i)
    if (allPopulations || L::c(i, axis) == wanted) out[count++] = i;
  return count;
}

}  // namespace hopsim::lbm
