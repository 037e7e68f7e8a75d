// A host stand-in for the GPU half of the decomposed CUDA engine (kernels/md/DomainMdDevice.h), doing what
// DomainMdEngine does per rank: it lets the MPI tests check the CUDA engine's MPI half (control allreduce, six-swap
// ghost refresh, host rebuild, Nose-Hoover and Langevin bookkeeping) on machines without a GPU.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/md/DomainMdDevice.h"
#include "kernels/md/Integrate.h"
#include "kernels/md/LjForce.h"
#include "kernels/md/cpu/CpuNeighborList.h"
#include "kernels/md/cpu/HostVerlet.h"
#include "kernels/md/Thermostats.h"
#include "kernels/md/PeriodicBox.h"
#include "solvers/md/DomainAtoms.h"

namespace hopsim::md::test {

template <class S>
class HostDomainMdDevice final : public DomainMdDevice<S> {
 public:
  explicit HostDomainMdDevice(const DomainDeviceConfig& c) : config_(c) {
    const auto& e = c.engine;
    coeff_ = makeLjCoefficients<S>(e.lj.epsilon, e.lj.sigma, e.lj.cutoff, e.lj.shift);
    list_.setRegion(c.lo, c.hi, interactionRange(e.lj, e.skin));
  }

  void setMass(double mass) override {
    mass_ = mass;
    if (config_.engine.integrator.type == IntegratorType::Langevin)
      langevin_ = langevinParams(config_.engine.integrator, mass);
  }

  void load(const LocalAtoms<S>& atoms, const std::vector<GhostSwap<S>>& swaps) override {
    a_ = atoms;
    swaps_.clear();
    for (const GhostSwap<S>& g : swaps) swaps_.push_back({g, *g.indices});
    finishRebuild({});
  }

  void download(LocalAtoms<S>& atoms) override {
    atoms = a_;
    atoms.dropGhosts();
  }

  void reference(std::vector<S>& x0, std::vector<S>& y0, std::vector<S>& z0) override { x0 = x0_, y0 = y0_, z0 = z0_; }
  std::size_t ownedCount() const override { return a_.owned; }

  // The rebuild in place, on the host vectors, by the rules the GPU's kernels follow (ownership from the faces,
  // stable compaction, the sorter's order, the border rule), so that the CPU tests run the engine's device rebuild.
  void wrapOwned() override {
    a_.dropGhosts();
    const auto& L = config_.box;
    for (std::size_t i = 0; i < a_.owned; ++i)
      a_.x[i] = wrapOnce(a_.x[i], S(L[0])), a_.y[i] = wrapOnce(a_.y[i], S(L[1])), a_.z[i] = wrapOnce(a_.z[i], S(L[2]));
  }

  std::span<const double> takeLeaving(int axis, int target) override {
    leaving_.clear();
    if (target < 0) return {};
    std::vector<std::int32_t> stay;
    for (std::size_t i = 0; i < a_.owned; ++i) {
      const int c = owner(axis, double(a_.position(axis)[i]));
      if (c == target && c != config_.coords[axis]) {
        for (double v : {double(a_.x[i]), double(a_.y[i]), double(a_.z[i]), double(a_.vx[i]), double(a_.vy[i]),
                         double(a_.vz[i]), double(a_.id[i])})
          leaving_.push_back(v);
      } else {
        stay.push_back(static_cast<std::int32_t>(i));
      }
    }
    reorderOwned(a_, stay, scratch_, scratchId_);
    a_.owned = stay.size();
    return leaving_;
  }

  void appendArrivals(std::span<const double> atoms) override {
    for (std::size_t k = 0; k + 7 <= atoms.size(); k += 7)
      a_.pushOwned(S(atoms[k]), S(atoms[k + 1]), S(atoms[k + 2]), S(atoms[k + 3]), S(atoms[k + 4]), S(atoms[k + 5]),
                   static_cast<long long>(atoms[k + 6]));
  }

  long long misplaced() override {
    long long n = 0;
    for (std::size_t i = 0; i < a_.owned; ++i)
      for (int axis = 0; axis < 3; ++axis)
        if (owner(axis, double(a_.position(axis)[i])) != config_.coords[axis]) {
          ++n;
          break;
        }
    return n;
  }

  void sortOwned() override {
    reorderOwned(a_, list_.sortOrder(a_.x.data(), a_.y.data(), a_.z.data(), a_.owned), scratch_, scratchId_);
  }

  void selectBorders(int axis, double lo, double hi, const std::array<bool, 2>& sends,
                     const std::array<S, 2>& shifts) override {
    if (axis == 0) swaps_.assign(6, Swap{});
    const std::size_t n = a_.total();
    const auto& pos = a_.position(axis);
    for (int side = 0; side < 2; ++side) {
      Swap& s = swaps_[2 * static_cast<std::size_t>(axis) + side];
      s.swap.axis = axis;
      s.swap.shift = shifts[side];
      s.indices.clear();
      if (!sends[side]) continue;
      for (std::size_t i = 0; i < n; ++i)
        if (side == 0 ? double(pos[i]) < lo : double(pos[i]) >= hi) s.indices.push_back(static_cast<std::int32_t>(i));
    }
  }

  std::size_t sendCount(std::size_t swap) const override { return swaps_.at(swap).indices.size(); }

  void placeGhosts(std::size_t swap, std::size_t count) override {
    GhostSwap<S>& s = swaps_.at(swap).swap;
    s.first = a_.total();
    s.count = count;
    for (auto* v : {&a_.x, &a_.y, &a_.z}) v->resize(s.first + count);
  }

  void finishRebuild(const std::function<void()>& meanwhile) override {
    if (meanwhile) meanwhile();
    x0_.assign(a_.x.begin(), a_.x.begin() + a_.owned);
    y0_.assign(a_.y.begin(), a_.y.begin() + a_.owned);
    z0_.assign(a_.z.begin(), a_.z.begin() + a_.owned);
    for (auto* f : {&fx_, &fy_, &fz_}) f->resize(a_.owned);
    list_.build(a_.x.data(), a_.y.data(), a_.z.data(), a_.owned, a_.total());
    ++builds_;
  }

  std::vector<double> forces() override {
    std::vector<double> out(3 * a_.owned);
    for (std::size_t i = 0; i < a_.owned; ++i)
      out[3 * i] = double(fx_[i]), out[3 * i + 1] = double(fy_[i]), out[3 * i + 2] = double(fz_[i]);
    return out;
  }

  void computeForces(bool energy) override {
    double pe = 0, vir = 0;
    for (std::size_t i = 0; i < a_.owned; ++i) {
      PairSums<S, double> sum;
      const std::int32_t* nb = list_.neighbors(i);
      for (int k = 0; k < list_.count(i); ++k) {
        const std::int32_t j = nb[k];
        addPair(S(a_.x[i] - a_.x[j]), S(a_.y[i] - a_.y[j]), S(a_.z[i] - a_.z[j]), coeff_, energy, sum);
      }
      fx_[i] = sum.fx, fy_[i] = sum.fy, fz_[i] = sum.fz;
      if (!std::isfinite(sum.fx) || !std::isfinite(sum.fy) || !std::isfinite(sum.fz)) bad_ = true;
      pe += 0.5 * sum.energy;
      vir += 0.5 * sum.virial;
    }
    if (energy) potential_ = pe, virial_ = vir;
  }

  void setStep(long long step) override { step_ = static_cast<std::uint64_t>(step); }

  StepFlags firstHalf(double scale, std::size_t prologue, int) override {
    if (prologue > 0) throw std::logic_error("host stand-in: no peer inbox");
    const auto& e = config_.engine;
    const S dt = S(e.integrator.dt), dtf = S(0.5 * e.integrator.dt / mass_);
    StepFlags flags;
    flags.rebuild = kickDrift<Boundary::Ghosts>(atoms(), S(scale), dtf, dt, S(rebuildDisplacementSq(e.skin)), {});
    flags.badForces = bad_;
    return flags;
  }

  void secondHalf(bool energy) override {
    computeForces(energy);
    if (config_.engine.integrator.type == IntegratorType::Langevin) addLangevinForces(atoms(), langevin_, step_);
    twoKinetic_ = mass_ * kick(atoms(), S(0.5 * config_.engine.integrator.dt / mass_));
    ++step_;
  }

  void scaleVelocities(double s) override {
    md::scaleVelocities(atoms(), S(s));
    twoKinetic_ *= s * s;
  }

  void measureKinetic() override { twoKinetic_ = mass_ * sumSquaredVelocities(atoms()); }

  void restore(const LocalAtoms<S>& now, const std::vector<double>& forces, const RawThermo& sums) override {
    for (std::size_t i = 0; i < a_.owned; ++i) {
      a_.x[i] = now.x[i], a_.y[i] = now.y[i], a_.z[i] = now.z[i];
      fx_[i] = S(forces[3 * i]), fy_[i] = S(forces[3 * i + 1]), fz_[i] = S(forces[3 * i + 2]);
    }
    potential_ = sums.potential, virial_ = sums.virial, twoKinetic_ = sums.twoKinetic;
    bad_ = false;
  }

  std::span<const std::byte> packGhosts(std::size_t swap) override {
    const Swap& s = swaps_.at(swap);
    send_.resize(3 * s.indices.size());
    const std::vector<S>* p[3] = {&a_.x, &a_.y, &a_.z};
    for (std::size_t k = 0; k < s.indices.size(); ++k)
      for (int c = 0; c < 3; ++c) {
        const S v = (*p[c])[s.indices[k]];
        send_[3 * k + c] = c == s.swap.axis ? S(v + s.swap.shift) : v;
      }
    return std::as_bytes(std::span<const S>(send_));
  }

  std::span<std::byte> ghostInbox(std::size_t swap) override {
    recv_.resize(3 * swaps_.at(swap).swap.count);
    return std::as_writable_bytes(std::span<S>(recv_));
  }

  void unpackGhosts(std::size_t swap) override {
    const GhostSwap<S>& s = swaps_.at(swap).swap;
    for (std::size_t r = 0; r < s.count; ++r)
      a_.x[s.first + r] = recv_[3 * r], a_.y[s.first + r] = recv_[3 * r + 1], a_.z[s.first + r] = recv_[3 * r + 2];
  }

  void copyGhosts(std::size_t swap) override {
    const Swap& s = swaps_.at(swap);
    std::vector<S>* p[3] = {&a_.x, &a_.y, &a_.z};
    for (std::size_t k = 0; k < s.indices.size(); ++k)
      for (int c = 0; c < 3; ++c) {
        const S v = (*p[c])[s.indices[k]];
        (*p[c])[s.swap.first + k] = c == s.swap.axis ? S(v + s.swap.shift) : v;
      }
  }

  // Host vectors cannot be mapped by another process: the engine keeps the staged refresh.
  bool peerGhosts() const override { return false; }
  std::vector<std::byte> exportInbox(std::size_t) override { throw std::logic_error("host stand-in: no peer inbox"); }
  void mapPeerInbox(std::size_t, int, std::span<const std::byte>) override {
    throw std::logic_error("host stand-in: no peer inbox");
  }
  void packGhostsToPeer(std::size_t, int) override { throw std::logic_error("host stand-in: no peer inbox"); }
  void unpackGhostsFromInbox(std::size_t, int) override { throw std::logic_error("host stand-in: no peer inbox"); }

  RawThermo localSums() override {
    RawThermo t;
    t.potential = potential_, t.virial = virial_, t.twoKinetic = twoKinetic_;
    t.finite = !bad_ && std::isfinite(potential_) && std::isfinite(virial_) && std::isfinite(twoKinetic_);
    return t;
  }

  EngineStats stats() const override {
    EngineStats s;
    s.neighborBuilds = builds_;
    s.forceSeconds = s.integrateSeconds = std::numeric_limits<double>::quiet_NaN();
    return s;
  }

  std::string deviceName() const override { return "host stand-in"; }

 private:
  HostAtoms<S> atoms() {
    return {a_.owned, a_.x.data(), a_.y.data(), a_.z.data(), a_.vx.data(), a_.vy.data(), a_.vz.data(), fx_.data(),
            fy_.data(), fz_.data(), x0_.data(), y0_.data(), z0_.data(), a_.id.data()};
  }

  // Decomposition::ownerCoord from the faces.
  int owner(int axis, double x) const {
    const auto& f = config_.faces[axis];
    if (!(x >= f[0])) return 0;
    int c = 0;
    for (std::size_t k = 1; k + 1 < f.size(); ++k) c += x >= f[k] ? 1 : 0;
    return c;
  }

  struct Swap {
    GhostSwap<S> swap;
    std::vector<std::int32_t> indices;  // a copy: the exchange's lists change at its next borders()
  };

  DomainDeviceConfig config_;
  LjCoefficients<S> coeff_;
  LangevinParams langevin_;
  double mass_ = 1;
  LocalAtoms<S> a_;
  std::vector<S> fx_, fy_, fz_, x0_, y0_, z0_, send_, recv_, scratch_;
  std::vector<long long> scratchId_;
  std::vector<double> leaving_;
  std::vector<Swap> swaps_;
  CpuNeighborList<S, Boundary::Ghosts> list_;
  std::uint64_t step_ = 0;
  double potential_ = 0, virial_ = 0, twoKinetic_ = 0;
  bool bad_ = false;
  long long builds_ = 0;
};

}  // namespace hopsim::md::test
