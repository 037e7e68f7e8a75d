// Lattice and precision choices, shared by the case description and the backends.
#pragma once

namespace hopsim::lbm {
enum class LatticeKind { D2Q9, D3Q19, D3Q27 };
enum class Precision { Single, Double, Half };  // Half: FP16 storage, FP32 arithmetic (GPU only)
}  // namespace hopsim::lbm
