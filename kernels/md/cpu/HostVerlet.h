// The velocity-Verlet step of the host engines (single-rank and decomposed): kicks, drift, displacement test and the
// thermostats (NVE, Langevin, Nose-Hoover), written once as OpenMP loops over structure-of-arrays atoms.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "core/md/MdCase.h"
#include "kernels/common/ThreadSums.h"
#include "kernels/md/Integrate.h"
#include "kernels/md/PeriodicBox.h"
#include "kernels/md/Thermostats.h"

namespace hopsim::md {

// The first n atoms of an engine: what a step reads and writes. Taken afresh after a rebuild, which may reorder,
// reallocate and (decomposed) change n.
template <class S>
struct HostAtoms {
  std::size_t n = 0;
  S *x = nullptr, *y = nullptr, *z = nullptr;
  S *vx = nullptr, *vy = nullptr, *vz = nullptr;
  S *fx = nullptr, *fy = nullptr, *fz = nullptr;
  const S *x0 = nullptr, *y0 = nullptr, *z0 = nullptr;  // positions at the last list build
  const long long* id = nullptr;                        // keys the Langevin noise
};

// Velocities scaled by `scale` (Nose-Hoover's first half-step; 1 otherwise), kicked by dtf F, drifted by dt v.
// Returns true when an atom moved farther than sqrt(trigger) from where the list was built. In a periodic box
// positions are wrapped and displacements taken through the minimum image, and a NaN displacement is not a move:
// the force check stops the run, where binning a NaN position would only hide its pairs. With ghosts a NaN counts
// as moved, so that the ranks' rebuild vote carries it.
template <Boundary B, class S>
bool kickDrift(const HostAtoms<S>& a, S scale, S dtf, S dt, S trigger, const std::array<double, 3>& box) {
  const S L[3] = {S(box[0]), S(box[1]), S(box[2])}, H[3] = {S(0.5 * box[0]), S(0.5 * box[1]), S(0.5 * box[2])};
  S *x = a.x, *y = a.y, *z = a.z, *vx = a.vx, *vy = a.vy, *vz = a.vz;
  const S *fx = a.fx, *fy = a.fy, *fz = a.fz, *x0 = a.x0, *y0 = a.y0, *z0 = a.z0;
  const std::size_t n = a.n;
  int moved = 0;
#pragma omp parallel for schedule(static) reduction(max : moved)
  for (std::size_t i = 0; i < n; ++i) {
    vx[i] = vx[i] * scale + dtf * fx[i];
    vy[i] = vy[i] * scale + dtf * fy[i];
    vz[i] = vz[i] * scale + dtf * fz[i];
    if constexpr (B == Boundary::Periodic) {
      x[i] = wrapOnce(S(x[i] + dt * vx[i]), L[0]);
      y[i] = wrapOnce(S(y[i] + dt * vy[i]), L[1]);
      z[i] = wrapOnce(S(z[i] + dt * vz[i]), L[2]);
      const S dx = minimumImage(S(x[i] - x0[i]), L[0], H[0]);
      const S dy = minimumImage(S(y[i] - y0[i]), L[1], H[1]);
      const S dz = minimumImage(S(z[i] - z0[i]), L[2], H[2]);
      if (dx * dx + dy * dy + dz * dz > trigger) moved = 1;
    } else {
      x[i] = S(x[i] + dt * vx[i]);
      y[i] = S(y[i] + dt * vy[i]);
      z[i] = S(z[i] + dt * vz[i]);
      const S dx = x[i] - x0[i], dy = y[i] - y0[i], dz = z[i] - z0[i];
      if (!(dx * dx + dy * dy + dz * dz <= trigger)) moved = 1;
    }
  }
  return moved != 0;
}

// Langevin friction and noise added to the forces, at the half-step velocities.
template <class S>
void addLangevinForces(const HostAtoms<S>& a, const LangevinParams& p, std::uint64_t step) {
  S *fx = a.fx, *fy = a.fy, *fz = a.fz;
  const S *vx = a.vx, *vy = a.vy, *vz = a.vz;
  const long long* id = a.id;
  const std::size_t n = a.n;
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    const auto key = static_cast<std::uint64_t>(id[i]);
    fx[i] += langevinForce(vx[i], p, step, key, 0);
    fy[i] += langevinForce(vy[i], p, step, key, 1);
    fz[i] += langevinForce(vz[i], p, step, key, 2);
  }
}

// The second half-kick; returns sum v^2 after it (the same loop: it costs nothing there).
template <class S>
double kick(const HostAtoms<S>& a, S dtf) {
  S *vx = a.vx, *vy = a.vy, *vz = a.vz;
  const S *fx = a.fx, *fy = a.fy, *fz = a.fz;
  const std::size_t n = a.n;
  ThreadSums<1> sums;  // added in thread order: a thermostat scales the velocities by it (ThreadSums.h)
#pragma omp parallel
  {
    double sum = 0;
#pragma omp for schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
      vx[i] += dtf * fx[i];
      vy[i] += dtf * fy[i];
      vz[i] += dtf * fz[i];
      sum += double(vx[i]) * vx[i] + double(vy[i]) * vy[i] + double(vz[i]) * vz[i];
    }
    sums.put({sum});
  }
  return sums.total(0);
}

template <class S>
void scaleVelocities(const HostAtoms<S>& a, S s) {
  S *vx = a.vx, *vy = a.vy, *vz = a.vz;
  const std::size_t n = a.n;
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) vx[i] *= s, vy[i] *= s, vz[i] *= s;
}

// Sum v^2 over the atoms (times the mass: twice the kinetic energy).
template <class S>
double sumSquaredVelocities(const HostAtoms<S>& a) {
  const S *vx = a.vx, *vy = a.vy, *vz = a.vz;
  const std::size_t n = a.n;
  ThreadSums<1> sums;
#pragma omp parallel
  {
    double sum = 0;
#pragma omp for schedule(static)
    for (std::size_t i = 0; i < n; ++i) sum += double(vx[i]) * vx[i] + double(vy[i]) * vy[i] + double(vz[i]) * vz[i];
    sums.put({sum});
  }
  return sums.total(0);
}

// One engine's integrator: the loops above in step order, with the thermostat's parameters and state. The engine
// computes the forces between the halves (and, decomposed, votes on the rebuild).
template <class S>
class HostVerlet {
 public:
  HostVerlet(const IntegratorSettings& in, double skin)
      : in_(in), dt_(S(in.dt)), trigger_(S(rebuildDisplacementSq(skin))) {}

  // Once the atoms are in place: their mass, the run's degrees of freedom and its sum m v^2.
  void start(double mass, double degreesOfFreedom, double twoKinetic) {
    mass_ = mass;
    dtf_ = S(0.5 * in_.dt / mass);
    if (in_.type == IntegratorType::Langevin) langevin_ = langevinParams(in_, mass);
    if (in_.type == IntegratorType::NoseHoover) nh_ = noseHooverStart(in_, degreesOfFreedom);
    twoKe_ = twoKinetic;
  }

  // Up to the forces: Nose-Hoover's first half-step, kick, drift. True when the list needs a rebuild.
  template <Boundary B>
  bool firstHalf(const HostAtoms<S>& a, const std::array<double, 3>& box) {
    S scale = 1;
    if (in_.type == IntegratorType::NoseHoover) scale = S(noseHooverHalfStep(nh_, twoKe_, in_.dt));
    return kickDrift<B>(a, scale, dtf_, dt_, trigger_, box);
  }

  // After the forces of step `step`: Langevin forces, kick, Nose-Hoover's second half-step. `runSum` turns this
  // engine's sum m v^2 into the run's (an allreduce when decomposed); only Nose-Hoover calls it, on every rank.
  template <class RunSum>
  void secondHalf(const HostAtoms<S>& a, std::uint64_t step, RunSum&& runSum) {
    if (in_.type == IntegratorType::Langevin) addLangevinForces(a, langevin_, step);
    const double sum = kick(a, dtf_);
    if (in_.type == IntegratorType::NoseHoover) {
      twoKe_ = runSum(mass_ * sum);
      const S s2 = S(noseHooverHalfStep(nh_, twoKe_, in_.dt));
      scaleVelocities(a, s2);
      twoKe_ *= double(s2) * double(s2);
    }
  }

  // The thermostat's state between steps (checkpoints): Nose-Hoover's friction and the sum m v^2 it reads next.
  double noseHooverXi() const { return nh_.xi; }
  double runTwoKinetic() const { return twoKe_; }
  // After start(): the state a saved engine had.
  void restore(double xi, double twoKinetic) {
    nh_.xi = xi;
    twoKe_ = twoKinetic;
  }

 private:
  IntegratorSettings in_;
  S dt_, dtf_ = 0, trigger_;
  double mass_ = 1;
  LangevinParams langevin_;
  NoseHooverState nh_;
  double twoKe_ = 0;  // sum m v^2 over the run after the last step: Nose-Hoover's next first half-step needs it
};

}  // namespace hopsim::md
