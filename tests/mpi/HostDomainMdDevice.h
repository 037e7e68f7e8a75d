// A host stand-in for the GPU half of the decomposed CUDA engine (kernels/md/DomainMdDevice.h), doing what
// DomainMdEngine does per rank: it lets the MPI tests check the CUDA engine's MPI half (control allreduce, six-swap
// ghost refresh, host rebuild, Nose-Hoover and Langevin bookkeeping) on machines without a GPU.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "kernels/md/DomainMdDevice.h"
#include "kernels/md/Integrate.h"
#include "kernels/md/LjForce.h"
#include "kernels/md/cpu/CpuNeighborList.h"
#include "kernels/md/cpu/HostVerlet.h"
#include "kernels/md/Thermostats.h"

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
    x0_.assign(a_.x.begin(), a_.x.begin() + a_.owned);
    y0_.assign(a_.y.begin(), a_.y.begin() + a_.owned);
    z0_.assign(a_.z.begin(), a_.z.begin() + a_.owned);
    for (auto* f : {&fx_, &fy_, &fz_}) f->resize(a_.owned);
    list_.build(a_.x.data(), a_.y.data(), a_.z.data(), a_.owned, a_.total());
    ++builds_;
  }

  void download(LocalAtoms<S>& atoms) override {
    atoms = a_;
    atoms.dropGhosts();
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

  StepFlags firstHalf(double scale) override {
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

  struct Swap {
    GhostSwap<S> swap;
    std::vector<std::int32_t> indices;  // a copy: the exchange's lists change at its next borders()
  };

  DomainDeviceConfig config_;
  LjCoefficients<S> coeff_;
  LangevinParams langevin_;
  double mass_ = 1;
  LocalAtoms<S> a_;
  std::vector<S> fx_, fy_, fz_, x0_, y0_, z0_, send_, recv_;
  std::vector<Swap> swaps_;
  CpuNeighborList<S, Boundary::Ghosts> list_;
  std::uint64_t step_ = 0;
  double potential_ = 0, virial_ = 0, twoKinetic_ = 0;
  bool bad_ = false;
  long long builds_ = 0;
};

}  // namespace hopsim::md::test
