// CPU backend: OpenMP loops over the shared per-cell update, two population arrays (read one, write the other).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <stdexcept>

#include "kernels/lbm/Halo.h"
#include "kernels/lbm/LbmBackend.h"
#include "kernels/lbm/StreamCollide.h"

namespace hopsim::lbm {
namespace {

template <class L, class T>
class CpuLbm final : public LbmBackend {
 public:
  explicit CpuLbm(const LbmSetup& s)
      : p_(convertDomain<T>(s.domain)), flags_(s.flags), obstacles_(s.obstacles),
        f_(static_cast<std::size_t>(L::Q) * s.domain.cells), g_(f_.size()), forces_(s.obstacles),
        haloAll_(s.haloAllPopulations) {
    const long long n = p_.cells;
    // Start from the equilibrium of the initial fields, shifted so that the moments give back u exactly.
#pragma omp parallel for schedule(static)
    for (long long c = 0; c < n; ++c) {
      const T rho = static_cast<T>(s.density[c]);
      T u[3];
      for (int a = 0; a < 3; ++a) u[a] = static_cast<T>(s.velocity[3 * c + a]) + T(0.5) * p_.collision.force[a] / rho;
      for (int i = 0; i < L::Q; ++i) f_[i * n + c] = equilibriumShifted<L>(i, rho - T(1), rho, u);
    }
    // Both arrays alike: the slots no step writes (solid cells, populations no halo brings) then hold the same values
    // whichever array is current, so the current array alone is the whole state (savePopulations).
    g_ = f_;
  }

  std::string name() const override { return "cpu"; }
  std::string description() const override {
    return fmt::format("cpu, {} OpenMP threads, {} {}, two lattices", omp_get_max_threads(), L::name,
                       sizeof(T) == 8 ? "double" : "single");
  }

  // The current array f_ as it is in memory: [q][cell] over the box with its ghost layers, in T, each population
  // stored minus its lattice weight (equilibriumShifted). What the other array holds is either written before it is
  // read or the same in both (the constructor).
  std::string populationLayout() const override {
    return fmt::format("cpu {} {} [q][cell] shifted, box with ghosts", L::name, sizeof(T) == 8 ? "double" : "single");
  }
  void savePopulations(std::vector<std::byte>& out) override {
    out.resize(f_.size() * sizeof(T));
    std::memcpy(out.data(), f_.data(), out.size());
  }
  void loadPopulations(std::span<const std::byte> in) override {
    if (in.size() != f_.size() * sizeof(T))
      throw std::invalid_argument(fmt::format("{} bytes of populations for a box that holds {}", in.size(),
                                              f_.size() * sizeof(T)));
    std::memcpy(f_.data(), in.data(), in.size());
  }

  void advance(long long steps, bool forcesOnLastStep) override {
    for (long long s = 0; s < steps; ++s) {
      if (forcesOnLastStep && s == steps - 1) step<true>();
      else step<false>();
    }
  }

  void macroscopic(std::vector<double>& rho, std::vector<double>& u) override {
    const long long n = p_.cells;
    const int ox = p_.ownLo(0), oy = p_.ownLo(1), oz = p_.ownLo(2);
    const int mx = p_.ownHi(0) - ox, my = p_.ownHi(1) - oy, mz = p_.ownHi(2) - oz;
    const long long owned = static_cast<long long>(mx) * my * mz;
    rho.assign(owned, 1.0);
    u.assign(3 * owned, 0.0);
#pragma omp parallel for collapse(2) schedule(static)
    for (int z = 0; z < mz; ++z)
      for (int y = 0; y < my; ++y)
        for (int x = 0; x < mx; ++x) {
          const long long c = p_.index(x + ox, y + oy, z + oz);
          const long long o = (static_cast<long long>(z) * my + y) * mx + x;
          if (flags_[c] != kFluid) continue;
          T f[L::Q], r, v[3];
          for (int i = 0; i < L::Q; ++i) f[i] = f_[i * n + c];
          postCollisionMoments<L>(f, p_.collision.force, r, v);
          rho[o] = r;
          for (int a = 0; a < 3; ++a) u[3 * o + a] = v[a];
        }
  }

  Observables observables() override {
    const long long n = p_.cells;
    double dmass = 0, ke = 0, vmax = 0;
    long long fluid = 0;
#pragma omp parallel for schedule(static) reduction(+ : dmass, ke, fluid) reduction(max : vmax)
    for (long long c = 0; c < n; ++c) {
      if (flags_[c] != kFluid || !ownsIndex(c)) continue;
      T f[L::Q], r, v[3];
      for (int i = 0; i < L::Q; ++i) f[i] = f_[i * n + c];
      postCollisionMoments<L>(f, p_.collision.force, r, v);
      // Summing rho - 1 keeps the mass balance accurate to round-off of the deviations, not of 1.
      T drho = 0;
      for (int i = 0; i < L::Q; ++i) drho += f[i];
      dmass += static_cast<double>(drho);
      const double v2 = double(v[0]) * v[0] + double(v[1]) * v[1] + double(v[2]) * v[2];
      ke += 0.5 * static_cast<double>(r) * v2;
      vmax = std::max(vmax, std::sqrt(v2));
      ++fluid;
    }
    return {static_cast<double>(fluid) + dmass, ke, vmax};
  }

  std::vector<std::array<double, 3>> obstacleForces() override { return forces_; }

  double bytesPerCellUpdate() const override { return 2.0 * L::Q * sizeof(T); }

  std::span<const std::byte> packHalo(int face) override {
    const HaloPlane plane = haloPlane(p_, face, true);
    int pops[L::Q];
    const int count = haloPopulations<L>(face, true, haloAll_, pops);
    std::vector<T>& out = outbox_[face];
    out.resize(static_cast<std::size_t>(count * plane.cells()));
    copyPlane(plane, pops, count, [&](std::size_t k, std::size_t slot) { out[k] = f_[slot]; });
    return std::as_bytes(std::span<const T>(out));
  }

  std::span<std::byte> haloInbox(int face) override {
    int pops[L::Q];
    const int count = haloPopulations<L>(face, false, haloAll_, pops);
    std::vector<T>& in = inbox_[face];
    in.resize(static_cast<std::size_t>(count * haloPlane(p_, face, false).cells()));
    return std::as_writable_bytes(std::span<T>(in));
  }

  void unpackHalo(int face) override {
    const HaloPlane plane = haloPlane(p_, face, false);
    int pops[L::Q];
    const int count = haloPopulations<L>(face, false, haloAll_, pops);
    const std::vector<T>& in = inbox_[face];
    copyPlane(plane, pops, count, [&](std::size_t k, std::size_t slot) { f_[slot] = in[k]; });
  }

 private:
  // Calls move(k, slot) for each population of the plane: k indexes the buffer ([population][plane cell]), slot
  // the current population array.
  template <class Move>
  void copyPlane(const HaloPlane& plane, const int* pops, int count, const Move& move) const {
    const long long cells = plane.cells(), n = p_.cells;
#pragma omp parallel for collapse(2) schedule(static)
    for (int k = 0; k < count; ++k)
      for (long long j = 0; j < cells; ++j)
        move(static_cast<std::size_t>(k * cells + j), static_cast<std::size_t>(pops[k] * n + plane.cell(p_, j)));
  }

  bool ownsIndex(long long c) const {
    const long long nx = p_.n[0], ny = p_.n[1];
    return p_.owns(static_cast<int>(c % nx), static_cast<int>((c / nx) % ny), static_cast<int>(c / (nx * ny)));
  }

  template <bool Forces>
  void step() {
    const long long n = p_.cells;
    const T* in = f_.data();
    T* out = g_.data();
    const std::uint8_t* flags = flags_.data();
    const auto load = [in, n](int i, long long c) { return in[i * n + c]; };
    const int x0 = p_.ownLo(0), x1 = p_.ownHi(0), y0 = p_.ownLo(1), y1 = p_.ownHi(1), z0 = p_.ownLo(2), z1 = p_.ownHi(2);
    const int nob = obstacles_;
    std::vector<double> total(Forces ? 3 * nob : 0, 0.0);
#pragma omp parallel
    {
      std::vector<double> local(Forces ? 3 * nob : 0, 0.0);
      const auto onLink = [&local](int ob, int i, T m) {
        local[3 * ob + 0] -= double(L::c(i, 0)) * m;
        local[3 * ob + 1] -= double(L::c(i, 1)) * m;
        local[3 * ob + 2] -= double(L::c(i, 2)) * m;
      };
#pragma omp for collapse(2) schedule(static)
      for (int z = z0; z < z1; ++z)
        for (int y = y0; y < y1; ++y)
          for (int x = x0; x < x1; ++x) {
            const long long c = p_.index(x, y, z);
            if (flags[c] != kFluid) continue;
            T f[L::Q];
            gather<L, Forces>(p_, flags, load, x, y, z, c, f, onLink);
            T rho, u[3];
            collide<L>(f, p_.collision, rho, u);
            for (int i = 0; i < L::Q; ++i) out[i * n + c] = f[i];
          }
      if constexpr (Forces) {
#pragma omp critical
        for (std::size_t k = 0; k < local.size(); ++k) total[k] += local[k];
      }
    }
    if constexpr (Forces)
      for (int ob = 0; ob < nob; ++ob) forces_[ob] = {total[3 * ob], total[3 * ob + 1], total[3 * ob + 2]};
    std::swap(f_, g_);
  }

  DomainParams<T> p_;
  std::vector<std::uint8_t> flags_;
  int obstacles_;
  std::vector<T> f_, g_;
  std::vector<std::array<double, 3>> forces_;
  bool haloAll_;
  std::vector<T> outbox_[6], inbox_[6];
};

template <class T>
std::unique_ptr<LbmBackend> makeForLattice(const LbmSetup& s) {
  switch (s.lattice) {
    case LatticeKind::D2Q9: return std::make_unique<CpuLbm<D2Q9, T>>(s);
    case LatticeKind::D3Q19: return std::make_unique<CpuLbm<D3Q19, T>>(s);
    case LatticeKind::D3Q27: return std::make_unique<CpuLbm<D3Q27, T>>(s);
  }
  throw std::logic_error("unknown lattice");
}

}  // namespace

std::unique_ptr<LbmBackend> makeCpuBackend(const LbmSetup& s) {
  switch (s.precision) {
    case Precision::Double: return makeForLattice<double>(s);
    case Precision::Single: return makeForLattice<float>(s);
    case Precision::Half: break;
  }
  throw std::runtime_error("precision 'half' (FP16 storage) runs on the cuda backend only");
}

#if !HOPSIM_WITH_CUDA
std::unique_ptr<LbmBackend> makeCudaBackend(const LbmSetup&, const DevicePlan&) {
  throw std::runtime_error("this hopsim was built without CUDA; configure with -DHOPSIM_WITH_CUDA=ON");
}
#endif

}  // namespace hopsim::lbm
