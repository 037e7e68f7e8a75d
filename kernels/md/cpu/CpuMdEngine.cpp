// CPU backend of the MD solver: OpenMP loops over a half neighbour list (each pair once, Newton's third law) with the
// box's images as ghost atoms, templated on storage and pair precision.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <fmt/format.h>
#include <stdexcept>
#include <vector>

#include "kernels/common/ThreadSums.h"
#include "kernels/md/LjForce.h"
#include "kernels/md/PeriodicBox.h"
#include "kernels/md/cpu/HostVerlet.h"
#include "kernels/md/cpu/PairBatch.h"
#include "kernels/md/cpu/PeriodicHalfList.h"
#include "kernels/md/MdEngine.h"
#include "kernels/md/VelocityInit.h"

namespace hopsim::md {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// S: positions, velocities and forces; P: the arithmetic of a pair (float in mixed precision).
template <class S, class P>
class CpuMdEngine final : public MdEngine {
 public:
  explicit CpuMdEngine(const EngineConfig& c) : config_(c), verlet_(c.integrator, c.skin) {
    coeff_ = makeLjCoefficients<P>(c.lj.epsilon, c.lj.sigma, c.lj.cutoff, c.lj.shift);
  }

  void initialize(const ParticleState& s) override {
    n_ = s.size();
    mass_ = s.mass;
    box_ = s.box.length;
    for (auto* a : {&x_, &y_, &z_, &vx_, &vy_, &vz_, &fx_, &fy_, &fz_, &x0_, &y0_, &z0_}) a->resize(n_);
    id_ = s.id;
    for (std::size_t i = 0; i < n_; ++i) {
      x_[i] = S(s.x[i]), y_[i] = S(s.y[i]), z_[i] = S(s.z[i]);
      // Narrowing to float can round a coordinate just below L up to L.
      x_[i] = wrapOnce(x_[i], S(box_[0])), y_[i] = wrapOnce(y_[i], S(box_[1])), z_[i] = wrapOnce(z_[i], S(box_[2]));
      vx_[i] = S(s.vx[i]), vy_[i] = S(s.vy[i]), vz_[i] = S(s.vz[i]);
    }
    list_.setBox(box_, interactionRange(config_.lj, config_.skin));
    rebuild();
    computeForces(true);
    verlet_.start(mass_, degreesOfFreedom(n_), twoKinetic());
  }

  void advance(long long steps, long long firstStep) override {
    for (long long k = 0; k < steps; ++k) {
      const long long step = firstStep + k + 1;
      const bool last = k + 1 == steps;
      auto t0 = Clock::now();
      const bool moved = verlet_.template firstHalf<Boundary::Periodic>(atoms(), box_);
      stats_.integrateSeconds += since(t0);
      if (moved) rebuild();
      computeForces(last);
      if (!last_.finite) break;  // the caller sees it in thermo() and stops
      t0 = Clock::now();
      verlet_.secondHalf(atoms(), static_cast<std::uint64_t>(step), [](double twoKe) { return twoKe; });
      stats_.integrateSeconds += since(t0);
    }
  }

  RawThermo thermo() override {
    RawThermo t = last_;
    t.twoKinetic = twoKinetic();
    t.finite = t.finite && std::isfinite(t.twoKinetic);
    return t;
  }

  void download(ParticleState& s) override {
    s.resize(n_);
    s.mass = mass_;
    s.box.length = box_;
    s.id = id_;
    for (std::size_t i = 0; i < n_; ++i) {
      s.x[i] = x_[i], s.y[i] = y_[i], s.z[i] = z_[i];
      s.vx[i] = vx_[i], s.vy[i] = vy_[i], s.vz[i] = vz_[i];
    }
  }

  void forces(std::vector<double>& fx, std::vector<double>& fy, std::vector<double>& fz) override {
    fx.assign(fx_.begin(), fx_.end());
    fy.assign(fy_.begin(), fy_.end());
    fz.assign(fz_.begin(), fz_.end());
  }

  // Neighbours per atom as a full list counts them (as the other engines report them): the half list holds each
  // pair once, so an atom's count is its own entries plus the entries that name it.
  EngineStats stats() const override {
    EngineStats s = stats_;
    std::vector<int> full(list_.counts());
    const std::int32_t* owner = list_.ghostOwner();
    for (std::size_t i = 0; i < n_; ++i) {
      const std::int32_t* nb = list_.neighbors(i);
      for (int k = 0; k < list_.count(i); ++k) ++full[static_cast<std::size_t>(nb[k]) < n_ ? nb[k] : owner[nb[k] - n_]];
    }
    double sum = 0, mx = 0;
    for (int c : full) sum += c, mx = std::max<double>(mx, c);
    s.meanNeighbors = n_ ? sum / double(n_) : 0;
    s.maxNeighbors = mx;
    return s;
  }

  void saveState(EngineState& st) override {
    st.box.length = box_;
    st.mass = mass_;
    st.atomsInAll = n_;
    const auto put = [](std::vector<double>& to, const std::vector<S>& from) { to.assign(from.begin(), from.end()); };
    put(st.x, x_), put(st.y, y_), put(st.z, z_), put(st.x0, x0_), put(st.y0, y0_), put(st.z0, z0_);
    put(st.vx, vx_), put(st.vy, vy_), put(st.vz, vz_), put(st.fx, fx_), put(st.fy, fy_), put(st.fz, fz_);
    st.id = id_;
    st.potential = last_.potential;
    st.virial = last_.virial;
    st.twoKinetic = twoKinetic();
    st.nhXi = verlet_.noseHooverXi();
    st.nhTwoKinetic = verlet_.runTwoKinetic();
  }

  void restoreState(const EngineState& st) override {
    n_ = st.size();
    mass_ = st.mass;
    box_ = st.box.length;
    const auto take = [](std::vector<S>& to, const std::vector<double>& from) { to.assign(from.begin(), from.end()); };
    take(x_, st.x), take(y_, st.y), take(z_, st.z), take(x0_, st.x0), take(y0_, st.y0), take(z0_, st.z0);
    take(vx_, st.vx), take(vy_, st.vy), take(vz_, st.vz), take(fx_, st.fx), take(fy_, st.fy), take(fz_, st.fz);
    id_ = st.id;
    // The list from the positions it was built from, in the order the atoms have had since that build (rebuild()
    // sorted them then, so binning them again leaves them in place): the same neighbours and ghosts in the same
    // order, hence the same pair sums. No force evaluation here, which would make the continued run differ from
    // the uninterrupted one. A state saved in another order (another engine's) is sorted here.
    list_.setBox(box_, interactionRange(config_.lj, config_.skin));
    const auto& order = list_.sortOrder(x0_.data(), y0_.data(), z0_.data(), n_);
    bool sorted = true;
    for (std::size_t k = 0; k < n_ && sorted; ++k) sorted = order[k] == static_cast<std::int32_t>(k);
    if (!sorted) {
      permute(order, x_), permute(order, y_), permute(order, z_), permute(order, x0_), permute(order, y0_);
      permute(order, z0_), permute(order, vx_), permute(order, vy_), permute(order, vz_), permute(order, fx_);
      permute(order, fy_), permute(order, fz_), permute(order, id_);
    }
    list_.build(x0_.data(), y0_.data(), z0_.data(), n_);
    last_ = RawThermo{};
    last_.potential = st.potential;
    last_.virial = st.virial;
    last_.finite = std::isfinite(st.potential) && std::isfinite(st.virial);
    verlet_.start(mass_, degreesOfFreedom(n_), twoKinetic());
    verlet_.restore(st.nhXi, st.nhTwoKinetic);
  }

  std::string backendName() const override { return fmt::format("cpu ({} OpenMP threads)", omp_get_max_threads()); }

 private:
  HostAtoms<S> atoms() {
    return {n_, x_.data(), y_.data(), z_.data(), vx_.data(), vy_.data(), vz_.data(), fx_.data(), fy_.data(),
            fz_.data(), x0_.data(), y0_.data(), z0_.data(), id_.data()};
  }

  double twoKinetic() { return mass_ * sumSquaredVelocities(atoms()); }

  // Sorts the particles by cell (neighbours become neighbours in memory) and rebuilds the list.
  void rebuild() {
    const auto t0 = Clock::now();
    const auto& order = list_.sortOrder(x_.data(), y_.data(), z_.data(), n_);
    permute(order, x_), permute(order, y_), permute(order, z_);
    permute(order, vx_), permute(order, vy_), permute(order, vz_);
    permute(order, id_);
    list_.build(x_.data(), y_.data(), z_.data(), n_);
    x0_ = x_, y0_ = y_, z0_ = z_;
    ++stats_.neighborBuilds;
    stats_.neighborSeconds += since(t0);
  }

  template <class A>
  void permute(const std::vector<std::int32_t>& order, std::vector<A>& a) {
    std::vector<A> tmp(a.size());
    const std::size_t n = a.size();
#pragma omp parallel for schedule(static)
    for (std::size_t k = 0; k < n; ++k) tmp[k] = a[order[k]];
    a.swap(tmp);
  }

  // Each pair once: atom i takes f_ij and its partner j (an atom or a ghost) the reaction -f_ij, into an array of
  // the thread's own (no atomics); each thread folds its ghosts' reactions onto their owners, and the arrays are then
  // summed in thread order. The sums are the same on every run with the same number of threads (a restart continues
  // bitwise), and differ in round-off from one thread count to another.
  void computeForces(bool energy) {
    if (energy) pairForces<true>();
    else pairForces<false>();
  }

  template <bool Energy>
  void pairForces() {
    const auto t0 = Clock::now();
    const LjCoefficients<P> c = coeff_;
    double pe = 0, vir = 0;
    int bad = 0;
    const std::size_t n = n_, ng = list_.ghosts(), total = n + ng;
    const std::int32_t* owner = list_.ghostOwner();
    xe_.resize(total), ye_.resize(total), ze_.resize(total);
    reactions_.resize(3 * total * static_cast<std::size_t>(omp_get_max_threads()));
    S* xe = xe_.data();
    S* ye = ye_.data();
    S* ze = ze_.data();
    ThreadSums<2> sums;  // energy and virial, added in thread order (ThreadSums.h)
#pragma omp parallel reduction(max : bad)
    {
      const int team = omp_get_num_threads();
      double threadPe = 0, threadVir = 0;
      P* rx = reactions_.data() + 3 * total * static_cast<std::size_t>(omp_get_thread_num());
      P* ry = rx + total;
      P* rz = ry + total;
      std::fill(rx, rx + 3 * total, P(0));  // a thread writes only its own array until the fold's closing barrier
      PairBuffers<P> b(static_cast<std::size_t>(list_.stride()));
      list_.place(x_.data(), y_.data(), z_.data(), x0_.data(), y0_.data(), z0_.data(), xe, ye, ze);  // (barrier)
#pragma omp for schedule(static)
      for (std::size_t i = 0; i < n; ++i) {
        const S xi = xe[i], yi = ye[i], zi = ze[i];
        P fx = 0, fy = 0, fz = 0;
        double e = 0, w = 0;
        const std::int32_t* nb = list_.neighbors(i);
        const int m = list_.count(i);
        // The pair forces as vector loops (pairBatch; a NaN force stops the run below), then the sums and the
        // reactions scattered to the partners, in list order.
        pairBatch<Energy>(xi, yi, zi, xe, ye, ze, nb, m, c, b);
        for (int k = 0; k < m; ++k) {
          const std::int32_t j = nb[k];
          fx += b.x[k], fy += b.y[k], fz += b.z[k];
          rx[j] -= b.x[k], ry[j] -= b.y[k], rz[j] -= b.z[k];
          if constexpr (Energy) e += double(b.energy[k]), w += double(b.virial[k]);
        }
        rx[i] += fx, ry[i] += fy, rz[i] += fz;
        threadPe += e;
        threadVir += w;
      }
      sums.put({threadPe, threadVir});
      for (std::size_t g = 0; g < ng; ++g) {
        const std::int32_t o = owner[g];
        rx[o] += rx[n + g], ry[o] += ry[n + g], rz[o] += rz[n + g];
      }
#pragma omp barrier
#pragma omp for schedule(static)
      for (std::size_t i = 0; i < n; ++i) {
        P sx = 0, sy = 0, sz = 0;
        for (int t = 0; t < team; ++t) {
          const P* r = reactions_.data() + 3 * total * static_cast<std::size_t>(t);
          sx += r[i], sy += r[total + i], sz += r[2 * total + i];
        }
        fx_[i] = S(sx), fy_[i] = S(sy), fz_[i] = S(sz);
        if (!std::isfinite(fx_[i]) || !std::isfinite(fy_[i]) || !std::isfinite(fz_[i])) bad = 1;
      }
    }
    pe = sums.total(0), vir = sums.total(1);
    if (Energy) {
      last_.potential = pe;
      last_.virial = vir;
      last_.finite = std::isfinite(pe) && std::isfinite(vir);
    }
    if (bad) last_.finite = false;
    stats_.forceSeconds += since(t0);
  }

  EngineConfig config_;
  HostVerlet<S> verlet_;
  LjCoefficients<P> coeff_;
  std::size_t n_ = 0;
  double mass_ = 1;
  std::array<double, 3> box_{};
  std::vector<S> x_, y_, z_, vx_, vy_, vz_, fx_, fy_, fz_, x0_, y0_, z0_;
  std::vector<long long> id_;
  PeriodicHalfList<S> list_;  // half: each pair (and each image of a pair) once
  std::vector<S> xe_, ye_, ze_;  // the pair loop's positions: atoms unwrapped next to their binning, then ghosts
  std::vector<P> reactions_;     // per thread: 3 x (atoms + ghosts) forces, x then y then z
  RawThermo last_;
  EngineStats stats_;
};

}  // namespace

std::unique_ptr<MdEngine> makeCpuEngine(const EngineConfig& config) {
  switch (config.precision) {
    case Precision::Single: return std::make_unique<CpuMdEngine<float, float>>(config);
    case Precision::Mixed: return std::make_unique<CpuMdEngine<double, float>>(config);
    case Precision::Double: return std::make_unique<CpuMdEngine<double, double>>(config);
  }
  throw std::logic_error("unknown precision");
}

}  // namespace hopsim::md
