// Where a step reads and writes populations, for the two-lattice layout and the in-place AA pattern. The physics
// (gather, collide) sees only `post(i, cell)`: the post-collision population i of `cell` from the previous step.
//
// AA pattern (one array A, [i][cell]). After an even number of steps ("state 0") the post-collision population i
// of cell x sits in A[i][x + c_i], already pushed to where it streams to, or reversed in place, A[opp(i)][x], where
// x + c_i is beyond a non-periodic face (no storage there; no cell reads it from there). After an odd number of
// steps ("state 1") it sits in A[opp(i)][x]. An even step reads state 0 (the populations arriving at x are
// A[i][x]) and writes state 1; an odd step reads state 1 (A[opp(i)][x - c_i]) and writes state 0. Each cell reads
// and writes the same slots, so cells never race: a slot belongs to the one cell x with slot A[i][x + c_i].
// Contract with gather(): it calls load(i, cell) with cell = self or cell = the upstream neighbour x - c_i of the
// population i it pulls; the even step relies on that (the ghost nodes of inlets and outlets read other cells'
// full population sets, which is why in-place layouts refuse inlet and outlet faces).
#pragma once

#include <type_traits>

#include "kernels/lbm/Lattice.h"
#include "kernels/lbm/cuda/CellCursor.cuh"
#include "kernels/lbm/cuda/PopulationStorage.cuh"

namespace hopsim::lbm {

template <class S, class Index>
HOPSIM_HD S* populationSlot(S* base, int i, Index n, Index cell) {
  return base + static_cast<Index>(i) * n + cell;
}

// Two lattices: a step reads `src` and writes `dst` (swapped every step).
template <class L, class S, class Index>
struct TwoLatticeStep {
  using T = typename PopulationStorage<S>::Arith;
  using Store = PopulationStorage<S>;
  static constexpr bool kOpenFaces = true;
  const S* __restrict__ src;
  S* __restrict__ dst;
  Index n;
  Index ahead = 0;  // cells to the block whose reads the bulk kernels prefetch into L2 (L2Prefetch.cuh); 0: none

  HOPSIM_HD T post(int i, Index cell, const CellCursor<Index>&) const {
    return Store::read(populationSlot(src, i, n, cell));
  }
  // Population i arriving at a cell whose upstream neighbours are all fluid and inside the box.
  HOPSIM_HD T pull(int i, const CellCursor<Index>& c) const {
    return Store::read(populationSlot(src, i, n, static_cast<Index>(c.self + c.template offset<L>(i, -1))));
  }
  HOPSIM_HD void put(int i, const CellCursor<Index>& c, T v) const { Store::write(populationSlot(dst, i, n, c.self), v); }
  HOPSIM_HD void putBulk(int i, const CellCursor<Index>& c, T v) const { put(i, c, v); }
  HOPSIM_HD TwoLatticeStep forgotten() const {
    TwoLatticeStep a = *this;
    a.dst = forgetValue(static_cast<S*>(a.dst));
    a.n = forgetValue(a.n);
    return a;
  }
};

template <class Access>
struct IsTwoLattice : std::false_type {};
template <class L, class S, class Index>
struct IsTwoLattice<TwoLatticeStep<L, S, Index>> : std::true_type {};

// The slots of the in-place array that hold a cell's post-collision populations in each state.
template <class L, class S, class Index>
struct InPlaceSlots {
  HOPSIM_HD static S* state0(S* a, Index n, int i, const CellCursor<Index>& c) {
    if (c.template leaves<L>(i, +1)) return populationSlot(a, opposite(i), n, c.self);
    return populationSlot(a, i, n, static_cast<Index>(c.self + c.template offset<L>(i, +1)));
  }
  HOPSIM_HD static S* state1(S* a, Index n, int i, Index cell) { return populationSlot(a, opposite(i), n, cell); }
};

// One step of the AA pattern; Parity 0 reads state 0 and writes state 1, Parity 1 the reverse.
template <class L, class S, class Index, int Parity>
struct InPlaceStep {
  using T = typename PopulationStorage<S>::Arith;
  using Store = PopulationStorage<S>;
  using Slots = InPlaceSlots<L, S, Index>;
  static constexpr bool kOpenFaces = false;  // inlet/outlet ghost nodes would read cells being updated in place
  S* a;
  Index n;

  HOPSIM_HD T post(int i, Index cell, const CellCursor<Index>& c) const {
    if constexpr (Parity == 0) {
      // cell is self (bounce-back reads) or the upstream neighbour of population i, whose slot is A[i][self].
      if (cell == c.self) return Store::read(Slots::state0(a, n, i, c));
      return Store::read(populationSlot(a, i, n, c.self));
    } else {
      return Store::read(Slots::state1(a, n, i, cell));
    }
  }
  HOPSIM_HD T pull(int i, const CellCursor<Index>& c) const {
    if constexpr (Parity == 0) return Store::read(populationSlot(a, i, n, c.self));
    else return Store::read(Slots::state1(a, n, i, static_cast<Index>(c.self + c.template offset<L>(i, -1))));
  }
  HOPSIM_HD void put(int i, const CellCursor<Index>& c, T v) const {
    if constexpr (Parity == 0) Store::write(Slots::state1(a, n, i, c.self), v);
    else Store::write(Slots::state0(a, n, i, c), v);
  }
  // put() for a bulk cell: its downstream neighbours are all inside the box (the lattice is symmetric, so the
  // bulk test on upstream cells covers them), so no face test.
  HOPSIM_HD void putBulk(int i, const CellCursor<Index>& c, T v) const {
    if constexpr (Parity == 0) Store::write(Slots::state1(a, n, i, c.self), v);
    else Store::write(populationSlot(a, i, n, static_cast<Index>(c.self + c.template offset<L>(i, +1))), v);
  }
  // A copy whose base and size the compiler must treat as new: the stores go to the slots the loads came from,
  // and without this the compiler keeps all Q load addresses alive across the collision (~40 registers more).
  HOPSIM_HD InPlaceStep forgotten() const {
    InPlaceStep s = *this;
    s.a = forgetValue(s.a);
    s.n = forgetValue(s.n);
    return s;
  }
};

// Read-only view of the current post-collision populations (observables, fields) and their initial writes.
// TwoLattice: state is the array the next step reads; InPlace: state 0 or 1 of the AA array.
template <class L, class S, class Index>
struct StateView {
  using T = typename PopulationStorage<S>::Arith;
  using Store = PopulationStorage<S>;
  S* a;
  Index n;
  int inPlaceState;  // -1: two lattices (a is the current array); 0 or 1: AA state

  HOPSIM_HD S* slot(int i, const CellCursor<Index>& c) const {
    if (inPlaceState == 0) return InPlaceSlots<L, S, Index>::state0(a, n, i, c);
    if (inPlaceState == 1) return InPlaceSlots<L, S, Index>::state1(a, n, i, c.self);
    return populationSlot(a, i, n, c.self);
  }
  HOPSIM_HD T read(int i, const CellCursor<Index>& c) const { return Store::read(slot(i, c)); }
  HOPSIM_HD void write(int i, const CellCursor<Index>& c, T v) const { Store::write(slot(i, c), v); }
};

}  // namespace hopsim::lbm
