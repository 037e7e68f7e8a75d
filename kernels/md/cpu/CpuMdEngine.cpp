// CPU backend of the MD solver: OpenMP loops over a half neighbour list (each pair once, Newton's third law), templated
// on storage and pair precision.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <fmt/format.h>
#include <stdexcept>
#include <vector>

#include "kernels/md/LjForce.h"
#include "kernels/md/PeriodicBox.h"
#include "kernels/md/cpu/CpuNeighborList.h"
#include "kernels/md/cpu/HostVerlet.h"
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
    list_.setRegion({0, 0, 0}, box_, interactionRange(config_.lj, config_.skin));
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
    for (std::size_t i = 0; i < n_; ++i) {
      const std::int32_t* nb = list_.neighbors(i);
      for (int k = 0; k < list_.count(i); ++k) ++full[nb[k]];
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
    // sorted them then): the same neighbours in the same order, hence the same pair sums. No sort and no force
    // evaluation here, either of which would make the continued run differ from the uninterrupted one.
    list_.setRegion({0, 0, 0}, box_, interactionRange(config_.lj, config_.skin));
    list_.build(x0_.data(), y0_.data(), z0_.data(), n_, n_, true);
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
    list_.build(x_.data(), y_.data(), z_.data(), n_, n_, true);
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

  // Each pair once: atom i takes f_ij and its partner j the reaction -f_ij, into an array of the thread's own (no
  // atomics); the arrays are then summed in thread order. The sums are the same on every run with the same number
  // of threads (a restart continues bitwise), and differ in round-off from one thread count to another.
  void computeForces(bool energy) {
    const auto t0 = Clock::now();
    const P L[3] = {P(box_[0]), P(box_[1]), P(box_[2])}, H[3] = {P(0.5 * box_[0]), P(0.5 * box_[1]), P(0.5 * box_[2])};
    const LjCoefficients<P> c = coeff_;
    double pe = 0, vir = 0;
    int bad = 0;
    const std::size_t n = n_;
    reactions_.resize(3 * n * static_cast<std::size_t>(omp_get_max_threads()));
#pragma omp parallel reduction(+ : pe, vir) reduction(max : bad)
    {
      const int team = omp_get_num_threads();
      P* rx = reactions_.data() + 3 * n * static_cast<std::size_t>(omp_get_thread_num());
      P* ry = rx + n;
      P* rz = ry + n;
      std::fill(rx, rx + 3 * n, P(0));  // a thread writes only its own array until the loop's closing barrier
#pragma omp for schedule(static)
      for (std::size_t i = 0; i < n; ++i) {
        const S xi = x_[i], yi = y_[i], zi = z_[i];
        P fx = 0, fy = 0, fz = 0;
        double e = 0, w = 0;
        const std::int32_t* nb = list_.neighbors(i);
        const int m = list_.count(i);
        for (int k = 0; k < m; ++k) {
          const std::int32_t j = nb[k];
          const P dx = minimumImage(P(xi - x_[j]), L[0], H[0]), dy = minimumImage(P(yi - y_[j]), L[1], H[1]),
                  dz = minimumImage(P(zi - z_[j]), L[2], H[2]);
          const P r2 = dx * dx + dy * dy + dz * dz;
          if (!(r2 < c.cutoffSq)) continue;  // as addPair(): a NaN distance adds nothing
          const P f = ljForceOverR(r2, c);
          fx += dx * f, fy += dy * f, fz += dz * f;
          rx[j] -= dx * f, ry[j] -= dy * f, rz[j] -= dz * f;
          if (energy) {
            e += double(ljEnergy(r2, c));
            w += double(r2) * double(f);
          }
        }
        rx[i] += fx, ry[i] += fy, rz[i] += fz;
        pe += e;
        vir += w;
      }
#pragma omp for schedule(static)
      for (std::size_t i = 0; i < n; ++i) {
        P sx = 0, sy = 0, sz = 0;
        for (int t = 0; t < team; ++t) {
          const P* r = reactions_.data() + 3 * n * static_cast<std::size_t>(t);
          sx += r[i], sy += r[n + i], sz += r[2 * n + i];
        }
        fx_[i] = S(sx), fy_[i] = S(sy), fz_[i] = S(sz);
        if (!std::isfinite(fx_[i]) || !std::isfinite(fy_[i]) || !std::isfinite(fz_[i])) bad = 1;
      }
    }
    if (energy) {
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
  CpuNeighborList<S, Boundary::Periodic> list_;  // half: each pair once
  std::vector<P> reactions_;                      // per thread: 3 x n forces, x then y then z
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
