// FP16 storage, two lattices: the bulk update of two cells neighbouring along x by one thread (host and device
// code, so that it is checked against the one-cell update on machines without a GPU; the kernel is in
// HalfPairKernel.cuh).
//
// Why: with FP16 storage a one-cell thread has 19 two-byte loads in flight (D3Q19), half the bytes of the FP32
// kernel at the same occupancy, and the kernel reaches 61% of the copy bandwidth against FP32's 97.6%
// (docs/performance.md). Two cells per thread double the bytes in flight per thread and halve the per-cell cost of
// the index arithmetic, the class test and the store address computations.
//
// Memory accesses for the pair (x, x + 1), x even:
// - populations with c_x = 0: the two cells pull from two neighbouring slots of the same row, x - c and x + 1 - c,
//   which start at an even index when nx is even (every row starts at an even index, and so does every
//   population's plane of n = nx ny nz cells): one aligned 4-byte __half2 load.
// - c_x = +1 or -1: the two slots are x -+ 1 and x + 1 -+ 1, an odd start (or two far-apart slots where the x axis
//   wraps): two 2-byte loads, each through its own cell's cursor, which makes the periodic wrap free of special
//   cases. (An aligned __half2 load plus a shuffle with the neighbouring lane would save one load instruction per
//   such population at the cost of lane-0 and row-end special cases; not done.)
// - stores: one aligned __half2 per population (the destination slots of the pair are x and x + 1).
// With odd nx (Aligned = false) rows start at odd indices every other row: every access is a 2-byte one, still two
// cells' worth of loads in flight per thread.
//
// Only one cell's FP32 populations are live at a time: while cell x collides, cell x + 1's 19 stored values wait
// packed two to a register, and while x + 1 collides, x's 19 results wait the same way (~10 registers more than
// the one-cell update, not 38; ptxas: 80 instead of 64 for D3Q19). Decoding, collide() and encoding are the
// shared ones (PopulationStorage<__half>::decode/encode, Collision.h), so the result is bitwise that of
// updateBulkCell(); a pair where only one cell is bulk updates that cell alone through updateBulkCell() (the
// boundary kernel does the other).
#pragma once

#include <cstring>
#include <type_traits>

#include "kernels/lbm/cuda/CellUpdate.cuh"

namespace hopsim::lbm {

// Whether an access is the two-lattice step over FP16 storage: the only one the pair update handles.
template <class Access>
struct IsHalfTwoLattice : std::false_type {};
template <class L, class Index>
struct IsHalfTwoLattice<TwoLatticeStep<L, __half, Index>> : std::true_type {};

// v as a value the compiler must treat as new (forgetValue on its 32 bits): it stays one packed register. Otherwise
// the compiler sees that the two halves are only ever used apart and keeps each in its own register (29 instead of
// 19 for the loaded values of D3Q19, 96 registers in all instead of 64).
HOPSIM_HD __half2 packed(__half2 v) {
#if defined(__CUDA_ARCH__)
  unsigned bits;
  memcpy(&bits, &v, sizeof bits);
  bits = forgetValue(bits);
  memcpy(&v, &bits, sizeof bits);
#endif
  return v;
}

// Population i of the cells c0 and c1 = c0 + x, pulled from their upstream neighbours, as (low = c0, high = c1).
template <class L, bool Aligned, class Index>
HOPSIM_HD __half2 pullPair(const TwoLatticeStep<L, __half, Index>& acc, int i, const CellCursor<Index>& c0,
                           const CellCursor<Index>& c1) {
  const __half* s0 = populationSlot(acc.src, i, acc.n, static_cast<Index>(c0.self + c0.template offset<L>(i, -1)));
  if (Aligned && L::c(i, 0) == 0) return *reinterpret_cast<const __half2*>(s0);
  const Index s1 = static_cast<Index>(c1.self + c1.template offset<L>(i, -1));
  return __halves2half2(*s0, *populationSlot(acc.src, i, acc.n, s1));
}

// Writes population i of the pair (low half: c0, high half: c0 + x).
template <bool Aligned, class L, class Index>
HOPSIM_HD void putPair(const TwoLatticeStep<L, __half, Index>& acc, int i, Index self, __half2 v) {
  __half* slot = populationSlot(acc.dst, i, acc.n, self);
  if constexpr (Aligned) {
    *reinterpret_cast<__half2*>(slot) = v;
  } else {
    slot[0] = __low2half(v);
    slot[1] = __high2half(v);
  }
}

// The bounced links of the wall cells of a pair (bit i of bounce0 / bounce1: population i of c0 / c1 comes back
// off a wall or a solid cell), read from each cell's own opposite slot into the pulled values.
template <class L, class Index>
HOPSIM_HD void bouncePair(const TwoLatticeStep<L, __half, Index>& acc, Index self0, unsigned bounce0,
                          unsigned bounce1, __half2* h) {
HOPSIM_UNROLL
  for (int i = 1; i < L::Q; ++i) {
    if (!(((bounce0 | bounce1) >> i) & 1u)) continue;
    const __half* own = populationSlot(acc.src, opposite(i), acc.n, self0);
    const __half low = ((bounce0 >> i) & 1u) ? own[0] : __low2half(h[i]);
    const __half high = ((bounce1 >> i) & 1u) ? own[1] : __high2half(h[i]);
    h[i] = __halves2half2(low, high);
  }
}

// Fused pull-stream + collide update of two cells c0 and c1 = c0 + x (c0.pos[0] even when Aligned), each a bulk or
// a wall cell (k0, k1; wall cells as in updateCellWithWalls, with `flags` the cell flags).
template <class L, bool Aligned, int Terms, class Index>
HOPSIM_HD void updateBulkPair(const DomainParams<float>& p, const TwoLatticeStep<L, __half, Index>& acc,
                              const CellCursor<Index>& c0, const CellCursor<Index>& c1, std::uint8_t k0,
                              std::uint8_t k1, const std::uint8_t* flags) {
  using Store = PopulationStorage<__half>;
  constexpr int kWords = (L::Q + 1) / 2;
  __half2 h[L::Q];
  // All loads first: 2 x Q values in flight before any arithmetic (a bounced link's pull reads a cell of the box and
  // is then replaced).
HOPSIM_UNROLL
  for (int i = 0; i < L::Q; ++i) h[i] = pullPair<L, Aligned>(acc, i, c0, c1);
  unsigned moving0 = 0, moving1 = 0;
  if (k0 != kCellBulk || k1 != kCellBulk) {
    unsigned bounce0 = 0, bounce1 = 0;
    if (k0 != kCellBulk) wallLinks<L>(p, flags, c0, k0 == kCellWallSolid, bounce0, moving0);
    if (k1 != kCellBulk) wallLinks<L>(p, flags, c1, k1 == kCellWallSolid, bounce1, moving1);
    bouncePair(acc, c0.self, bounce0, bounce1, h);
  }
  // While one cell collides, the other's Q stored values wait packed two to a register ((Q + 1) / 2 registers).
  __half2 wait[kWords];
HOPSIM_UNROLL
  for (int k = 0; k < kWords; ++k)
    wait[k] = packed(2 * k + 1 < L::Q ? __highs2half2(h[2 * k], h[2 * k + 1]) : __high2half2(h[2 * k]));
  float f[L::Q], rho, u[3];
HOPSIM_UNROLL
  for (int i = 0; i < L::Q; ++i) f[i] = Store::decode(__low2half(h[i]));
  if (moving0) addMovingWallTerms<L>(p, c0, moving0, f);
  collideWith<L, Terms>(f, p.collision, rho, u);
  // Cell c0's results wait the same way; cell c1's inputs come out.
HOPSIM_UNROLL
  for (int k = 0; k < kWords; ++k) {
    const bool two = 2 * k + 1 < L::Q;
    const __half second = two ? Store::encode(f[2 * k + 1]) : __float2half_rn(0.0f);
    const __half2 done = __halves2half2(Store::encode(f[2 * k]), second);
    f[2 * k] = Store::decode(__low2half(wait[k]));
    if (two) f[2 * k + 1] = Store::decode(__high2half(wait[k]));
    wait[k] = packed(done);
  }
  if (moving1) addMovingWallTerms<L>(p, c1, moving1, f);
  collideWith<L, Terms>(f, p.collision, rho, u);
  // Store addresses recomputed from values the compiler must treat as new (see forgetValue): keeping the load
  // addresses alive across the two collisions would cost registers.
  const auto out = acc.forgotten();
  const Index self = forgetValue(c0.self);
HOPSIM_UNROLL
  for (int i = 0; i < L::Q; ++i) {
    const __half first = (i & 1) ? __high2half(wait[i / 2]) : __low2half(wait[i / 2]);
    putPair<Aligned>(out, i, self, __halves2half2(first, Store::encode(f[i])));
  }
}

// What one thread of the pair kernel does: the bulk cells among (x, y, z) and (x + 1, y, z), x even, and their
// wall cells where `wallFlags` (the cell flags) is given. Cells outside the box or of other classes are left alone
// (the boundary kernel updates the fluid ones).
template <class L, bool Aligned, int Terms, class Index>
HOPSIM_HD void updateBulkPairOfThread(const DomainParams<float>& p, const std::uint8_t* cls,
                                      const TwoLatticeStep<L, __half, Index>& acc, int x, int y, int z,
                                      const std::uint8_t* wallFlags) {
  const auto c0 = CellCursor<Index>::make(p, x, y, z);
  const bool hasSecond = x + 1 < p.n[0];
  std::uint8_t k0, k1;
  if (Aligned) {
    // nx even: the pair's two class bytes are one aligned 2-byte word (low byte first).
#if defined(__CUDA_ARCH__)
    const unsigned two = *reinterpret_cast<const unsigned short*>(cls + c0.self);
#else
    unsigned short two;
    memcpy(&two, cls + c0.self, sizeof two);
#endif
    k0 = static_cast<std::uint8_t>(two & 0xFFu);
    k1 = static_cast<std::uint8_t>(two >> 8);
  } else {
    k0 = cls[c0.self];
    k1 = hasSecond ? cls[static_cast<Index>(c0.self + Index(1))] : kCellSkip;
  }
  // Wall cells go in pairs too where the bulk update takes them (wallFlags given).
  const auto pairable = [&](std::uint8_t k) { return k == kCellBulk || (wallFlags && isWallCell(k)); };
  if (pairable(k0) && pairable(k1)) {
    updateBulkPair<L, Aligned, Terms>(p, acc, c0, c0.nextAlongX(p), k0, k1, wallFlags);
    return;
  }
  // Rare (next to boundaries and obstacles, and the last cell of a row of odd length): one cell at a time, one
  // copy of the code.
#if defined(__CUDA_ARCH__)
#pragma unroll 1
#endif
  for (int k = 0; k < 2; ++k) {
    const std::uint8_t kind = k == 0 ? k0 : k1;
    const auto c = k == 0 ? c0 : c0.nextAlongX(p);
    if (kind == kCellBulk) updateBulkCell<L, Terms>(p, acc, c);
    else if (wallFlags && isWallCell(kind)) updateCellWithWalls<L, Terms>(p, wallFlags, acc, c, kind);
  }
}

}  // namespace hopsim::lbm
