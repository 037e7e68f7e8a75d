// What a GPU thread does for its cell, written for host and device alike (so the in-place layout can also be
// checked on a machine without a GPU): classify, stream + collide, initialise, reduce moments.
#pragma once

#include <cstdint>

#include "kernels/lbm/StreamCollide.h"
#include "kernels/lbm/cuda/StreamingAccess.cuh"

namespace hopsim::lbm {

// Per-cell class computed once: bulk cells pull every population from a fluid neighbour inside the box (periodic
// wrap allowed), so they skip the per-direction flag reads and face logic of gather(). Wall cells are the fluid
// cells whose other links all bounce back, off walls and moving walls only (kCellWall: which ones follows from the
// cell's position, no memory read) or off solid cells too (kCellWallSolid: the neighbours' flags tell). The
// two-lattice bulk kernels update them in their own pass (updateCellWithWalls), where their loads coalesce with
// their bulk neighbours'. Boundary cells (a link to an inlet or outlet ghost node) always need gather(). Curved
// cells (links into obstacles with interpolated bounce-back, LbmSetup::curved) are set apart after classification
// and go through a kernel of their own (updateCurvedCell), so that the other kernels' code does not change.
enum : std::uint8_t {
  kCellSkip = 0,
  kCellBulk = 1,
  kCellBoundary = 2,
  kCellWall = 3,
  kCellWallSolid = 4,
  kCellCurved = 5
};

HOPSIM_HD bool isWallCell(std::uint8_t k) { return k == kCellWall || k == kCellWallSolid; }

// Whether a cell of class `k` goes through the boundary kernel: every non-bulk fluid cell, or only the boundary
// ones when the bulk update takes the wall cells.
HOPSIM_HD bool boundaryKernelCell(std::uint8_t k, bool bulkTakesWalls) {
  return k == kCellBoundary || (isWallCell(k) && !bulkTakesWalls);
}

// `wrapped`: the inlet and outlet faces whose ghost values the face pass writes into the opposite face's cells
// (openWrapFaces(), wrapOpenGhosts()); a link across such a face alone pulls its wrapped neighbour as a bulk link.
template <class L, class T, class Index>
HOPSIM_HD std::uint8_t classifyCell(const DomainParams<T>& p, const std::uint8_t* flags, const CellCursor<Index>& c,
                                    unsigned wrapped = 0) {
  if (flags[c.self] != kFluid) return kCellSkip;
  bool bulk = true, walls = true, solids = false;
HOPSIM_UNROLL
  for (int i = 1; i < L::Q; ++i) {
    const unsigned crossed = c.template crossed<L>(i, -1);
    bool moving;
    if (crossed & ~wrapped) {
      bulk = false;
      walls = walls && wallOfLink(p, static_cast<int>(crossed), moving) >= 0;
    } else if (crossed) {
      continue;
    } else if (flags[static_cast<Index>(c.self + c.template offset<L>(i, -1))] != kFluid) {
      bulk = false;
      solids = true;
    }
  }
  if (bulk) return kCellBulk;
  if (!walls) return kCellBoundary;
  return solids ? kCellWallSolid : kCellWall;
}

// Momentum exchanged with obstacles by one cell: kept in registers and added to the per-obstacle totals once per
// obstacle the cell touches, not once per link.
template <class L, class T>
struct ForceTally {
  double* out;  // 3 per obstacle; null: forces are not wanted this step
  int obstacle = -1;
  double m[3] = {0, 0, 0};

  HOPSIM_HD void add(int ob, int i, T momentum) {
    if (!out) return;
    if (ob != obstacle) {
      flush();
      obstacle = ob;
    }
    m[0] -= double(L::c(i, 0)) * double(momentum);
    m[1] -= double(L::c(i, 1)) * double(momentum);
    m[2] -= double(L::c(i, 2)) * double(momentum);
  }
  HOPSIM_HD void flush() {
    if (obstacle < 0) return;
    for (int a = 0; a < 3; ++a) {
#if defined(__CUDA_ARCH__)
      atomicAdd(out + 3 * obstacle + a, m[a]);
#else
      out[3 * obstacle + a] += m[a];
#endif
      m[a] = 0;
    }
    obstacle = -1;
  }
};

// A cell next to a face or a solid cell, by coordinates (the boundary kernel walks a list of them).
struct BoundaryCell {
  int x, y, z;
};

// What updateBulkCell() and updateCellWithWalls() hand a cell's density and velocity (the collision's, of its
// pre-collision populations) to once its stores are issued: nothing in the plain steps (the call compiles to
// nothing), the observables' sums in a sampled step (ObservablesSink, LbmKernels.cuh).
struct NoSink {
  template <class T>
  HOPSIM_HD void operator()(T, const T*) const {}
};

// Fused pull-stream + collide update of a bulk cell: no flags, no faces, all loads issued before any arithmetic
// so that the latency of the Q independent reads overlaps. Terms: the collision's optional terms (collideWith).
template <class L, int Terms, class Sink = NoSink, class Access, class T, class Index>
HOPSIM_HD void updateBulkCell(const DomainParams<T>& p, const Access& acc, const CellCursor<Index>& c,
                              const Sink& sink = {}) {
  T f[L::Q];
HOPSIM_UNROLL
  for (int i = 0; i < L::Q; ++i) f[i] = acc.pull(i, c);
  T rho, u[3];
  collideWith<L, Terms>(f, p.collision, rho, u);
  const Access out = acc.forgotten();
  const CellCursor<Index> d = c.forgotten();
HOPSIM_UNROLL
  for (int i = 0; i < L::Q; ++i) out.putBulk(i, d, f[i]);
  sink(rho, u);
}

// The links of a wall cell that bounce back (bit i: population i comes back off a wall or a solid cell) and,
// among them, those off a moving wall: gather()'s rules, without its loads. The faces crossed follow from the
// cursor; the neighbours' flags are read only where `solids` (class kCellWallSolid). A link across wrapped inlet or
// outlet faces alone (classifyCell()) keeps its pulled value.
template <class L, class T, class Index>
HOPSIM_HD void wallLinks(const DomainParams<T>& p, const std::uint8_t* flags, const CellCursor<Index>& c, bool solids,
                         unsigned& bounce, unsigned& moving) {
  bounce = 0;
  moving = 0;
HOPSIM_UNROLL
  for (int i = 1; i < L::Q; ++i) {
    const unsigned crossed = c.template crossed<L>(i, -1);
    if (crossed) {
      bool movingWall;
      if (wallOfLink(p, static_cast<int>(crossed), movingWall) < 0) continue;
      bounce |= 1u << i;
      if (movingWall) moving |= 1u << i;
    } else if (solids && flags[static_cast<Index>(c.self + c.template offset<L>(i, -1))] != kFluid) {
      bounce |= 1u << i;
    }
  }
}

// What a moving wall adds to the populations of a wall cell that bounce off it (decoded values), in place.
template <class L, class T, class Index>
HOPSIM_HD void addMovingWallTerms(const DomainParams<T>& p, const CellCursor<Index>& c, unsigned moving, T* f) {
HOPSIM_UNROLL
  for (int i = 1; i < L::Q; ++i) {
    if (!((moving >> i) & 1u)) continue;
    bool movingWall;
    f[i] += movingWallTerm<L>(p.face[wallOfLink(p, static_cast<int>(c.template crossed<L>(i, -1)), movingWall)], i);
  }
}

// The post-collision moments (rho, u) of the fluid cells on the planes of the inlet and outlet faces, computed
// once per step before the cells that read them (storeOpenMoments): a ghost-node link then reads its inner
// neighbour's population and these four values instead of the neighbour's Q populations (for D3Q19, up to five
// links per face cell, 95 loads, one cell per row on an x face). Null `values`: each link builds them itself
// (decomposed boxes, whose face planes reach into ghost layers that the halo fills only later in the step).
// The same pass also stores `ghosts`: the populations of the ghost node outside each fluid face cell that enter the
// box through its face, which then do not depend on the cell that pulls them, so that most ghost links are one load
// (ghostFromFacePass) instead of the inner neighbour's flag, then its population and moments.
template <class T>
struct OpenFaceMoments {
  T* values = nullptr;  // 4 per slot: rho, u[3]
  T* ghosts = nullptr;  // Q per slot, population i of slot s at i * slots + s (entering populations only), or null
  long long first[6] = {-1, -1, -1, -1, -1, -1};  // first slot of each inlet or outlet face's plane, else -1
  long long slots = 0;
  // Set on the values a bulk update keeps for the next step (keepFaceCell()): the axis of the two wrapped faces
  // (openWrapFaces()) whose cells store them as they update; -1 elsewhere.
  int keptAxis = -1;
  // With keptAxis, Q per slot (as `ghosts`): the face cells' own populations that the opposite face's ghost values
  // displace in the state (displacedLink()), for restoreDisplaced().
  T* displaced = nullptr;

  // The plane's axes of `face` (the two other than its normal), lower first.
  HOPSIM_HD static void planeAxes(int face, int& t1, int& t2) {
    const int normal = face >> 1;
    t1 = normal == 0 ? 1 : 0;
    t2 = normal == 2 ? 1 : 2;
  }
  // The slot of the cell at (x, y, z) on the plane of `face` (the plane's axes as planeAxes() orders them).
  HOPSIM_HD long long slot(const DomainParams<T>& p, int face, int x, int y, int z) const {
    const int normal = face >> 1;
    const long long along = normal == 0 ? y : x, across = normal == 2 ? y : z;
    return first[face] + across * (normal == 0 ? p.n[1] : p.n[0]) + along;
  }
  HOPSIM_HD long long slot(const DomainParams<T>& p, int face, const int x[3]) const {
    return slot(p, face, x[0], x[1], x[2]);
  }
};

// Population i of the ghost node g outside the inlet or outlet `face` of the cell `self` at pos: ghostFromInner()
// from its inner neighbour's population (`load(i, cell)`) and the face cells' moments `open`.
template <class L, class Load, class T>
HOPSIM_HD T ghostFromFaceMoments(const DomainParams<T>& p, const std::uint8_t* flags, const Load& load,
                                 const OpenFaceMoments<T>& open, int face, int i, const int g[3], const int pos[3],
                                 long long self) {
  int x0[3];
  const long long inner = ghostInner(p, flags, g, pos, self, x0);
  const T* m = open.values + 4 * open.slot(p, face, x0);
  const T u0[3] = {m[1], m[2], m[3]};
  return ghostFromInner<L>(p, face, i, g, load(i, inner), m[0], u0);
}

// The same population as the face pass stored it (`open.ghosts`), where that does not depend on the pulling cell:
// g lies outside `face` alone and its inner neighbour, the face cell next to it, is fluid. The stored value and that
// cell's flag are loaded together. Elsewhere (a ghost beyond an edge of the face, whose inner neighbour is the
// nearest face cell, or a solid inner neighbour, replaced by the pulling cell): ghostFromFaceMoments().
template <class L, class Load, class T>
HOPSIM_HD T ghostFromFacePass(const DomainParams<T>& p, const std::uint8_t* flags, const Load& load,
                              const OpenFaceMoments<T>& open, int face, int i, const int g[3], const int pos[3],
                              long long self) {
  if (open.ghosts) {
    // Axes picked by compares, not an array indexed by the normal (docs/performance.md, "Ghost values from the face
    // pass": such an array gave every face cell of the bulk kernel's pass the same slot on the H200).
    const int normal = face >> 1, plane = p.facePlane(face);
    const int x0 = normal == 0 ? plane : g[0], y0 = normal == 1 ? plane : g[1], z0 = normal == 2 ? plane : g[2];
    if (x0 >= 0 && x0 < p.n[0] && y0 >= 0 && y0 < p.n[1] && z0 >= 0 && z0 < p.n[2]) {
      const T value = open.ghosts[i * open.slots + open.slot(p, face, x0, y0, z0)];
      if (flags[p.index(x0, y0, z0)] == kFluid) return value;
    }
  }
  return ghostFromFaceMoments<L>(p, flags, load, open, face, i, g, pos, self);
}

// A cell's Q populations as one value: what a function that is not inlined takes and returns, so that the caller's
// array stays in registers (a pointer to it would put it in local memory on every path).
template <class L, class T>
struct CellPopulations {
  T f[L::Q];
};

struct NoGhostSink {
  template <class T>
  HOPSIM_HD void operator()(int, T) const {}
};

// What the face pass stores for the fluid cell at pos on the plane of `face` (slot `slot` of m), from its
// post-collision populations f as the step reads them: its moments, postCollisionMoments() as ghostPopulation()
// computes them, and, where `m.ghosts`, the entering populations of the ghost node outside it, each also handed to
// `onGhost(i, value)`.
template <class L, class T, class OnGhost = NoGhostSink>
HOPSIM_HD void storeFaceValues(const DomainParams<T>& p, const OpenFaceMoments<T>& m, int face, long long slot,
                               const int pos[3], const T* f, const OnGhost& onGhost = {}) {
  T rho, u[3];
  postCollisionMoments<L>(f, p.collision.force, rho, u);
  T* out = m.values + 4 * slot;
  out[0] = rho;
  out[1] = u[0];
  out[2] = u[1];
  out[3] = u[2];
  if (!m.ghosts) return;
  // The ghost node outside this cell: ghostFromInner() with this cell as its inner neighbour, as gather() has it for
  // a link that crosses this face alone. (Axes picked by compares: a lattice table or a small array indexed by a
  // value the compiler does not know is copied to local memory.)
  const int normal = face >> 1, inward = (face & 1) ? -1 : 1;
  const int g[3] = {pos[0] - (normal == 0 ? inward : 0), pos[1] - (normal == 1 ? inward : 0),
                    pos[2] - (normal == 2 ? inward : 0)};
HOPSIM_UNROLL
  for (int i = 1; i < L::Q; ++i) {
    const int along = normal == 0 ? L::c(i, 0) : (normal == 1 ? L::c(i, 1) : L::c(i, 2));
    if (along != inward) continue;
    const T ghost = ghostFromInner<L>(p, face, i, g, f[i], rho, u);
    m.ghosts[i * m.slots + slot] = ghost;
    onGhost(i, ghost);
  }
}

// Whether population i of the cell at pos on the plane of a wrapped face `face` (openWrapFaces()) gives its slot to
// the ghost value of the opposite face's cell: it leaves the box through `face`, and the cell that pulls it through
// the wrap lies in the box (not beyond a wall, where the slot stays the cell's own: its bounce-back reads it).
// wrapOpenGhosts() and keepFaceCell() write the ghost values there; restoreDisplaced() puts the cell's own back.
template <class L, class T>
HOPSIM_HD bool displacedLink(const DomainParams<T>& p, int face, const int pos[3], int i) {
  // Axes picked by compares, as in storeFaceValues().
  const int normal = face >> 1, outward = (face & 1) ? 1 : -1;
  const int along = normal == 0 ? L::c(i, 0) : (normal == 1 ? L::c(i, 1) : L::c(i, 2));
  if (along != outward) return false;
  const auto inside = [&](int a, int at) { return a == normal || p.periodic[a] || (at >= 0 && at < p.n[a]); };
  const int c2 = L::D == 3 ? L::c(i, 2) : 0;
  return inside(0, pos[0] + L::c(i, 0)) && inside(1, pos[1] + L::c(i, 1)) && inside(2, pos[2] + c2);
}

// Whether the bulk update keeps the face values of the cell at pos for the next step (m.keptAxis, keepFaceCell()):
// it lies on the plane of one of the two wrapped faces. (Compares, not p.n indexed by the axis: see above.)
template <class T>
HOPSIM_HD bool onKeptPlane(const DomainParams<T>& p, const OpenFaceMoments<T>& m, const int pos[3]) {
  const int a = m.keptAxis;
  if (a < 0) return false;
  const int at = a == 0 ? pos[0] : (a == 1 ? pos[1] : pos[2]);
  const int last = (a == 0 ? p.n[0] : (a == 1 ? p.n[1] : p.n[2])) - 1;
  return at == 0 || at == last;
}

// The stores of a cell on a plane of m.keptAxis by the bulk update that has just computed its post-collision
// populations `post` (KernelPlan::keepFaces), into the state it writes (`out.dst`) and the face buffers of that state
// (`m`): its populations, except those the opposite face's ghost values displace (displacedLink()), which go to
// `m.displaced`; the face pass's values for it (storeFaceValues(), with each population first rounded to the stored
// type and back, as the face pass would read it: bitwise the face pass's); and its ghost values into the opposite
// cell's displaced slots, as wrapOpenGhosts() would write them. So the next step needs neither the face pass nor
// the copy, and the state is the one wrapOpenGhosts() leaves until restoreDisplaced(). Every population's slot is
// written by one cell: the cell's own, or the opposite cell's ghost. The position comes from the cell's index (the
// bulk update keeps no coordinates alive across its collision). Not inlined: only the face cells' lanes pay for it.
template <class L, class S, class T, class Index>
HOPSIM_HD_NOINLINE void keepFaceCell(const DomainParams<T>& p, const OpenFaceMoments<T>& m,
                                     const TwoLatticeStep<L, S, Index> out, Index self, CellPopulations<L, T> post) {
  using Store = PopulationStorage<S>;
  const long long cell = static_cast<long long>(self), nx = p.n[0], nxy = nx * p.n[1];
  const int pos[3] = {static_cast<int>(cell % nx), static_cast<int>(cell % nxy / nx), static_cast<int>(cell / nxy)};
  const int a = m.keptAxis;
  const int face = (a == 0 ? pos[0] : (a == 1 ? pos[1] : pos[2])) == 0 ? 2 * a : 2 * a + 1;
  const long long slot = m.slot(p, face, pos);
  T* f = post.f;
HOPSIM_UNROLL
  for (int i = 0; i < L::Q; ++i) {
    S stored;
    Store::write(&stored, f[i]);
    f[i] = Store::read(&stored);
    if (displacedLink<L>(p, face, pos, i)) m.displaced[i * m.slots + slot] = f[i];
    else *populationSlot(out.dst, i, out.n, self) = stored;
  }
  // The opposite cell displaces population i exactly where it pulls this cell's ghost value (wrapOpenGhosts()).
  const int across[3] = {a == 0 ? p.facePlane(face ^ 1) : pos[0], a == 1 ? p.facePlane(face ^ 1) : pos[1],
                         a == 2 ? p.facePlane(face ^ 1) : pos[2]};
  const Index target = static_cast<Index>(p.index(across[0], across[1], across[2]));
  storeFaceValues<L>(p, m, face, slot, pos, f, [&](int i, T ghost) {
    if (displacedLink<L>(p, face ^ 1, across, i)) Store::write(populationSlot(out.dst, i, out.n, target), ghost);
  });
}

// The links of a boundary cell (class kCellBoundary) in updateCellWithWalls(), given its populations pulled as a bulk
// cell's (`pulled`): gather()'s rules link by link (bounce-back off solid neighbours and walls, a stationary wall
// before a moving one and any wall before an inlet or outlet), the ghost nodes from what the face pass stored
// (ghostFromFacePass). Not inlined: inlined, its registers (five ghost links in flight) made the whole pass spill
// (ptxas, D3Q19 FP32: 68 B of spill stores per thread, on the bulk cells' path too); called, only the boundary
// cells' lanes pay for it.
template <class L, class S, class T, class Index>
HOPSIM_HD_NOINLINE CellPopulations<L, T> boundaryCellLinks(const DomainParams<T>& p, const std::uint8_t* flags,
                                                           const TwoLatticeStep<L, S, Index> acc,
                                                           const CellCursor<Index> c, const OpenFaceMoments<T>& open,
                                                           CellPopulations<L, T> pulled) {
  T* f = pulled.f;
  const auto load = [&](int i, long long cell) { return acc.post(i, static_cast<Index>(cell), c); };
HOPSIM_UNROLL
  for (int i = 1; i < L::Q; ++i) {
    const unsigned crossed = c.template crossed<L>(i, -1);
    const int o = opposite(i);
    if (!crossed) {
      if (flags[static_cast<Index>(c.self + c.template offset<L>(i, -1))] != kFluid) f[i] = acc.post(o, c.self, c);
      continue;
    }
    bool moving = false;
    const int wall = wallOfLink(p, static_cast<int>(crossed), moving);
    if (wall >= 0) {
      T value = acc.post(o, c.self, c);
      if (moving) value += movingWallTerm<L>(p.face[wall], i);
      f[i] = value;
    } else {  // gather()'s ghost node: the position upstream, wrapped on periodic axes; the first face crossed
      int g[3];
      for (int a = 0; a < 3; ++a) {
        g[a] = c.pos[a] - L::c(i, a);
        if (p.periodic[a]) g[a] = g[a] < 0 ? g[a] + p.n[a] : (g[a] >= p.n[a] ? g[a] - p.n[a] : g[a]);
      }
      int face = 0;
      while (!(crossed & (1u << face))) ++face;
      f[i] = ghostFromFacePass<L>(p, flags, load, open, face, i, g, c.pos, static_cast<long long>(c.self));
    }
  }
  return pulled;
}

// The pull-stream + collide update of a bulk or wall cell (class k) with two lattices. Every population is first
// pulled from upstream as in a bulk cell (where the link bounces, the cursor's wrapped offset still names a cell of
// the box, whose value is then discarded), so a warp of bulk cells with a wall cell among them issues its loads
// together; a wall cell then reads its bounced links from its own opposite slots, which its neighbours' loads have
// just brought into the cache. The arithmetic of updateBoundaryCell() for a wall cell (bitwise on the host; nvcc
// may fuse the collision's multiplies and adds differently in the two kernels: round-off) and of updateBulkCell()
// for a bulk one. Faces: boundary cells too (class kCellBoundary, links to inlet or outlet ghost nodes), whose ghost
// links read what this step's face pass stored in `open` (boundaryCellLinks): updateBoundaryCell()'s arithmetic with
// the face cells' moments. Keep: where `keep` names an axis (keepFaceCell()), a cell on its two planes makes its
// stores through keepFaceCell() (a template flag, so that the other callers' code is what it was without it).
template <class L, int Terms, bool Faces = false, class Sink = NoSink, bool Keep = false, class S, class T,
          class Index>
HOPSIM_HD void updateCellWithWalls(const DomainParams<T>& p, const std::uint8_t* flags,
                                   const TwoLatticeStep<L, S, Index>& acc, const CellCursor<Index>& c, std::uint8_t k,
                                   const OpenFaceMoments<T>& open = {}, const Sink& sink = {},
                                   const OpenFaceMoments<T>& keep = {}) {
  T f[L::Q];
HOPSIM_UNROLL
  for (int i = 0; i < L::Q; ++i) f[i] = acc.pull(i, c);
  const bool kept = Keep && onKeptPlane(p, keep, c.pos);
  if (Faces && k == kCellBoundary) {
    CellPopulations<L, T> pulled;
HOPSIM_UNROLL
    for (int i = 0; i < L::Q; ++i) pulled.f[i] = f[i];
    pulled = boundaryCellLinks<L>(p, flags, acc, c, open, pulled);
HOPSIM_UNROLL
    for (int i = 0; i < L::Q; ++i) f[i] = pulled.f[i];
  } else if (k != kCellBulk) {
    unsigned bounce, moving;
    wallLinks<L>(p, flags, c, k == kCellWallSolid, bounce, moving);
HOPSIM_UNROLL
    for (int i = 1; i < L::Q; ++i)
      if ((bounce >> i) & 1u) f[i] = acc.post(opposite(i), c.self, c);
    if (moving) addMovingWallTerms<L>(p, c, moving, f);
  }
  T rho, u[3];
  collideWith<L, Terms>(f, p.collision, rho, u);
  const auto out = acc.forgotten();
  const CellCursor<Index> d = c.forgotten();
  if constexpr (Keep) {
    if (kept) {
      CellPopulations<L, T> post;
HOPSIM_UNROLL
      for (int i = 0; i < L::Q; ++i) post.f[i] = f[i];
      keepFaceCell<L, S>(p, keep, out, d.self, post);
      sink(rho, u);
      return;
    }
  }
HOPSIM_UNROLL
  for (int i = 0; i < L::Q; ++i) out.putBulk(i, d, f[i]);
  sink(rho, u);
}

// Calls launch.template operator()<Terms>() with Terms = collisionTerms(p.collision): the bulk update's
// compile-time choice of collision (see collide()), made once per launch.
template <class T, class Launch>
void withCollisionTerms(const DomainParams<T>& p, Launch&& launch) {
  withTerms(p.collision, launch);
}

// The slots of p's inlet and outlet faces, one per cell of each face's plane (no storage yet).
template <class T>
OpenFaceMoments<T> openFaceLayout(const DomainParams<T>& p) {
  OpenFaceMoments<T> m;
  for (int face = 0; face < 6; ++face) {
    if (!p.isOpen(face)) continue;
    int t1, t2;
    OpenFaceMoments<T>::planeAxes(face, t1, t2);
    m.first[face] = m.slots;
    m.slots += static_cast<long long>(p.n[t1]) * p.n[t2];
  }
  return m;
}

// The face of `slot` in m's layout, and the cell of that face's plane it stands for (x).
template <class T>
HOPSIM_HD int openSlotCell(const DomainParams<T>& p, const OpenFaceMoments<T>& m, long long slot, int x[3]) {
  int face = 0;
  int t1 = 0, t2 = 0;
  for (; face < 6; ++face) {
    if (m.first[face] < 0) continue;
    OpenFaceMoments<T>::planeAxes(face, t1, t2);
    if (slot < m.first[face] + static_cast<long long>(p.n[t1]) * p.n[t2]) break;
  }
  const long long r = slot - m.first[face];
  const int normal = face >> 1;
  x[normal] = p.facePlane(face);
  x[t1] = static_cast<int>(r % p.n[t1]);
  x[t2] = static_cast<int>(r / p.n[t1]);
  return face;
}

// Stores the face pass's values of the cell of `slot` (storeFaceValues(); a fluid cell: other slots are left alone,
// no ghost node reads them) from the post-collision populations a step reads.
template <class L, class S, class T, class Index>
HOPSIM_HD void storeOpenMoments(const DomainParams<T>& p, const std::uint8_t* flags,
                                const TwoLatticeStep<L, S, Index>& acc, const OpenFaceMoments<T>& m, long long slot) {
  int x[3];
  const int face = openSlotCell(p, m, slot, x);
  const auto c = CellCursor<Index>::make(p, x[0], x[1], x[2]);
  if (flags[c.self] != kFluid) return;
  T f[L::Q];
HOPSIM_UNROLL
  for (int i = 0; i < L::Q; ++i) f[i] = acc.post(i, c.self, c);
  storeFaceValues<L>(p, m, face, slot, c.pos, f);
}

// After the face pass of a step (storeOpenMoments(), every slot): the ghost values stored for the cell of `slot`
// written where its neighbours' wrapped pulls read them, the displaced slots of the opposite face's cell
// (displacedLink()), in the populations the step reads (`src`); where `m.displaced`, what they held is kept there
// first (restoreDisplaced() puts it back). Each thread writes the slots of one opposite cell, which no other reads.
template <class L, class S, class T, class Index>
HOPSIM_HD void wrapOpenGhosts(const DomainParams<T>& p, const OpenFaceMoments<T>& m, S* src, Index n, long long slot) {
  int x[3];
  const int face = openSlotCell(p, m, slot, x);
  const int normal = face >> 1, plane = p.facePlane(face ^ 1);
  // The opposite cell by compares, not an array element set by index (see ghostFromFacePass()).
  const int across[3] = {normal == 0 ? plane : x[0], normal == 1 ? plane : x[1], normal == 2 ? plane : x[2]};
  const Index target = static_cast<Index>(p.index(across[0], across[1], across[2]));
  const long long targetSlot = m.slot(p, face ^ 1, across);
HOPSIM_UNROLL
  for (int i = 1; i < L::Q; ++i) {
    if (!displacedLink<L>(p, face ^ 1, across, i)) continue;
    S* s = populationSlot(src, i, n, target);
    if (m.displaced) m.displaced[i * m.slots + targetSlot] = PopulationStorage<S>::read(s);
    PopulationStorage<S>::write(s, m.ghosts[i * m.slots + slot]);
  }
}

// After a step that kept the face values (keepFaceCell()), before anything reads the state as populations (fields,
// observables, checkpoints): the displaced populations of the cell of `slot` put back into the state `f` from
// `m.displaced`, where the opposite face's ghost values took their slots. Bitwise the stores a plain step makes (the
// kept values are the stored ones decoded, and the FP16 scale is a power of two).
template <class L, class S, class T, class Index>
HOPSIM_HD void restoreDisplaced(const DomainParams<T>& p, const OpenFaceMoments<T>& m, S* f, Index n, long long slot) {
  int x[3];
  const int face = openSlotCell(p, m, slot, x);
  const Index self = static_cast<Index>(p.index(x[0], x[1], x[2]));
HOPSIM_UNROLL
  for (int i = 1; i < L::Q; ++i)
    if (displacedLink<L>(p, face, x, i))
      PopulationStorage<S>::write(populationSlot(f, i, n, self), m.displaced[i * m.slots + slot]);
}

// The same for a boundary cell, through the shared gather(): bounce-back, moving walls, inlet/outlet ghost nodes
// (where the layout allows them; from `open` where it holds the face cells' moments) and momentum exchange with
// obstacles when `forces` is not null. Curved: a curved cell, whose links with wall distances q[i] != 0 then bounce
// off the obstacle's surface (interpolatedLinks(); two lattices only: such a link may read the cells downstream,
// which the in-place layout does not allow).
template <class L, bool Curved = false, class Access, class T, class Index>
HOPSIM_HD void updateBoundaryCell(const DomainParams<T>& p, const std::uint8_t* flags, const Access& acc,
                                  const CellCursor<Index>& c, double* forces, const OpenFaceMoments<T>& open,
                                  const T* q = nullptr) {
  T f[L::Q];
  const auto load = [&](int i, long long cell) { return acc.post(i, static_cast<Index>(cell), c); };
  ForceTally<L, T> tally{forces};
  const auto onLink = [&](int ob, int i, T m) {
    if constexpr (Curved) {
      if (q[i] != T(0)) return;  // credited by interpolatedLinks()
    }
    tally.add(ob, i, m);
  };
  const int pos[3] = {c.pos[0], c.pos[1], c.pos[2]};
  const auto self = static_cast<long long>(c.self);
  const auto ghost = [&](int face, int i, const int g[3]) {
    if (!open.values) return ghostPopulation<L>(p, flags, load, face, i, g, pos, self);
    return ghostFromFacePass<L>(p, flags, load, open, face, i, g, pos, self);
  };
  gather<L, true, Access::kOpenFaces>(p, flags, load, pos[0], pos[1], pos[2], self, f, onLink, ghost);
  if constexpr (Curved) {
    static_assert(IsTwoLattice<Access>::value, "interpolated bounce-back reads downstream cells: two lattices only");
    const auto credit = [&](int ob, int i, T m) { tally.add(ob, i, m); };
    interpolatedLinks<L, true>(p, flags, load, pos, self, q, f, credit);
  }
  tally.flush();
  T rho, u[3];
  collide<L>(f, p.collision, rho, u);
HOPSIM_UNROLL
  for (int i = 0; i < L::Q; ++i) acc.put(i, c, f[i]);
}

// Initial populations of a cell: the equilibrium of (rho, u), with u shifted by F/(2 rho) so that the moments
// give back u exactly (the CPU backend's convention).
template <class L, class View, class T, class Index>
HOPSIM_HD void initCell(const DomainParams<T>& p, const View& view, const CellCursor<Index>& c, T rho, const T u0[3]) {
  T u[3];
  for (int a = 0; a < 3; ++a) u[a] = u0[a] + T(0.5) * p.collision.force[a] / rho;
HOPSIM_UNROLL
  for (int i = 0; i < L::Q; ++i) view.write(i, c, equilibriumShifted<L>(i, rho - T(1), rho, u));
}

// Density deviation, density and velocity of a cell's current post-collision populations.
template <class L, class View, class T, class Index>
HOPSIM_HD void cellMoments(const DomainParams<T>& p, const View& view, const CellCursor<Index>& c, T& drho, T& rho,
                           T u[3]) {
  T f[L::Q];
HOPSIM_UNROLL
  for (int i = 0; i < L::Q; ++i) f[i] = view.read(i, c);
  postCollisionMoments<L>(f, p.collision.force, rho, u);
  // Summing rho - 1 keeps the mass balance accurate to round-off of the deviations, not of 1 (as the CPU does).
  drho = T(0);
HOPSIM_UNROLL
  for (int i = 0; i < L::Q; ++i) drho += f[i];
}

}  // namespace hopsim::lbm
