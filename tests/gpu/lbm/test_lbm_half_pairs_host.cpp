// The FP16 two-cells-per-thread bulk update (kernels/lbm/cuda/HalfPairUpdate.cuh), wall cells included, run on the
// host against the one-cell update with the wall cells in the boundary kernel: bitwise the same populations after
// every step, for every lattice, collision model, boundary type, even and odd nx, 32-bit indices (and 64-bit ones on
// D3Q19). Runs without a GPU ([unit]); the GPU kernels themselves are compared in test_lbm_cuda_agreement.cpp ([gpu]).
#if HOPSIM_WITH_CUDA
#include <cstring>
#include <vector>

#include "CatchCompat.h"
#include "HalfPairCases.h"
#include "kernels/lbm/cuda/HalfPairUpdate.cuh"

using namespace hopsim::lbm;
using namespace hopsim::lbm::testing;

namespace {

// Two-lattice FP16 state driven like the CUDA backend: bulk cells by the one-cell update or by pairs with the wall
// cells (as the threads of the pair kernel would), then the cells left to the boundary kernel.
template <class L, class Index>
class HalfSweeps {
 public:
  explicit HalfSweeps(const LbmSetup& s) : p_(convertDomain<float>(s.domain)), flags_(s.flags), cls_(s.flags.size()) {
    const std::size_t n = flags_.size();
    for (auto& f : f_) f.assign(L::Q * n, __float2half_rn(0.0f));
    forEachCell([&](const CellCursor<Index>& c) {
      cls_[c.self] = classifyCell<L>(p_, flags_.data(), c);
      const float u[3] = {float(s.velocity[3 * c.self]), float(s.velocity[3 * c.self + 1]),
                          float(s.velocity[3 * c.self + 2])};
      initCell<L>(p_, StateView<L, __half, Index>{f_[0].data(), static_cast<Index>(n), -1}, c,
                  float(s.density[c.self]), u);
    });
  }

  void step(bool pairs) {
    const TwoLatticeStep<L, __half, Index> acc{f_[parity_].data(), f_[parity_ ^ 1].data(),
                                               static_cast<Index>(flags_.size())};
    // As the GPU launches choose it: the bulk update with the collision's terms the case needs (Guo, LES).
    withCollisionTerms(p_, [&]<int Terms>() {
      if (pairs) {
        for (int z = 0; z < p_.n[2]; ++z)
          for (int y = 0; y < p_.n[1]; ++y)
            for (int x = 0; x < p_.n[0]; x += 2) {
              // The pair kernel as launched: wall cells in the bulk pass.
              const std::uint8_t* flags = flags_.data();
              if (p_.n[0] % 2 == 0) updateBulkPairOfThread<L, true, Terms>(p_, cls_.data(), acc, x, y, z, flags);
              else updateBulkPairOfThread<L, false, Terms>(p_, cls_.data(), acc, x, y, z, flags);
            }
      } else {
        forEachCell([&](const CellCursor<Index>& c) {
          if (cls_[c.self] == kCellBulk) updateBulkCell<L, Terms>(p_, acc, c);
        });
      }
    });
    forEachCell([&](const CellCursor<Index>& c) {
      if (boundaryKernelCell(cls_[c.self], pairs))
        updateBoundaryCell<L>(p_, flags_.data(), acc, c, nullptr, OpenFaceMoments<float>{});
    });
    parity_ ^= 1;
  }

  const std::vector<__half>& current() const { return f_[parity_]; }
  long long bulkCells() const {
    long long k = 0;
    for (const auto c : cls_) k += c == kCellBulk;
    return k;
  }

 private:
  template <class Fn>
  void forEachCell(Fn&& fn) const {
    for (int z = 0; z < p_.n[2]; ++z)
      for (int y = 0; y < p_.n[1]; ++y)
        for (int x = 0; x < p_.n[0]; ++x) fn(CellCursor<Index>::make(p_, x, y, z));
  }

  DomainParams<float> p_;
  std::vector<std::uint8_t> flags_, cls_;
  std::vector<__half> f_[2];
  int parity_ = 0;
};

template <class L, class Index>
void checkPairsMatchCells(const LbmSetup& s) {
  HalfSweeps<L, Index> cells(s), pairs(s);
  REQUIRE(cells.bulkCells() > 0);
  for (int k = 0; k < 12; ++k) {
    cells.step(false);
    pairs.step(true);
    const auto& a = cells.current();
    const auto& b = pairs.current();
    INFO("after step " << k + 1);
    REQUIRE(a.size() == b.size());
    REQUIRE(std::memcmp(a.data(), b.data(), a.size() * sizeof(__half)) == 0);
  }
}

template <class Index>
void checkPairsMatchCells(const LbmSetup& s) {
  switch (s.lattice) {
    case LatticeKind::D2Q9: return checkPairsMatchCells<D2Q9, Index>(s);
    case LatticeKind::D3Q19: return checkPairsMatchCells<D3Q19, Index>(s);
    case LatticeKind::D3Q27: return checkPairsMatchCells<D3Q27, Index>(s);
  }
}

}  // namespace

TEST_CASE("FP16 bulk update of two cells per thread is bitwise the one-cell update (host run)",
          "[unit][lbm][cuda-host]") {
  for (const HalfPairCase& c : halfPairCases()) {
    const LbmSetup s = buildSetup(parseCase(c.yaml));
    INFO(c.label);
    checkPairsMatchCells<unsigned>(s);
    // 64-bit indices change the address arithmetic alone, the same for every lattice: D3Q19 stands for all (each
    // instantiation costs CI about 25 s of compilation).
    if (s.lattice == LatticeKind::D3Q19) checkPairsMatchCells<D3Q19, unsigned long long>(s);
  }
}
#endif
