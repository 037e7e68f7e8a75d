// What a GPU thread does for its cell, written for host and device alike (so the in-place layout can also be
// checked on a machine without a GPU): classify, stream + collide, initialise, reduce moments.
#pragma once

#include <cstdint>

#include "kernels/lbm/StreamCollide.h"
#include "kernels/lbm/cuda/StreamingAccess.cuh"

namespace hopsim::lbm {

// Per-cell class computed once: bulk cells pull every population from a fluid neighbour inside the box (periodic
// wrap allowed), so they skip the per-direction flag reads and face logic of gather().
enum : std::uint8_t { kCellSkip = 0, kCellBulk = 1, kCellBoundary = 2 };

template <class L, class T, class Index>
HOPSIM_HD std::uint8_t classifyCell(const DomainParams<T>&, const std::uint8_t* flags, const CellCursor<Index>& c) {
  if (flags[c.self] != kFluid) return kCellSkip;
  bool bulk = true;
HOPSIM_UNROLL
  for (int i = 1; i < L::Q; ++i) {
    if (c.template leaves<L>(i, -1)) bulk = false;
    else bulk = bulk && flags[static_cast<Index>(c.self + c.template offset<L>(i, -1))] == kFluid;
  }
  return bulk ? kCellBulk : kCellBoundary;
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

// Fused pull-stream + collide update of a bulk cell: no flags, no faces, all loads issued before any arithmetic
// so that the latency of the Q independent reads overlaps. Forced: with the Guo force terms (collideWith).
template <class L, bool Forced, class Access, class T, class Index>
HOPSIM_HD void updateBulkCell(const DomainParams<T>& p, const Access& acc, const CellCursor<Index>& c) {
  T f[L::Q];
HOPSIM_UNROLL
  for (int i = 0; i < L::Q; ++i) f[i] = acc.pull(i, c);
  T rho, u[3];
  collideWith<L, Forced>(f, p.collision, rho, u);
  const Access out = acc.forgotten();
  const CellCursor<Index> d = c.forgotten();
HOPSIM_UNROLL
  for (int i = 0; i < L::Q; ++i) out.putBulk(i, d, f[i]);
}

// Calls launch.template operator()<Forced>() with Forced = hasBodyForce(p.collision): the bulk update's
// compile-time choice of collision (see collide()), made once per launch.
template <class T, class Launch>
void withForcing(const DomainParams<T>& p, Launch&& launch) {
  if (hasBodyForce(p.collision)) launch.template operator()<true>();
  else launch.template operator()<false>();
}

// The same for a boundary cell, through the shared gather(): bounce-back, moving walls, inlet/outlet ghost nodes
// (where the layout allows them) and momentum exchange with obstacles when `forces` is not null.
template <class L, class Access, class T, class Index>
HOPSIM_HD void updateBoundaryCell(const DomainParams<T>& p, const std::uint8_t* flags, const Access& acc,
                                  const CellCursor<Index>& c, double* forces) {
  T f[L::Q];
  const auto load = [&](int i, long long cell) { return acc.post(i, static_cast<Index>(cell), c); };
  ForceTally<L, T> tally{forces};
  const auto onLink = [&](int ob, int i, T m) { tally.add(ob, i, m); };
  gather<L, true, Access::kOpenFaces>(p, flags, load, c.pos[0], c.pos[1], c.pos[2], static_cast<long long>(c.self),
                                      f, onLink);
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
