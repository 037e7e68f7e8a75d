// Lattice, precision and population-layout choices, shared by the case description, the device plan and the backends.
#pragma once

namespace hopsim::lbm {

enum class LatticeKind { D2Q9, D3Q19, D3Q27 };
enum class Precision { Single, Double, Half };  // Half: FP16 storage, FP32 arithmetic

// FP16 storage keeps each shifted population times this power of two (exact both ways), on every backend alike.
// Shifted populations of low-Mach flows are O(w (drho + 3 c.u)) ~ 1e-3..1e-1; scaling by 2^12 keeps values up to 16
// below FP16's maximum (65504) and moves the subnormal range (below 6.1e-5) down to 1.5e-8, so rounding stays
// relative (2^-11) for every population that matters.
inline constexpr float kHalfStorageScale = 4096.0f;

// Populations per cell of a lattice, and the bytes one population takes in storage.
inline int populationCount(LatticeKind l) { return l == LatticeKind::D2Q9 ? 9 : l == LatticeKind::D3Q19 ? 19 : 27; }
inline int storageBytes(Precision p) { return p == Precision::Double ? 8 : p == Precision::Single ? 4 : 2; }

// How populations are kept between steps. TwoLattice: read one array, write the other. InPlace: one array updated
// in place (the AA pattern), half the memory; it cannot do inlet/outlet faces, which fall back to two lattices.
// Auto: the backend's fastest for the case (the device plan resolves it).
enum class StreamingLayout { Auto, TwoLattice, InPlace };

inline const char* toString(StreamingLayout l) {
  switch (l) {
    case StreamingLayout::Auto: return "auto";
    case StreamingLayout::TwoLattice: return "two-lattice";
    case StreamingLayout::InPlace: return "in-place";
  }
  return "?";
}

}  // namespace hopsim::lbm
