// A cell and the index offsets to its neighbours, wrapped on periodic axes: what the streaming code needs to find
// the cell a population comes from or goes to without a flag or bounds check per direction.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/lbm/BoundaryParams.h"

namespace hopsim::lbm {

// Returns v passed through an empty asm statement on the device: the compiler must treat the result as a new
// value, so addresses derived from it are recomputed (an integer multiply-add each) instead of kept in registers.
template <class V>
HOPSIM_HD V forgetValue(V v) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_pointer_v<V>) {
    auto bits = reinterpret_cast<unsigned long long>(v);
    asm volatile("" : "+l"(bits));
    return reinterpret_cast<V>(bits);
  } else if constexpr (sizeof(V) == 8) {
    asm volatile("" : "+l"(v));
    return v;
  } else {
    asm volatile("" : "+r"(v));
    return v;
  }
#else
  return v;
#endif
}

// Index is 32-bit unsigned where Q x cells fits (cheaper index arithmetic), 64-bit otherwise. Offsets are stored
// as Index too: unsigned wrap-around makes self + offset land on the right cell for negative steps.
template <class Index>
struct CellCursor {
  Index self;
  Index minus[3], plus[3];  // offset to the neighbour at -1 / +1 along each axis (wrapped where periodic)
  unsigned outside;         // bit 2a: the -1 neighbour along a is beyond a non-periodic face; bit 2a+1: the +1 one
  int pos[3];

  template <class T>
  HOPSIM_HD static CellCursor make(const DomainParams<T>& p, int x, int y, int z) {
    CellCursor c;
    c.pos[0] = x;
    c.pos[1] = y;
    c.pos[2] = z;
    c.self = (static_cast<Index>(z) * static_cast<Index>(p.n[1]) + static_cast<Index>(y)) * static_cast<Index>(p.n[0]) +
             static_cast<Index>(x);
    c.outside = 0;
    Index stride = 1;
HOPSIM_UNROLL
    for (int a = 0; a < 3; ++a) {
      const int n = p.n[a], at = c.pos[a];
      const Index span = static_cast<Index>(n - 1) * stride;
      c.minus[a] = at > 0 ? Index(0) - stride : span;
      c.plus[a] = at < n - 1 ? stride : Index(0) - span;
      if (!p.periodic[a]) {
        if (at == 0) c.outside |= 1u << (2 * a);
        if (at == n - 1) c.outside |= 1u << (2 * a + 1);
      }
      stride *= static_cast<Index>(n);
    }
    return c;
  }

  // The cursor of the cell at x + 1 (which must be inside the box), derived from this one: only the x offsets and
  // face bits change, so a thread updating two neighbouring cells shares the y and z work.
  template <class T>
  HOPSIM_HD CellCursor nextAlongX(const DomainParams<T>& p) const {
    CellCursor c = *this;
    const int n = p.n[0], at = pos[0] + 1;
    c.pos[0] = at;
    c.self = self + Index(1);
    c.minus[0] = Index(0) - Index(1);  // at > 0
    c.plus[0] = at < n - 1 ? Index(1) : Index(0) - static_cast<Index>(n - 1);
    c.outside &= ~3u;
    if (!p.periodic[0] && at == n - 1) c.outside |= 2u;
    return c;
  }

  // A copy whose indices the compiler must recompute from (see forgetValue).
  HOPSIM_HD CellCursor forgotten() const {
    CellCursor c = *this;
    c.self = forgetValue(c.self);
    for (int a = 0; a < 3; ++a) {
      c.minus[a] = forgetValue(c.minus[a]);
      c.plus[a] = forgetValue(c.plus[a]);
    }
    return c;
  }

  // Offset from this cell to the cell at x + sign * c_i (sign = +1 downstream, -1 upstream).
  template <class L>
  HOPSIM_HD Index offset(int i, int sign) const {
    Index off = 0;
HOPSIM_UNROLL
    for (int a = 0; a < L::D; ++a) {
      const int c = sign * L::c(i, a);
      if (c > 0) off += plus[a];
      else if (c < 0) off += minus[a];
    }
    return off;
  }

  // The non-periodic faces that the link to x + sign * c_i crosses: bit per face, 2 * axis + side (as `outside`);
  // 0 where that cell lies inside the box or is reached by wrapping.
  template <class L>
  HOPSIM_HD unsigned crossed(int i, int sign) const {
    unsigned mask = 0;
HOPSIM_UNROLL
    for (int a = 0; a < L::D; ++a) {
      const int c = sign * L::c(i, a);
      if (c > 0) mask |= 1u << (2 * a + 1);
      else if (c < 0) mask |= 1u << (2 * a);
    }
    return outside & mask;
  }

  // Whether x + sign * c_i lies beyond a non-periodic face.
  template <class L>
  HOPSIM_HD bool leaves(int i, int sign) const {
    return crossed<L>(i, sign) != 0;
  }
};

}  // namespace hopsim::lbm
