// The CUDA backend's per-cell code (kernels/lbm/cuda/CellUpdate.cuh) driven by plain host loops: checks the
// in-place AA layout, the bulk/boundary split, the wall cells in the bulk pass (wallsInBulk, two lattices), the
// inlet and outlet face cells' moments and ghost-node populations computed once per step (openMoments, two
// lattices; on by default here) and those cells in the bulk pass too (openInBulk, with both of the former; or as
// bulk and wall cells, their ghost values wrapped into the opposite face: openWrap, and with the wall cells in the
// bulk pass their face values kept by the step before instead of a face pass: keepFaces), the curved cells of
// interpolated bounce-back (two lattices) and FP16 storage on machines without a GPU. A slot of the AA array is read
// and written by one cell only, so a sequential sweep computes what the parallel kernel computes.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "kernels/lbm/LbmBackend.h"
#include "kernels/lbm/cuda/CellUpdate.cuh"

namespace hopsim::lbm::testing {

template <class L, class S, class Index = unsigned>
class HostCellUpdateRunner final : public LbmBackend {
  using Store = PopulationStorage<S>;
  using T = typename Store::Arith;

 public:
  HostCellUpdateRunner(const LbmSetup& s, bool inPlace, bool wallsInBulk = false, bool openMoments = true,
                       bool openInBulk = false, bool openWrap = false, bool keepFaces = false)
      : p_(convertDomain<T>(s.domain)), flags_(s.flags), cls_(s.flags.size()), inPlace_(inPlace),
        wallsInBulk_(wallsInBulk && !inPlace), openInBulk_(openInBulk && wallsInBulk_ && openMoments),
        forces_(3 * std::max(1, s.obstacles), 0.0), obstacles_(s.obstacles) {
    const std::size_t n = flags_.size();
    f_[0].assign(L::Q * n, S(0.0f));
    if (!inPlace) f_[1].assign(L::Q * n, S(0.0f));
    if (openMoments && !inPlace) {
      open_ = openFaceLayout(p_);
      openValues_.assign(4 * static_cast<std::size_t>(open_.slots), T(0));
      open_.values = openValues_.data();
      openGhosts_.assign(L::Q * static_cast<std::size_t>(open_.slots), T(0));
      open_.ghosts = openGhosts_.data();
      // As CudaLbm: the ghost values wrapped into the opposite face where the geometry allows it, and a second set
      // of face values where the bulk pass keeps them.
      if (openWrap && !openInBulk_) wrapped_ = openWrapFaces(s);
      keepFaces_ = keepFaces && wrapped_ && wallsInBulk_;
      kept_ = open_;
      if (keepFaces_) {
        keptValues_.assign(openValues_.size(), T(0));
        kept_.values = keptValues_.data();
        keptGhosts_.assign(openGhosts_.size(), T(0));
        kept_.ghosts = keptGhosts_.data();
        open_.keptAxis = kept_.keptAxis = std::countr_zero(wrapped_) / 2;
        for (int q = 0; q < 2; ++q) displaced_[q].assign(openGhosts_.size(), T(0));
        open_.displaced = displaced_[0].data();
        kept_.displaced = displaced_[1].data();
      }
    }
    curvedSlot_.assign(n, -1);
    for (std::size_t k = 0; k < s.curved.cells.size(); ++k) curvedSlot_[s.curved.cells[k]] = static_cast<long long>(k);
    curvedQ_.assign(s.curved.q.begin(), s.curved.q.end());
    if (inPlace && !curvedQ_.empty()) throw std::invalid_argument("interpolated bounce-back needs two lattices");
    forEachCell([&](const CellCursor<Index>& c) {
      // As CudaLbm::listBoundaryCells: the cells with interpolated links are set apart after classification.
      cls_[c.self] = curvedSlot_[c.self] >= 0 ? kCellCurved : classifyCell<L>(p_, flags_.data(), c, wrapped_);
      const T u[3] = {T(s.velocity[3 * c.self]), T(s.velocity[3 * c.self + 1]), T(s.velocity[3 * c.self + 2])};
      initCell<L>(p_, state(), c, T(s.density[c.self]), u);
    });
  }

  std::string name() const override { return "host run of the cuda cell update"; }
  std::string description() const override { return name(); }
  std::string layout() const override { return inPlace_ ? "in-place" : "two-lattice"; }
  double bytesPerCellUpdate() const override { return 2.0 * L::Q * sizeof(S); }

  void advance(long long steps, bool forcesOnLastStep) override {
    for (long long k = 0; k < steps; ++k) {
      const bool forces = forcesOnLastStep && k == steps - 1 && obstacles_ > 0;
      if (forces) std::fill(forces_.begin(), forces_.end(), 0.0);
      double* out = forces ? forces_.data() : nullptr;
      const Index n = static_cast<Index>(flags_.size());
      // As CudaLbm::launchPart: the face cells' moments from the populations this step reads, before its cells,
      // unless the step before kept them (CudaLbm::launchOpenMoments).
      const OpenFaceMoments<T>& open = faceValues(parity_);
      if (keptParity_ != parity_) facePass(open);
      // As CudaLbm::launchOpenMoments: then the ghost values into the populations the step reads, unless the step
      // before left them there.
      if (wrapped_ && !(keptParity_ == parity_ && ghostsIn_))
        for (long long k = 0; k < open.slots; ++k) wrapOpenGhosts<L>(p_, open, f_[parity_].data(), n, k);
      // As CudaLbm::enqueueStep: a step without forces keeps the face values of the state it writes.
      const bool keep = keepFaces_ && !forces;
      forEachCell([&](const CellCursor<Index>& c) {
        const std::uint8_t kind = cls_[c.self];
        // As CudaLbm::enqueueStep: wall cells (and inlet and outlet cells) in the bulk pass except in a step
        // with forces.
        const auto update = [&](const auto& access) {
          if constexpr (IsTwoLattice<std::decay_t<decltype(access)>>::value) {
            if (kind == kCellBoundary && openInBulk_ && !forces) {
              withCollisionTerms(p_, [&]<int Terms>() {
                updateCellWithWalls<L, Terms, true>(p_, flags_.data(), access, c, kind, open);
              });
              return;
            }
            if (keep && (kind == kCellBulk || isWallCell(kind))) {
              withCollisionTerms(p_, [&]<int Terms>() {
                updateCellWithWalls<L, Terms, false, NoSink, true>(p_, flags_.data(), access, c, kind, {}, {},
                                                                   faceValues(parity_ ^ 1));
              });
              return;
            }
            if (isWallCell(kind) && wallsInBulk_ && !forces) {
              withCollisionTerms(p_, [&]<int Terms>() {
                updateCellWithWalls<L, Terms>(p_, flags_.data(), access, c, kind);
              });
              return;
            }
          }
          if (kind == kCellBulk) withCollisionTerms(p_, [&]<int Terms>() { updateBulkCell<L, Terms>(p_, access, c); });
          else if (kind == kCellCurved) updateCurved(access, c, out, open);
          else if (kind != kCellSkip) updateBoundaryCell<L>(p_, flags_.data(), access, c, out, open);
        };
        if (!inPlace_) update(TwoLatticeStep<L, S, Index>{f_[parity_].data(), f_[parity_ ^ 1].data(), n});
        else if (parity_ == 0) update(InPlaceStep<L, S, Index, 0>{f_[0].data(), n});
        else update(InPlaceStep<L, S, Index, 1>{f_[0].data(), n});
      });
      keptParity_ = keep ? parity_ ^ 1 : -1;
      ghostsIn_ = keep;
      parity_ ^= 1;
    }
  }

  // Whether the face values the last step kept for the current state are bitwise what a face pass over it stores
  // (false where that step kept none).
  bool keptValuesAreFacePass() {
    restoreDisplacedPopulations();
    if (keptParity_ != parity_) return false;
    OpenFaceMoments<T> pass = open_;
    std::vector<T> values(openValues_.size(), T(0)), ghosts(openGhosts_.size(), T(0));
    pass.values = values.data();
    pass.ghosts = ghosts.data();
    facePass(pass);
    const OpenFaceMoments<T>& kept = faceValues(parity_);
    return std::memcmp(values.data(), kept.values, values.size() * sizeof(T)) == 0 &&
           std::memcmp(ghosts.data(), kept.ghosts, ghosts.size() * sizeof(T)) == 0;
  }

  void macroscopic(std::vector<double>& rho, std::vector<double>& u) override {
    restoreDisplacedPopulations();
    rho.assign(flags_.size(), 1.0);
    u.assign(3 * flags_.size(), 0.0);
    forEachCell([&](const CellCursor<Index>& c) {
      if (flags_[c.self] != kFluid) return;
      T drho, r, v[3];
      cellMoments<L>(p_, state(), c, drho, r, v);
      rho[c.self] = r;
      for (int a = 0; a < 3; ++a) u[3 * c.self + a] = v[a];
    });
  }

  Observables observables() override {
    restoreDisplacedPopulations();
    double dmass = 0, ke = 0, vmax = 0, fluid = 0;
    forEachCell([&](const CellCursor<Index>& c) {
      if (flags_[c.self] != kFluid) return;
      T drho, r, v[3];
      cellMoments<L>(p_, state(), c, drho, r, v);
      const double u2 = double(v[0]) * v[0] + double(v[1]) * v[1] + double(v[2]) * v[2];
      dmass += double(drho);
      ke += 0.5 * double(r) * u2;
      vmax = std::max(vmax, std::sqrt(u2));
      fluid += 1;
    });
    return {fluid + dmass, ke, vmax};
  }

  // The population array the next step reads (two lattices) or the AA array, as a plain step leaves it.
  const std::vector<S>& populations() {
    restoreDisplacedPopulations();
    return f_[inPlace_ ? 0 : parity_];
  }
  // Whether the last step left its ghost values in the state's displaced slots (keepFaces).
  bool ghostsInState() const { return ghostsIn_; }
  long long cellsOfClass(std::uint8_t kind) const { return std::count(cls_.begin(), cls_.end(), kind); }
  // The cells' classes (classifyCell()), as CudaLbm hands them to its bulk update.
  const std::vector<std::uint8_t>& classes() const { return cls_; }
  unsigned wrappedFaces() const { return wrapped_; }

  std::vector<std::array<double, 3>> obstacleForces() override {
    std::vector<std::array<double, 3>> out(obstacles_);
    for (int k = 0; k < obstacles_; ++k) out[k] = {forces_[3 * k], forces_[3 * k + 1], forces_[3 * k + 2]};
    return out;
  }

 private:
  template <class Fn>
  void forEachCell(Fn&& fn) const {
    for (int z = 0; z < p_.n[2]; ++z)
      for (int y = 0; y < p_.n[1]; ++y)
        for (int x = 0; x < p_.n[0]; ++x) fn(CellCursor<Index>::make(p_, x, y, z));
  }

  // The curved-cell kernel's update (two lattices only; the constructor refuses curved cells in place).
  template <class Access>
  void updateCurved(const Access& access, const CellCursor<Index>& c, double* out, const OpenFaceMoments<T>& open) {
    if constexpr (IsTwoLattice<Access>::value) {
      const T* q = curvedQ_.data() + L::Q * curvedSlot_[c.self];
      updateBoundaryCell<L, true>(p_, flags_.data(), access, c, out, open, q);
    }
  }

  // As CudaLbm::launchFacePass(): the face values of the current state (storeOpenMoments()) into `m`.
  void facePass(const OpenFaceMoments<T>& m) {
    const TwoLatticeStep<L, S, Index> reads{f_[parity_].data(), f_[parity_ ^ 1].data(),
                                            static_cast<Index>(flags_.size())};
    for (long long k = 0; k < m.slots; ++k) storeOpenMoments<L>(p_, flags_.data(), reads, m, k);
  }

  // As CudaLbm::restoreDisplacedPopulations(): the populations the last step's ghost values displaced put back.
  void restoreDisplacedPopulations() {
    if (!ghostsIn_) return;
    const OpenFaceMoments<T>& open = faceValues(parity_);
    for (long long k = 0; k < open.slots; ++k)
      restoreDisplaced<L>(p_, open, f_[parity_].data(), static_cast<Index>(flags_.size()), k);
    ghostsIn_ = false;
  }

  // The face values of the state of `parity` (as CudaLbm::faceValues_): a second set where the bulk pass keeps them.
  const OpenFaceMoments<T>& faceValues(int parity) const { return keepFaces_ && parity == 1 ? kept_ : open_; }

  StateView<L, S, Index> state() const {
    S* a = const_cast<S*>(inPlace_ ? f_[0].data() : f_[parity_].data());
    return {a, static_cast<Index>(flags_.size()), inPlace_ ? parity_ : -1};
  }

  DomainParams<T> p_;
  std::vector<std::uint8_t> flags_, cls_;
  bool inPlace_;
  bool wallsInBulk_;
  bool openInBulk_;
  std::vector<S> f_[2];
  std::vector<double> forces_;
  int obstacles_;
  int parity_ = 0;
  OpenFaceMoments<T> open_;  // no slots: each ghost-node link builds its inner neighbour's moments
  std::vector<T> openValues_, openGhosts_;
  unsigned wrapped_ = 0;  // the faces whose ghost values the face pass wraps (openWrapFaces())
  bool keepFaces_ = false;  // the bulk pass keeps the face values of the state it writes (state 1's in kept_)
  OpenFaceMoments<T> kept_;
  std::vector<T> keptValues_, keptGhosts_, displaced_[2];
  int keptParity_ = -1;    // the state whose face values the last step kept, or -1
  bool ghostsIn_ = false;  // and its ghost values are in that state's displaced slots
  std::vector<long long> curvedSlot_;  // per cell: its index in LbmSetup::curved, or -1
  std::vector<T> curvedQ_;
};

}  // namespace hopsim::lbm::testing
