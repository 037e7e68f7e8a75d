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

#include "kernels/md/Integrate.h"
#include "kernels/md/LjForce.h"
#include "kernels/md/PeriodicBox.h"
#include "kernels/md/cpu/CpuLocalNeighborList.h"
#include "solvers/md/AtomExchange.h"
#include "solvers/md/DomainAtoms.h"
#include "core/md/LocalAtoms.h"
#include "kernels/md/Thermostats.h"
#include "kernels/md/VelocityInit.h"

namespace hopsim::md {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

template <class S, class P>
class DomainMdEngine final : public MdEngine {
 public:
  DomainMdEngine(const EngineConfig& c, const Decomposition& d, const mpi::Comm& comm)
      : config_(c), decomp_(d), comm_(comm), exchange_(d, comm, c.lj.cutoff + c.skin) {
    coeff_ = makeLjCoefficients<P>(c.lj.epsilon, c.lj.sigma, c.lj.cutoff, c.lj.shift);
    const double range = c.lj.cutoff + c.skin;
    std::array<double, 3> lo{}, hi{};
    for (int a = 0; a < 3; ++a) lo[a] = d.subLo(a) - range, hi[a] = d.subHi(a) + range;
    list_.setRegion(lo, hi, range);
  }

  void initialize(const ParticleState& s) override {
    // Every rank holds the whole initial state (it parsed the case) and keeps what its sub-box owns.
    nGlobal_ = s.size();
    mass_ = s.mass;
    box_ = s.box.length;
    takeOwned(s, decomp_, atoms_);
    const auto& in = config_.integrator;
    if (in.type == IntegratorType::Langevin) langevin_ = langevinParams(in, mass_);
    if (in.type == IntegratorType::NoseHoover) nh_ = noseHooverStart(in, degreesOfFreedom(nGlobal_));
    rebuild();
    computeForces(true);
    twoKe_ = comm_.allreduceSum(localTwoKinetic());
  }

  void advance(long long steps, long long firstStep) override {
    const auto& in = config_.integrator;
    const S dt = S(in.dt), dtf = S(0.5 * in.dt / mass_);
    const S trigger = S(0.25 * config_.skin * config_.skin);
    std::vector<double> flags(2);
    for (long long k = 0; k < steps; ++k) {
      const long long step = firstStep + k + 1;
      const bool last = k + 1 == steps;
      auto t0 = Clock::now();
      S scale = 1;
      if (in.type == IntegratorType::NoseHoover) scale = S(noseHooverHalfStep(nh_, twoKe_, in.dt));
      int moved = 0;
      std::size_t n = atoms_.owned;
      S* x = atoms_.x.data();
      S* y = atoms_.y.data();
      S* z = atoms_.z.data();
      S *vx = atoms_.vx.data(), *vy = atoms_.vy.data(), *vz = atoms_.vz.data();
#pragma omp parallel for schedule(static) reduction(max : moved)
      for (std::size_t i = 0; i < n; ++i) {
        vx[i] = vx[i] * scale + dtf * fx_[i];
        vy[i] = vy[i] * scale + dtf * fy_[i];
        vz[i] = vz[i] * scale + dtf * fz_[i];
        x[i] = S(x[i] + dt * vx[i]);
        y[i] = S(y[i] + dt * vy[i]);
        z[i] = S(z[i] + dt * vz[i]);
        const S dx = x[i] - x0_[i], dy = y[i] - y0_[i], dz = z[i] - z0_[i];
        if (!(dx * dx + dy * dy + dz * dz <= trigger)) moved = 1;  // NaN counts as moved
      }
      stats_.integrateSeconds += since(t0);
      // One allreduce answers both "does anyone need a rebuild" and "did anyone see infinite forces last step".
      t0 = Clock::now();
      flags[0] = moved, flags[1] = badForces_ ? 1 : 0;
      comm_.allreduceMax(flags);
      stats_.commSeconds += since(t0);
      if (flags[1] > 0) break;  // thermo() reports it; the caller stops
      if (flags[0] > 0) rebuild();
      else forwardGhosts();
      computeForces(last);
      t0 = Clock::now();
      if (in.type == IntegratorType::Langevin) addLangevin(static_cast<std::uint64_t>(step));
      // A rebuild reorders and reallocates the arrays: fresh pointers, and the count after migration.
      n = atoms_.owned;
      vx = atoms_.vx.data(), vy = atoms_.vy.data(), vz = atoms_.vz.data();
#pragma omp parallel for schedule(static)
      for (std::size_t i = 0; i < n; ++i) {
        vx[i] += dtf * fx_[i];
        vy[i] += dtf * fy_[i];
        vz[i] += dtf * fz_[i];
      }
      if (in.type == IntegratorType::NoseHoover) {
        twoKe_ = comm_.allreduceSum(localTwoKinetic());
        const S s2 = S(noseHooverHalfStep(nh_, twoKe_, in.dt));
#pragma omp parallel for schedule(static)
        for (std::size_t i = 0; i < n; ++i) vx[i] *= s2, vy[i] *= s2, vz[i] *= s2;
        twoKe_ *= double(s2) * double(s2);
      }
      stats_.integrateSeconds += since(t0);
    }
  }

  RawThermo thermo() override {
    std::vector<double> sums{potential_, virial_, localTwoKinetic(), (energyFinite_ && !badForces_) ? 0.0 : 1.0};
    comm_.allreduceSum(sums);
    RawThermo t;
    t.potential = sums[0];
    t.virial = sums[1];
    t.twoKinetic = sums[2];
    t.finite = sums[3] == 0 && std::isfinite(sums[0]) && std::isfinite(sums[1]) && std::isfinite(sums[2]);
    return t;
  }

  void download(ParticleState& s) override { gatherAtoms(atoms_, comm_, mass_, box_, s); }

  void forces(std::vector<double>& fx, std::vector<double>& fy, std::vector<double>& fz) override {
    std::vector<double> local(3 * atoms_.owned);
    for (std::size_t i = 0; i < atoms_.owned; ++i)
      local[3 * i] = double(fx_[i]), local[3 * i + 1] = double(fy_[i]), local[3 * i + 2] = double(fz_[i]);
    const std::vector<double> all = comm_.gather(local);
    const std::size_t m = all.size() / 3;
    fx.resize(m), fy.resize(m), fz.resize(m);
    for (std::size_t i = 0; i < m; ++i) fx[i] = all[3 * i], fy[i] = all[3 * i + 1], fz[i] = all[3 * i + 2];
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

  std::string backendName() const override {
    const auto& g = decomp_.dims();
    return fmt::format("cpu ({} OpenMP threads) x {} MPI ranks ({}x{}x{})", omp_get_max_threads(), decomp_.size(),
                       g[0], g[1], g[2]);
  }

 private:
  double localTwoKinetic() const {
    double sum = 0;
    const std::size_t n = atoms_.owned;
    const S *vx = atoms_.vx.data(), *vy = atoms_.vy.data(), *vz = atoms_.vz.data();
#pragma omp parallel for schedule(static) reduction(+ : sum)
    for (std::size_t i = 0; i < n; ++i) sum += double(vx[i]) * vx[i] + double(vy[i]) * vy[i] + double(vz[i]) * vz[i];
    return mass_ * sum;
  }

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
    double pe = 0, vir = 0;
    int bad = 0;
    const std::size_t n = atoms_.owned;
#pragma omp parallel for schedule(static) reduction(+ : pe, vir) reduction(max : bad)
    for (std::size_t i = 0; i < n; ++i) {
      const S xi = x[i], yi = y[i], zi = z[i];
      PairSums<P, double> sum;
      const std::int32_t* nb = list_.neighbors(i);
      const int m = list_.count(i);
      for (int k = 0; k < m; ++k) {
        const std::int32_t j = nb[k];
        addPair(P(xi - x[j]), P(yi - y[j]), P(zi - z[j]), c, energy, sum);  // ghosts carry their image shift
      }
      fx_[i] = S(sum.fx), fy_[i] = S(sum.fy), fz_[i] = S(sum.fz);
      if (!std::isfinite(fx_[i]) || !std::isfinite(fy_[i]) || !std::isfinite(fz_[i])) bad = 1;
      pe += 0.5 * sum.energy;
      vir += 0.5 * sum.virial;
    }
    if (energy) {
      potential_ = pe;
      virial_ = vir;
      energyFinite_ = std::isfinite(pe) && std::isfinite(vir);
    }
    badForces_ = bad != 0;
    stats_.forceSeconds += since(t0);
  }

  void addLangevin(std::uint64_t step) {
    const LangevinParams p = langevin_;
    const std::size_t n = atoms_.owned;
    const S *vx = atoms_.vx.data(), *vy = atoms_.vy.data(), *vz = atoms_.vz.data();
    const long long* id = atoms_.id.data();
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
      const auto key = static_cast<std::uint64_t>(id[i]);
      fx_[i] += langevinForce(vx[i], p, step, key, 0);
      fy_[i] += langevinForce(vy[i], p, step, key, 1);
      fz_[i] += langevinForce(vz[i], p, step, key, 2);
    }
  }

  EngineConfig config_;
  Decomposition decomp_;
  mpi::Comm comm_;
  AtomExchange<S> exchange_;
  LjCoefficients<P> coeff_;
  LangevinParams langevin_;
  NoseHooverState nh_;
  std::size_t nGlobal_ = 0;
  double mass_ = 1;
  std::array<double, 3> box_{};
  LocalAtoms<S> atoms_;
  std::vector<S> scratch_;  // reorderOwned()'s spare buffers
  std::vector<long long> scratchId_;
  std::vector<S> fx_, fy_, fz_, x0_, y0_, z0_;
  CpuLocalNeighborList<S> list_;
  double potential_ = 0, virial_ = 0;
  bool energyFinite_ = true, badForces_ = false;
  double twoKe_ = 0;
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
