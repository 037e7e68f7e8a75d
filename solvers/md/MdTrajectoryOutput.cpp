// The MD trajectory writer: frames through two host slots to a writer thread, thermo samples in order with them.
#include "solvers/md/MdTrajectoryOutput.h"

#include <algorithm>
#include <numeric>

#include "core/md/AtomIds.h"

namespace hopsim::md {

void orderById(const long long* id, std::size_t n, std::vector<std::size_t>& order) {
  order.resize(n);
  if (const auto base = denseIdBase({id, n})) {
    for (std::size_t k = 0; k < n; ++k) order[k] = static_cast<std::size_t>(id[k] - *base);
    return;
  }
  std::vector<std::size_t> byId(n);
  std::iota(byId.begin(), byId.end(), std::size_t{0});
  std::sort(byId.begin(), byId.end(), [&](std::size_t a, std::size_t b) { return id[a] < id[b]; });
  for (std::size_t r = 0; r < n; ++r) order[byId[r]] = r;
}

namespace {

// Particle k of the frame to row order[k] of (n x 3) arrays of T.
template <class T, class F>
void interleave(const HostFrame& f, const std::vector<std::size_t>& order, std::vector<T>& pos, std::vector<T>& vel) {
  pos.resize(3 * f.n);
  vel.resize(3 * f.n);
  for (int d = 0; d < 3; ++d) {
    const F* x = static_cast<const F*>(f.x[d]);
    const F* v = static_cast<const F*>(f.v[d]);
    for (std::size_t k = 0; k < f.n; ++k) {
      pos[3 * order[k] + d] = static_cast<T>(x[k]);
      vel[3 * order[k] + d] = static_cast<T>(v[k]);
    }
  }
}

template <class F>
void toState(const HostFrame& f, const std::vector<std::size_t>& order, ParticleState& s) {
  s.resize(f.n);
  s.box = f.box;
  s.mass = f.mass;
  std::vector<double>* px[3] = {&s.x, &s.y, &s.z};
  std::vector<double>* pv[3] = {&s.vx, &s.vy, &s.vz};
  for (int d = 0; d < 3; ++d) {
    const F* x = static_cast<const F*>(f.x[d]);
    const F* v = static_cast<const F*>(f.v[d]);
    for (std::size_t k = 0; k < f.n; ++k) (*px[d])[order[k]] = x[k], (*pv[d])[order[k]] = v[k];
  }
  for (std::size_t k = 0; k < f.n; ++k) s.id[order[k]] = f.id[k];
}

ParticleState stateOf(const HostFrame& f, std::vector<std::size_t>& order) {
  ParticleState s;
  orderById(f.id, f.n, order);
  if (f.valueBytes == 4) toState<float>(f, order, s);
  else toState<double>(f, order, s);
  return s;
}

}  // namespace

MdTrajectoryOutput::MdTrajectoryOutput(MdEngine& engine, std::unique_ptr<io::md::H5mdWriter> h5,
#if HOPSIM_WITH_VTK
                                       std::unique_ptr<io::VtkParticleWriter> vtk,
#endif
                                       bool single, bool synchronous)
    : engine_(engine),
      h5_(std::move(h5)),
#if HOPSIM_WITH_VTK
      vtk_(std::move(vtk)),
#endif
      single_(single),
      writer_(synchronous) {
}

MdTrajectoryOutput::~MdTrajectoryOutput() = default;

void MdTrajectoryOutput::writeSlot(int slot, long long step, double time) {
  const HostFrame f = engine_.frameCopy(slot);
  orderById(f.id, f.n, order_);
  ids_.resize(f.n);
  for (std::size_t k = 0; k < f.n; ++k) ids_[order_[k]] = f.id[k];
  if (h5_) {
    if (single_) {
      if (f.valueBytes == 4) interleave<float, float>(f, order_, posF_, velF_);
      else interleave<float, double>(f, order_, posF_, velF_);  // a CPU engine's floats, held as doubles: exact
      h5_->frame(step, time, f.box.length, posF_.data(), velF_.data(), ids_.data());
    } else {
      if (f.valueBytes == 4) interleave<double, float>(f, order_, posD_, velD_);
      else interleave<double, double>(f, order_, posD_, velD_);
      h5_->frame(step, time, f.box.length, posD_.data(), velD_.data(), ids_.data());
    }
    bytes_ += static_cast<double>(f.n) * (6.0 * (single_ ? 4 : 8) + 8.0);
  }
#if HOPSIM_WITH_VTK
  if (vtk_) {
    ParticleState s = stateOf(f, order_);
    vtk_->write(step, time, s);
  }
#endif
}

void MdTrajectoryOutput::frame(long long step, double time) {
  check();
  const int slot = nextSlot_;
  nextSlot_ ^= 1;
  // The slot's previous frame must be written before the copy overwrites it: the writer is a full buffer behind.
  if (slotTicket_[slot] != 0) waited_ += writer_.wait(slotTicket_[slot]);
  check();
  engine_.startFrameCopy(slot);
  ++frames_;
  bool writes = h5_ != nullptr;
#if HOPSIM_WITH_VTK
  writes = writes || vtk_ != nullptr;
#endif
  slotTicket_[slot] = writes ? writer_.submit([this, slot, step, time] { writeSlot(slot, step, time); }) : 0;
  check();  // the synchronous path's error, at once
}

void MdTrajectoryOutput::observables(long long step, double time, std::vector<std::pair<std::string, double>> values) {
  if (!h5_) return;
  writer_.submit([this, step, time, v = std::move(values)] { h5_->observables(step, time, v); });
  check();
}

void MdTrajectoryOutput::check() { writer_.rethrowOnce(); }

double MdTrajectoryOutput::drain() {
  const double w = writer_.drain();
  waited_ += w;
  check();
  return w;
}

void MdTrajectoryOutput::finish() {
  drain();
  if (writer_.failed()) return;  // reported by drain() once; the trajectory stays NAME.part
  if (h5_) h5_->finish();
#if HOPSIM_WITH_VTK
  if (vtk_) vtk_->finish();
#endif
}

ParticleState MdTrajectoryOutput::lastFrame() {
  if (frames_ == 0) return {};
  waited_ += writer_.drain();
  // nextSlot_ names the slot after the last one taken.
  std::vector<std::size_t> order;
  return stateOf(engine_.frameCopy(nextSlot_ ^ 1), order);
}

}  // namespace hopsim::md
