// An LBM run's field files: two host slots, a writer thread, and the collective steps kept on the main thread.
#include "solvers/lbm/LbmFieldOutput.h"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "core/Log.h"
#include "core/Mpi.h"
#include "io/FieldOutput.h"
#include "solvers/lbm/LbmSimulation.h"

namespace hopsim::lbm {
namespace {

bool wants(const std::vector<FieldName>& fields, FieldName f) {
  return std::find(fields.begin(), fields.end(), f) != fields.end();
}

std::vector<std::unique_ptr<io::FieldSeriesSink>> makeWriters(const LbmCase& c, const std::filesystem::path& dir,
                                                              const LbmSimulation& sim) {
  io::GridGeometry grid;
  grid.cells = c.cells;
  grid.dimensions = c.dimensions;
  // Cell (i, j, k) covers [i, i+1) dx ...: coordinates in metres in a case with units.
  grid.spacing = c.units.factor(Quantity::Length);
  grid.lengthUnit = c.units.unit(Quantity::Length);
  // One rank writes the whole domain; a decomposed run gathers nothing, every rank handing its own block over.
  std::vector<io::GridBlock> blocks;
  if (sim.decomposed())
    for (int r = 0; r < sim.comm().size(); ++r) {
      const LbmPartition p = sim.ownedPartOf(r);
      blocks.push_back({p.first, p.count});
    }
  return io::makeFieldWriters(c.output, dir, kFieldSeriesName, grid, c.precision != Precision::Double, blocks,
                              sim.comm());
}

// The linear map a field's values go through on their way to the files, value * scale + offset: SI in a case with
// units, and for pressure c_s^2 (rho - 1) from the density.
struct Conversion {
  double scale = 1, offset = 0;
  bool identity() const { return scale == 1 && offset == 0; }
};

Conversion conversionOf(FieldName f, const UnitSystem& u) {
  switch (f) {
    case FieldName::Density: return {u.factor(Quantity::Density), 0};
    case FieldName::Velocity: return {u.factor(Quantity::Velocity), 0};
    case FieldName::Pressure: {
      const double p = kLatticeSoundSpeed2 * u.factor(Quantity::Pressure);
      return {p, -p};
    }
    case FieldName::Flags: return {};
  }
  return {};
}

const char* unitOf(FieldName f, const UnitSystem& u) {
  switch (f) {
    case FieldName::Density: return u.unit(Quantity::Density);
    case FieldName::Velocity: return u.unit(Quantity::Velocity);
    case FieldName::Pressure: return u.unit(Quantity::Pressure);
    case FieldName::Flags: return "";
  }
  return "";
}

template <class T>
const T* converted(const T* values, std::size_t n, Conversion k, std::vector<T>& out) {
  out.resize(n);
  // In double, so that c_s^2 (rho - 1) keeps the digits a single-precision density has near 1.
  for (std::size_t i = 0; i < n; ++i)
    out[i] = static_cast<T>(static_cast<double>(values[i]) * k.scale + k.offset);
  return out.data();
}

LbmFieldOutput::Mode modeOf(const std::vector<std::unique_ptr<io::FieldSeriesSink>>& writers,
                            const LbmSimulation& sim) {
  if (!sim.decomposed()) return LbmFieldOutput::Mode::Thread;
  for (const auto& w : writers)
    if (!dynamic_cast<io::PartitionedSeriesSink*>(w.get())) return LbmFieldOutput::Mode::MainThread;
  return LbmFieldOutput::Mode::ThreadPieces;
}

}  // namespace

LbmFieldOutput::LbmFieldOutput(const LbmCase& c, const std::filesystem::path& dir, LbmSimulation& sim,
                               bool synchronous)
    : case_(c), sim_(sim), writers_(makeWriters(c, dir, sim)), mode_(modeOf(writers_, sim)), rank_(sim.comm().rank()),
      synchronous_(synchronous), writer_(synchronous || mode_ == Mode::MainThread) {
  if (wants(c.output.fields, FieldName::Flags)) sim.localFlagField(flags_);
}

LbmFieldOutput::~LbmFieldOutput() = default;

void LbmFieldOutput::writeSlot(int slot, long long step, double time, bool pieceOnly) {
  const HostFields h = sim_.fieldCopy(slot);
  const bool single = h.single;
  std::vector<io::FieldView> views = listedViews();
  // The backend's lattice values as they are, or converted into a buffer of this writer's (only this thread writes
  // a slot's files, one step at a time).
  std::size_t buffer = 0;
  for (io::FieldView& v : views) {
    const FieldName f = v.name == "density"    ? FieldName::Density
                        : v.name == "velocity" ? FieldName::Velocity
                        : v.name == "pressure" ? FieldName::Pressure
                                               : FieldName::Flags;
    if (f == FieldName::Flags) {
      v.data = flags_.data();
      continue;
    }
    const void* values = f == FieldName::Velocity ? h.velocity : h.density;
    const Conversion k = conversionOf(f, case_.units);
    const std::size_t n = static_cast<std::size_t>(h.cells) * static_cast<std::size_t>(v.components);
    v.data = nullptr;
    if (k.identity()) {
      if (single) v.floats = static_cast<const float*>(values);
      else v.data = static_cast<const double*>(values);
      continue;
    }
    if (buffer >= doubles_.size()) {
      doubles_.resize(buffer + 1);
      floats_.resize(buffer + 1);
    }
    if (single) v.floats = converted(static_cast<const float*>(values), n, k, floats_[buffer]);
    else v.data = converted(static_cast<const double*>(values), n, k, doubles_[buffer]);
    ++buffer;
  }
  double values = 0;
  for (const auto& v : views) values += static_cast<double>(h.cells) * v.components;
  const double valueBytes = case_.precision == Precision::Double ? 8 : 4;
  for (const auto& w : writers_) {
    std::vector<std::vector<double>> storage;
    const std::vector<io::FieldView> given = w->takesSingle() ? views : io::widened(views, h.cells, storage);
    if (pieceOnly) static_cast<io::PartitionedSeriesSink&>(*w).writePiece(step, time, rank_, given);
    else w->write(step, time, given);
    bytes_ += values * valueBytes;
  }
}

void LbmFieldOutput::write() {
  const long long step = sim_.step();
  const double time = case_.units.time(step);
  ++steps_;
  if (mode_ == Mode::MainThread) {
    // The device copy is the only part that can overlap here; the collective write follows it on this thread.
    sim_.startFieldCopy(0);
    writeSlot(0, step, time, false);
    return;
  }
  const int slot = nextSlot_;
  nextSlot_ ^= 1;
  // The slot's fields of two writes ago must be on disk before this write takes the slot.
  if (slotTicket_[slot]) waited_ += writer_.wait(slotTicket_[slot]);
  if (mode_ == Mode::ThreadPieces) commitUpTo(slotTicket_[slot]);
  else writer_.rethrowOnce();
  sim_.startFieldCopy(slot);
  const bool pieces = mode_ == Mode::ThreadPieces;
  slotTicket_[slot] = writer_.submit([this, slot, step, time, pieces] { writeSlot(slot, step, time, pieces); });
  if (pieces) pending_.push_back({step, time, slotTicket_[slot]});
  if (synchronous_) {
    // As the writers did before the thread: the step's files and series complete on return.
    if (pieces) commitUpTo(slotTicket_[slot]);
    else writer_.rethrowOnce();
  }
}

void LbmFieldOutput::check() {
  if (mode_ == Mode::Thread) writer_.rethrowOnce();
}

std::string LbmFieldOutput::writerError() const {
  const std::exception_ptr e = writer_.error();
  if (!e) return {};
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  } catch (...) {
    return "the field writer failed";
  }
}

void LbmFieldOutput::commitUpTo(io::BackgroundWriter::Ticket ticket) {
  // Every rank hands over the same steps in the same order, so every rank commits the same ones here, whatever its
  // writer has done since: the decision is collective. A step is named in the series only when every rank wrote
  // its piece: the steps before the earliest failure on any rank are; that failure then ends the run on every rank.
  std::vector<Pending> due;
  std::erase_if(pending_, [&](const Pending& p) {
    if (p.ticket > ticket) return false;
    due.push_back(p);
    return true;
  });
  if (due.empty()) return;
  const mpi::Comm& comm = sim_.comm();
  const io::BackgroundWriter::Ticket failedHere = writer_.failedTicket();
  const double none = 1e18;  // tickets count writes: far below
  const double firstFailure = -comm.allreduceMax(-(failedHere ? static_cast<double>(failedHere) : none));
  std::string error;
  if (comm.isRoot()) {
    try {
      const std::vector<io::FieldView> listed = listedViews();
      for (const Pending& p : due)
        if (static_cast<double>(p.ticket) < firstFailure)
          for (const auto& w : writers_)
            static_cast<io::PartitionedSeriesSink&>(*w).commitStep(p.step, p.time, listed);
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  mpi::throwIfAnyFailed(comm, error, fmt::format("the series files of step {}", due.back().step));
  if (firstFailure <= static_cast<double>(ticket))
    mpi::throwIfAnyFailed(comm, failedHere && failedHere <= ticket ? writerError() : std::string(),
                          fmt::format("the field files of step {}", due.back().step));
}

std::vector<io::FieldView> LbmFieldOutput::listedViews() const {
  // Names, components and units only: the series lists them, no data are read.
  std::vector<io::FieldView> views;
  static const double kNone = 0;
  const UnitSystem& u = case_.units;
  for (const auto& [f, name, components] : {std::tuple{FieldName::Density, "density", 1},
                                            {FieldName::Velocity, "velocity", 3}, {FieldName::Pressure, "pressure", 1},
                                            {FieldName::Flags, "flags", 1}})
    if (wants(case_.output.fields, f)) views.push_back({name, components, &kNone, nullptr, unitOf(f, u)});
  return views;
}

void LbmFieldOutput::listEarlier(long long lastStep) {
  const std::vector<io::FieldView> views = listedViews();
  std::vector<long long> missing;
  for (long long s = 0; s <= lastStep; s += case_.output.every) {
    for (const auto& w : writers_)
      if (!w->listEarlier(s, case_.units.time(s), views) && (missing.empty() || missing.back() != s))
        missing.push_back(s);
    if (case_.output.every <= 0) break;
  }
  if (!missing.empty() && sim_.comm().isRoot())
    log::warning("hopsim lbm: warning: the field files of {} earlier output step(s) (step {} first) are not in the "
                 "output directory; the series lists the steps whose files are",
                 missing.size(), missing.front());
}

void LbmFieldOutput::settle() {
  if (mode_ == Mode::MainThread) return;  // its writes are complete when write() returns
  waited_ += writer_.drain();
  if (mode_ == Mode::ThreadPieces) commitUpTo(slotTicket_[0] > slotTicket_[1] ? slotTicket_[0] : slotTicket_[1]);
  else writer_.rethrowOnce();
}

void LbmFieldOutput::finish() {
  settle();
  for (const auto& w : writers_) w->finish();
}

}  // namespace hopsim::lbm
