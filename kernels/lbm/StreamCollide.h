// One lattice Boltzmann update of one cell (pull streaming with boundaries, then collision), shared by backends.
//
// Boundary conditions, all applied while pulling population i from the cell upstream, x - c_i:
// - solid cell upstream (obstacle): half-way bounce-back, f_i(x) = f*_opp(i)(x); the link's momentum is
//   credited to the obstacle (momentum exchange).
// - upstream cell outside a wall face: half-way bounce-back with the wall velocity,
//   f_i(x) = f*_opp(i)(x) + 6 w_i rho_w c_i.u_w (rho_w = 1). Where a corner crosses several faces, a stationary
//   wall wins over a moving one, and any wall over an inlet or outlet.
// - upstream cell outside a velocity inlet or pressure outlet: non-equilibrium extrapolation (Guo, Zheng & Shi,
//   Chin. Phys. 2002). The ghost node half a cell outside the face takes the equilibrium of (rho, u) made of the
//   prescribed value and the one extrapolated from its inner neighbour x0, plus x0's non-equilibrium part:
//   f*_i(ghost) = feq_i(rho_g, u_g) + f*_i(x0) - feq_i(rho0, u0). Inlet: u_g prescribed, rho_g = rho0.
//   Outlet: rho_g prescribed, u_g = u0.
#pragma once

#include "kernels/lbm/BoundaryParams.h"

namespace hopsim::lbm {

// Inlet velocity at a ghost node: uniform, or a peak-valued parabola in each non-periodic tangential direction.
template <class T>
HOPSIM_HD void inletVelocity(const DomainParams<T>& p, int face, const int g[3], T u[3]) {
  const FaceParams<T>& fp = p.face[face];
  T scale = T(1);
  if (fp.parabolic) {
    const int normal = face >> 1;
    for (int a = 0; a < 3; ++a) {
      if (a == normal || p.periodic[a]) continue;
      const T L = T(p.global[a]);
      T s = T(g[a] + p.origin[a]) + T(0.5);
      s = s < T(0) ? T(0) : (s > L ? L : s);  // a ghost beyond a corner takes the value on the edge
      scale *= T(4) * s * (L - s) / (L * L);
    }
  }
  u[0] = fp.u[0] * scale;
  u[1] = fp.u[1] * scale;
  u[2] = fp.u[2] * scale;
}

// The inner neighbour of the ghost node g outside an inlet or outlet face: the cell of the box next to it, or the
// pulling cell `self` at `pos` where that one is solid (an obstacle touching the face). Either lies on the face's
// own plane of cells. Returns its index; x0 gets its coordinates.
template <class T>
HOPSIM_HD long long ghostInner(const DomainParams<T>& p, const std::uint8_t* flags, const int g[3], const int pos[3],
                               long long self, int x0[3]) {
  for (int a = 0; a < 3; ++a) {
    x0[a] = g[a];
    if (x0[a] < 0) x0[a] = 0;
    if (x0[a] >= p.n[a]) x0[a] = p.n[a] - 1;
  }
  const long long inner = p.index(x0[0], x0[1], x0[2]);
  if (flags[inner] == kFluid) return inner;
  for (int a = 0; a < 3; ++a) x0[a] = pos[a];
  return self;
}

// Population i of the ghost node g outside `face` from its inner neighbour's post-collision population i (fi) and
// moments (rho0, u0).
template <class L, class T>
HOPSIM_HD T ghostFromInner(const DomainParams<T>& p, int face, int i, const int g[3], T fi, T rho0, const T u0[3]) {
  T rhoG = rho0, uG[3] = {u0[0], u0[1], u0[2]};
  if (p.face[face].type == kFaceVelocityInlet) {
    inletVelocity(p, face, g, uG);
  } else {
    rhoG = p.face[face].rho;
  }
  return equilibriumShifted<L>(i, rhoG - T(1), rhoG, uG) + fi - equilibriumShifted<L>(i, rho0 - T(1), rho0, u0);
}

// Population i of the ghost node g outside an inlet or outlet face (post-collision), from its inner neighbour's
// full population set.
template <class L, class T, class Load>
HOPSIM_HD T ghostPopulation(const DomainParams<T>& p, const std::uint8_t* flags, const Load& load, int face,
                            int i, const int g[3], const int pos[3], long long self) {
  int x0[3];
  const long long inner = ghostInner(p, flags, g, pos, self, x0);
  T f0[L::Q];
HOPSIM_UNROLL
  for (int k = 0; k < L::Q; ++k) f0[k] = load(k, inner);
  T rho0, u0[3];
  postCollisionMoments<L>(f0, p.collision.force, rho0, u0);
  return ghostFromInner<L>(p, face, i, g, f0[i], rho0, u0);
}

// The cell one link from pos, along c_i (sign 1) or -c_i (sign -1), wrapped where the axis is periodic as gather()
// wraps; false when it lies beyond a face of the box that is not.
template <class L, class T>
HOPSIM_HD bool linkNeighbour(const DomainParams<T>& p, const int pos[3], int i, int sign, long long& cell) {
  int s[3];
  for (int a = 0; a < 3; ++a) {
    s[a] = pos[a] + sign * L::c(i, a);
    if (s[a] < 0 || s[a] >= p.n[a]) {
      if (!p.periodic[a]) return false;
      s[a] = s[a] < 0 ? s[a] + p.n[a] : s[a] - p.n[a];
    }
  }
  cell = p.index(s[0], s[1], s[2]);
  return true;
}

// Population i arriving at cell `self` (at pos) over a link whose upstream cell x - c_i is solid, bounced off the
// obstacle's surface at the fraction |q| (0 < |q| <= 1) of the link from the cell's centre: interpolated bounce-back
// (Bouzidi, Firdaouss & Lallemand, Phys. Fluids 13, 3452, 2001), q = 1/2 being half-way bounce-back; o = opposite(i),
// f* post-collision. The population that left x towards the wall comes back to x after one step; its value there is
// interpolated along the link's line from f*_o at x, x + c_i, x + 2 c_i (q < 1/2: it starts between x and x + c_i)
// or from f*_o(x) and f*_i at x and x + c_i (q >= 1/2: it comes back between the wall and x).
//   linear (q > 0), q >= 1/2:     f_i = (f*_o(x) + (2q - 1) f*_i(x)) / 2q
//                   q < 1/2:      f_i = 2q f*_o(x) + (1 - 2q) f*_o(x + c_i)
//   quadratic (q < 0: boundary: quadratic; its distance is -q),
//                   q >= 1/2:     f_i = f*_o(x) / (q (2q + 1)) + (2q - 1) / q f*_i(x)
//                                     + (1 - 2q) / (1 + 2q) f*_i(x + c_i)
//                   q < 1/2:      f_i = q (1 + 2q) f*_o(x) + (1 - 4q^2) f*_o(x + c_i) - q (1 - 2q) f*_o(x + 2 c_i)
// Where the cells they need are not fluid, the quadratic form falls back to the linear one, and the linear one with
// q < 1/2 to half-way bounce-back. Each is a weighted mean (weights summing to 1) of populations of one direction
// pair, which share a weight, so it holds for the shifted populations (f - w) as well.
template <class L, class T, class Load>
HOPSIM_HD T interpolatedBounce(const DomainParams<T>& p, const std::uint8_t* flags, const Load& load, const int pos[3],
                               long long self, int i, T q) {
  const int o = opposite(i);
  const T back = load(o, self);
  long long next = 0;
  const auto fluidAt = [&](int sign, long long& cell) {
    return linkNeighbour<L>(p, pos, i, sign, cell) && flags[cell] == kFluid;
  };
  if (q < T(0)) {
    q = -q;
    if (fluidAt(1, next)) {
      if (q >= T(0.5))
        return back / (q * (T(2) * q + T(1))) + (T(2) * q - T(1)) / q * load(i, self) +
               (T(1) - T(2) * q) / (T(1) + T(2) * q) * load(i, next);
      long long next2;
      if (fluidAt(2, next2))
        return q * (T(1) + T(2) * q) * back + (T(1) - T(4) * q * q) * load(o, next) -
               q * (T(1) - T(2) * q) * load(o, next2);
    }
  }
  if (q >= T(0.5)) return (back + (T(2) * q - T(1)) * load(i, self)) / (T(2) * q);
  if (!fluidAt(1, next)) return back;
  return T(2) * q * back + (T(1) - T(2) * q) * load(o, next);
}

// After gather() for a cell with links into obstacles with interpolated bounce-back (q[i] != 0: the link's wall
// distance, negative for the quadratic form, LbmSetup::curved): replaces what gather() bounced half-way on those
// links by interpolatedBounce() and, when Forces, credits each link's obstacle with the momentum of the populations
// that actually crossed it, onLink(obstacle, i, m) with m = f_i + f*_opp(i)(x) (shifted populations: + 2 w_i), as
// gather() credits a half-way link. The caller passes gather() an onLink that skips the links with q[i] != 0, which
// are credited here instead.
// Shared by the cpu backend and the CUDA curved-cell kernel, so that both compute the same populations.
template <class L, bool Forces, class T, class Load, class Link>
HOPSIM_HD void interpolatedLinks(const DomainParams<T>& p, const std::uint8_t* flags, const Load& load,
                                 const int pos[3], long long self, const T* q, T* f, const Link& onLink) {
  // Unrolled, so that each link's lattice vector is a constant: with a run-time direction nvcc builds the velocity
  // table in local memory at every use (a D3Q27 kernel of 250,000 local stores, and minutes more of ptxas).
HOPSIM_UNROLL
  for (int i = 1; i < L::Q; ++i) {
    if (q[i] == T(0)) continue;
    f[i] = interpolatedBounce<L>(p, flags, load, pos, self, i, q[i]);
    if constexpr (Forces) {
      long long solid = 0;
      linkNeighbour<L>(p, pos, i, -1, solid);
      onLink(flags[solid] - kObstacleBase, i, f[i] + load(opposite(i), self) + T(2) * L::template w<T>(i));
    }
  }
}

// What a moving wall adds to the population i that bounces off it: 6 w_i rho_w c_i.u_w (rho_w = 1). One
// expression shared by gather() and the bulk kernels' wall cells, so that both round it alike.
template <class L, class T>
HOPSIM_HD T movingWallTerm(const FaceParams<T>& fp, int i) {
  return T(6) * L::template w<T>(i) * latticeDot<L>(i, fp.u);
}

// The wall a link that crosses the faces in `crossed` (bit per face, 2 * axis + side) bounces off: the stationary
// wall among them, else the moving one (the last in face order), else -1 (only inlet or outlet faces). Sets
// `moving` when the wall is a moving one.
template <class T>
HOPSIM_HD int wallOfLink(const DomainParams<T>& p, int crossed, bool& moving) {
  int wall = -1, movingFace = -1;
  for (int face = 0; face < 6; ++face) {
    if (!(crossed & (1 << face))) continue;
    const int type = p.face[face].type;
    if (type == kFaceWall) wall = face;
    else if (type == kFaceMovingWall) movingFace = face;
  }
  moving = wall < 0 && movingFace >= 0;
  return wall >= 0 ? wall : movingFace;
}

// Pulls the Q populations arriving at cell (x, y, z). `load(i, cell)` reads stored post-collision population i;
// it is called with cell = self, cell = the upstream neighbour x - c_i of the population i being pulled, or (inlet
// and outlet ghost nodes only) cell = any cell next to the face.
// When Forces is true, `onLink(obstacle, i, m)` is called for each link into an obstacle: the population that hit
// it and the one that came back carry m = f*_opp(i) + f_i, so the obstacle gains momentum -m c_i.
// OpenFaces = false compiles out the inlet/outlet ghost nodes, for callers that never see such faces (the GPU's
// in-place layout): less code, fewer registers. Such a caller must not pass a domain with inlet or outlet faces.
// `ghost(face, i, g)` gives population i of the ghost node g outside the inlet or outlet `face`; the overload
// without it builds each from the inner neighbour's populations (ghostPopulation).
template <class L, bool Forces, bool OpenFaces, class T, class Load, class Link, class Ghost>
HOPSIM_HD void gather(const DomainParams<T>& p, const std::uint8_t* flags, const Load& load, int x, int y, int z,
                      long long self, T* f, const Link& onLink, const Ghost& ghost) {
  const int pos[3] = {x, y, z};
  bool interior = true;  // every upstream cell inside the box: no wrapping, no faces
  for (int a = 0; a < L::D; ++a) interior = interior && pos[a] > 0 && pos[a] < p.n[a] - 1;
  if (interior) {
    const long long sy = p.n[0], sz = static_cast<long long>(p.n[0]) * p.n[1];
HOPSIM_UNROLL
    for (int i = 0; i < L::Q; ++i) {
      const long long src = self - (L::c(i, 0) + sy * L::c(i, 1) + sz * L::c(i, 2));
      const std::uint8_t flag = flags[src];
      if (flag == kFluid) {
        f[i] = load(i, src);
      } else {
        const int o = opposite(i);
        f[i] = load(o, self);
        if constexpr (Forces) {
          if (flag >= kObstacleBase) onLink(flag - kObstacleBase, i, T(2) * (f[i] + L::template w<T>(i)));
        }
      }
    }
    return;
  }
HOPSIM_UNROLL
  for (int i = 0; i < L::Q; ++i) {
    int s[3];
    int crossed = 0;  // bit per face crossed on the way upstream
HOPSIM_UNROLL
    for (int a = 0; a < 3; ++a) {
      s[a] = pos[a] - L::c(i, a);
      if (s[a] < 0) {
        if (p.periodic[a]) s[a] += p.n[a];
        else crossed |= 1 << (2 * a);
      } else if (s[a] >= p.n[a]) {
        if (p.periodic[a]) s[a] -= p.n[a];
        else crossed |= 1 << (2 * a + 1);
      }
    }
    const int o = opposite(i);
    if (crossed == 0) {
      const long long src = p.index(s[0], s[1], s[2]);
      const std::uint8_t flag = flags[src];
      if (flag == kFluid) {
        f[i] = load(i, src);
      } else {
        f[i] = load(o, self);
        if constexpr (Forces) {
          if (flag >= kObstacleBase) onLink(flag - kObstacleBase, i, T(2) * (f[i] + L::template w<T>(i)));
        }
      }
      continue;
    }
    bool moving = false;
    const int wall = wallOfLink(p, crossed, moving);
    if (wall >= 0) {
      T value = load(o, self);
      if (moving) value += movingWallTerm<L>(p.face[wall], i);
      f[i] = value;
    } else if constexpr (OpenFaces) {
      int open = 0;
      while (!(crossed & (1 << open))) ++open;  // the first face crossed: all of them are inlets or outlets
      f[i] = ghost(open, i, s);
    } else {
      f[i] = load(o, self);  // unreachable by contract; bounce-back keeps it defined
    }
  }
}

template <class L, bool Forces, bool OpenFaces = true, class T, class Load, class Link>
HOPSIM_HD void gather(const DomainParams<T>& p, const std::uint8_t* flags, const Load& load, int x, int y, int z,
                      long long self, T* f, const Link& onLink) {
  const int pos[3] = {x, y, z};
  const auto ghost = [&](int face, int i, const int g[3]) {
    return ghostPopulation<L>(p, flags, load, face, i, g, pos, self);
  };
  gather<L, Forces, OpenFaces>(p, flags, load, x, y, z, self, f, onLink, ghost);
}

}  // namespace hopsim::lbm
