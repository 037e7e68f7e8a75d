// Decomposed CPU MD engine: the velocity-Verlet step of the single-rank CPU engine, over owned atoms and ghosts.
//
// Differences from the single-rank engine, and why:
// - Owned atoms are not wrapped into the box every step, only at rebuilds (then they migrate): an atom that
//   crossed the box end between rebuilds must stay next to the ghosts its neighbours sent.
// - Full neighbour list over owned atoms only (every pair once per owning side): forces on owned atoms need no
//   reverse communication of ghost forces, and each rank's energy and virial are half its pair sums, as on one rank.
// - Every decision that changes control flow (rebuild, stop on infinite forces) is taken from an allreduce, so the
//   ranks never diverge; a non-finite force is acted on at the next step's rebuild check.
#include "solvers/md/DomainMdEngine.h"

#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <fmt/format.h>
#include <stdexcept>

#include "kernels/common/ThreadSums.h"
#include "kernels/md/LjForce.h"
#include "kernels/md/PeriodicBox.h"
#include "kernels/md/cpu/CpuNeighborList.h"
#include "kernels/md/cpu/HostVerlet.h"
#include "kernels/md/cpu/PairBatch.h"
#include "solvers/md/AtomExchange.h"
#include "solvers/md/DomainAtoms.h"
#include "core/md/LocalAtoms.h"
#include "kernels/md/VelocityInit.h"

namespace hopsim::md {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

template <class S, class P>
class DomainMdEngine final : public MdEngine {
 public:
  DomainMdEngine(const EngineConfig& c, const Decomposition& d, const mpi::Comm& comm)
      : config_(c), decomp_(d), comm_(comm), exchange_(d, comm, interactionRange(c.lj, c.skin)),
        verlet_(c.integrator, c.skin) {
    coeff_ = makeLjCoefficients<P>(c.lj.epsilon, c.lj.sigma, c.lj.cutoff, c.lj.shift);
    const double range = interactionRange(c.lj, c.skin);
    const GhostRegion region = ghostRegion(d, range);
    list_.setRegion(region.lo, region.hi, range);
  }

  void initialize(const ParticleState& s) override {
    // Every rank holds the whole initial state (it built it from the case) and keeps what its sub-box owns.
    nGlobal_ = s.size();
    mass_ = s.mass;
    box_ = s.box.length;
    takeOwned(s, decomp_, atoms_);
    rebuild();
    computeForces(true);
    verlet_.start(mass_, degreesOfFreedom(nGlobal_), comm_.allreduceSum(localTwoKinetic()));
  }

  void advance(long long steps, long long firstStep) override {
    std::vector<double> flags(2);
    for (long long k = 0; k < steps; ++k) {
      const long long step = firstStep + k + 1;
      const bool last = k + 1 == steps;
      auto t0 = Clock::now();
      const bool moved = verlet_.template firstHalf<Boundary::Ghosts>(atoms(), box_);
      stats_.integrateSeconds += since(t0);
      // One allreduce answers both "does anyone need a rebuild" and "did anyone see infinite forces last step".
      t0 = Clock::now();
      flags[0] = moved ? 1 : 0, flags[1] = badForces_ ? 1 : 0;
      comm_.allreduceMax(flags);
      stats_.commSeconds += since(t0);
      if (flags[1] > 0) break;  // thermo() reports it; the caller stops
      if (flags[0] > 0) rebuild();
      else forwardGhosts();
      computeForces(last);
      t0 = Clock::now();
      // atoms() again: a rebuild reorders and reallocates the arrays, and migration changes the count.
      verlet_.secondHalf(atoms(), static_cast<std::uint64_t>(step), [this](double twoKe) {
        return comm_.allreduceSum(twoKe);
      });
      stats_.integrateSeconds += since(t0);
    }
  }

  RawThermo thermo() override {
    RawThermo local;
    local.potential = potential_;
    local.virial = virial_;
    local.twoKinetic = localTwoKinetic();
    local.finite = energyFinite_ && !badForces_;
    return sumOverRanks(local, comm_);
  }

  void download(ParticleState& s) override { gatherAtoms(atoms_, comm_, mass_, box_, s); }

  void forces(std::vector<double>& fx, std::vector<double>& fy, std::vector<double>& fz) override {
    std::vector<double> local(3 * atoms_.owned);
    for (std::size_t i = 0; i < atoms_.owned; ++i)
      local[3 * i] = double(fx_[i]), local[3 * i + 1] = double(fy_[i]), local[3 * i + 2] = double(fz_[i]);
    gatherForces(local, comm_, fx, fy, fz);
  }

  EngineStats stats() const override {
    EngineStats s = stats_;
    double sum = 0, mx = 0;
    for (int c : list_.counts()) sum += c, mx = std::max<double>(mx, c);
    s.meanNeighbors = atoms_.owned ? sum / double(atoms_.owned) : 0;
    s.maxNeighbors = mx;
    s.ownedAtoms = static_cast<long long>(atoms_.owned);
    return s;
  }

  void saveState(EngineState& st) override {
    st.box.length = box_;
    st.mass = mass_;
    st.atomsInAll = nGlobal_;
    const std::size_t n = atoms_.owned;
    const auto put = [n](std::vector<double>& to, const std::vector<S>& from) {
      to.assign(from.begin(), from.begin() + static_cast<std::ptrdiff_t>(n));
    };
    put(st.x, atoms_.x), put(st.y, atoms_.y), put(st.z, atoms_.z), put(st.x0, x0_), put(st.y0, y0_), put(st.z0, z0_);
    put(st.vx, atoms_.vx), put(st.vy, atoms_.vy), put(st.vz, atoms_.vz), put(st.fx, fx_), put(st.fy, fy_);
    put(st.fz, fz_);
    st.id = atoms_.id;
    st.potential = potential_;
    st.virial = virial_;
    st.twoKinetic = localTwoKinetic();
    st.nhXi = verlet_.noseHooverXi();
    st.nhTwoKinetic = verlet_.runTwoKinetic();
  }

  // The rebuild that made the saved list, replayed: the owned atoms where they stood then (x0, as wrapped and
  // migrated), the same ghosts from every rank's borders() over them, the list over both; then the owned atoms move
  // to where they are now and forward() brings the ghosts there, as every step since that rebuild did. No migration
  // or sort: the saved order is the one they left.
  void restoreState(const EngineState& st) override {
    nGlobal_ = st.atomsInAll;
    mass_ = st.mass;
    box_ = st.box.length;
    atoms_.clear();
    for (std::size_t i = 0; i < st.size(); ++i)
      atoms_.pushOwned(S(st.x0[i]), S(st.y0[i]), S(st.z0[i]), S(st.vx[i]), S(st.vy[i]), S(st.vz[i]), st.id[i]);
    exchange_.borders(atoms_);
    list_.build(atoms_.x.data(), atoms_.y.data(), atoms_.z.data(), atoms_.owned, atoms_.total());
    const std::size_t n = atoms_.owned;
    x0_.assign(atoms_.x.begin(), atoms_.x.begin() + static_cast<std::ptrdiff_t>(n));
    y0_.assign(atoms_.y.begin(), atoms_.y.begin() + static_cast<std::ptrdiff_t>(n));
    z0_.assign(atoms_.z.begin(), atoms_.z.begin() + static_cast<std::ptrdiff_t>(n));
    for (std::size_t i = 0; i < n; ++i) atoms_.x[i] = S(st.x[i]), atoms_.y[i] = S(st.y[i]), atoms_.z[i] = S(st.z[i]);
    exchange_.forward(atoms_);
    const auto take = [](std::vector<S>& to, const std::vector<double>& from) { to.assign(from.begin(), from.end()); };
    take(fx_, st.fx), take(fy_, st.fy), take(fz_, st.fz);
    potential_ = st.potential;
    virial_ = st.virial;
    energyFinite_ = std::isfinite(potential_) && std::isfinite(virial_);
    badForces_ = false;
    verlet_.start(mass_, degreesOfFreedom(nGlobal_), st.nhTwoKinetic);
    verlet_.restore(st.nhXi, st.nhTwoKinetic);
  }

  std::string backendName() const override {
    const auto& g = decomp_.dims();
    return fmt::format("cpu ({} OpenMP threads) x {} MPI ranks ({}x{}x{})", omp_get_max_threads(), decomp_.size(),
                       g[0], g[1], g[2]);
  }

 private:
  // The owned atoms (ghosts follow them in the position arrays, read by the force loop only).
  HostAtoms<S> atoms() {
    return {atoms_.owned, atoms_.x.data(), atoms_.y.data(), atoms_.z.data(), atoms_.vx.data(), atoms_.vy.data(),
            atoms_.vz.data(), fx_.data(), fy_.data(), fz_.data(), x0_.data(), y0_.data(), z0_.data(),
            atoms_.id.data()};
  }

  double localTwoKinetic() { return mass_ * sumSquaredVelocities(atoms()); }

  // Wrap, migrate, sort by cell, send ghosts, build the list: the only place atoms change rank.
  void rebuild() {
    const auto t0 = Clock::now();
    stats_.migratedAtoms += wrapAndMigrate(atoms_, exchange_, comm_, box_, nGlobal_);
    reorderOwned(atoms_, list_.sortOrder(atoms_.x.data(), atoms_.y.data(), atoms_.z.data(), atoms_.owned), scratch_,
                 scratchId_);
    exchange_.borders(atoms_);
    list_.build(atoms_.x.data(), atoms_.y.data(), atoms_.z.data(), atoms_.owned, atoms_.total());
    const std::size_t n = atoms_.owned;
    x0_.assign(atoms_.x.begin(), atoms_.x.begin() + n);
    y0_.assign(atoms_.y.begin(), atoms_.y.begin() + n);
    z0_.assign(atoms_.z.begin(), atoms_.z.begin() + n);
    for (auto* f : {&fx_, &fy_, &fz_}) f->resize(n);
    ++stats_.neighborBuilds;
    stats_.neighborSeconds += since(t0);
  }

  void forwardGhosts() {
    const auto t0 = Clock::now();
    exchange_.forward(atoms_);
    stats_.commSeconds += since(t0);
  }

  void computeForces(bool energy) {
    const auto t0 = Clock::now();
    const LjCoefficients<P> c = coeff_;
    const S* x = atoms_.x.data();
    const S* y = atoms_.y.data();
    const S* z = atoms_.z.data();
    ThreadSums<2> sums;  // energy and virial, added in thread order (ThreadSums.h)
    int bad = 0;
    const std::size_t n = atoms_.owned;
#pragma omp parallel reduction(max : bad)
    {
      double pe = 0, vir = 0;
      PairBuffers<P> b(static_cast<std::size_t>(list_.stride()));
#pragma omp for schedule(static)
      for (std::size_t i = 0; i < n; ++i) {
        const std::int32_t* nb = list_.neighbors(i);
        const int m = list_.count(i);
        // The pair forces as vector loops (ghosts carry their image shift), then summed in list order.
        if (energy) pairBatch<true>(x[i], y[i], z[i], x, y, z, nb, m, c, b);
        else pairBatch<false>(x[i], y[i], z[i], x, y, z, nb, m, c, b);
        P fx = 0, fy = 0, fz = 0;
        double e = 0, w = 0;
        for (int k = 0; k < m; ++k) fx += b.x[k], fy += b.y[k], fz += b.z[k];
        if (energy)
          for (int k = 0; k < m; ++k) e += double(b.energy[k]), w += double(b.virial[k]);
        fx_[i] = S(fx), fy_[i] = S(fy), fz_[i] = S(fz);
        if (!std::isfinite(fx_[i]) || !std::isfinite(fy_[i]) || !std::isfinite(fz_[i])) bad = 1;
        pe += 0.5 * e;
        vir += 0.5 * w;
      }
      sums.put({pe, vir});
    }
    const double pe = sums.total(0), vir = sums.total(1);
    if (energy) {
      potential_ = pe;
      virial_ = vir;
      energyFinite_ = std::isfinite(pe) && std::isfinite(vir);
    }
    badForces_ = bad != 0;
    stats_.forceSeconds += since(t0);
  }

  EngineConfig config_;
  Decomposition decomp_;
  mpi::Comm comm_;
  AtomExchange<S> exchange_;
  HostVerlet<S> verlet_;
  LjCoefficients<P> coeff_;
  std::size_t nGlobal_ = 0;
  double mass_ = 1;
  std::array<double, 3> box_{};
  LocalAtoms<S> atoms_;
  std::vector<S> scratch_;  // reorderOwned()'s spare buffers
  std::vector<long long> scratchId_;
  std::vector<S> fx_, fy_, fz_, x0_, y0_, z0_;
  CpuNeighborList<S, Boundary::Ghosts> list_;
  double potential_ = 0, virial_ = 0;
  bool energyFinite_ = true, badForces_ = false;
  EngineStats stats_;
};

}  // namespace

std::unique_ptr<MdEngine> makeDomainEngine(const EngineConfig& config, const Decomposition& decomposition,
                                           const mpi::Comm& comm) {
  switch (config.precision) {
    case Precision::Single: return std::make_unique<DomainMdEngine<float, float>>(config, decomposition, comm);
    case Precision::Mixed: return std::make_unique<DomainMdEngine<double, float>>(config, decomposition, comm);
    case Precision::Double: return std::make_unique<DomainMdEngine<double, double>>(config, decomposition, comm);
  }
  throw std::logic_error("unknown precision");
}

}  // namespace hopsim::md
