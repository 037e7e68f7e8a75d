// The field files of an LBM run, written while it goes on stepping (issue 22): the fields of an output step are
// taken into one of two host slots (on a GPU, computed on the device and copied to pinned memory on a stream of
// their own) and written by a writer thread while the next steps run.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/lbm/LbmCase.h"
#include "io/BackgroundWriter.h"
#include "io/FieldSeries.h"

namespace hopsim::lbm {

class LbmSimulation;

// The name of an LBM run's field series: fields.xmf, fields_<step>.h5, fields.pvd, ...
inline constexpr const char* kFieldSeriesName = "fields";

class LbmFieldOutput {
 public:
  // How the files of one output step are written.
  enum class Mode {
    // One rank: the writer thread writes every format's files and series file.
    Thread,
    // Several ranks, one file per rank (per-rank HDF5, VTK pieces): the writer thread writes this rank's piece
    // (no MPI); the main thread names the step in the series once every rank's piece is complete, collectively,
    // two writes later or at the end.
    ThreadPieces,
    // Several ranks writing one HDF5 file collectively (parallel HDF5, MPI-IO): the main thread writes it, after
    // the fields' copy. A collective write cannot run on a thread of its own while the main thread exchanges
    // halos and reduces observables over the same ranks: MPI orders collectives per communicator, and this build
    // does not ask MPI for concurrent calls from several threads (MPI_THREAD_MULTIPLE).
    MainThread,
  };

  // Every rank constructs it (collective: the writers are). `synchronous`: every write complete before write()
  // returns, on the calling thread (HOPSIM_SYNC_OUTPUT=1), the reference the threaded writer is tested against.
  LbmFieldOutput(const LbmCase& c, const std::filesystem::path& dir, LbmSimulation& sim, bool synchronous);
  // Waits for the write under way (its files whole, or its temporary file removed); drops the others. Never throws.
  ~LbmFieldOutput();
  LbmFieldOutput(const LbmFieldOutput&) = delete;
  LbmFieldOutput& operator=(const LbmFieldOutput&) = delete;

  // Takes the simulation's current fields and hands them to the writers. Returns before they are written, having
  // waited only for the fields taken two writes ago (whose slot these take) when the writer is still at them: a
  // full buffer behind. Collective over the simulation's ranks. Throws the writer's error (on every rank of a
  // decomposed run).
  void write();
  // Throws the writer's error, once, if a write has failed: between writes of a run on one rank, so that it ends
  // soon after. Does nothing in a decomposed run, whose ranks learn of an error together, at write() and finish().
  void check();
  // Lists the output steps an earlier run wrote up to `lastStep` (0 and the multiples of output.every) in the
  // series files, which a restarted run continues. Every rank calls it.
  void listEarlier(long long lastStep);
  // Waits for every write handed over so far and names its step in the series (the writers go on), so that what the
  // run writes next, a checkpoint, is never ahead of the fields of its step: a run killed after it continues with
  // those fields listed. Collective; throws the writer's error.
  void settle();
  // Waits for every write and ends the series. Collective; throws the writer's error.
  void finish();

  Mode mode() const { return mode_; }
  // Seconds the stepping thread waited for the writer (a full buffer behind, and at the end).
  double waitedSeconds() const { return waited_; }
  // Seconds the writer spent on the field files, and the bytes of field values it wrote (this rank).
  double writerSeconds() const { return writer_.busySeconds(); }
  double bytesWritten() const { return bytes_; }
  long long stepsWritten() const { return steps_; }

 private:
  struct Pending {
    long long step;
    double time;
    io::BackgroundWriter::Ticket ticket;
  };

  // The writer's half of one step: wait for the slot's fields, write this rank's files.
  void writeSlot(int slot, long long step, double time, bool pieceOnly);
  // ThreadPieces: names the pending steps whose pieces were handed over up to `ticket` in the series, after
  // checking collectively that every rank wrote them.
  void commitUpTo(io::BackgroundWriter::Ticket ticket);
  // The fields' names and components, without data: what the series files list.
  std::vector<io::FieldView> listedViews() const;
  // The writer's error on this rank, in words ("" when none).
  std::string writerError() const;

  const LbmCase& case_;
  LbmSimulation& sim_;
  std::vector<std::unique_ptr<io::FieldSeriesSink>> writers_;
  Mode mode_;
  int rank_;  // this rank, asked once: the writer thread makes no MPI call
  std::vector<double> flags_;  // the owned cells' flags as numbers, when output.fields lists them
  // Fields converted on their way out (SI, pressure), one buffer per field; the writer's alone.
  std::vector<std::vector<double>> doubles_;
  std::vector<std::vector<float>> floats_;
  io::BackgroundWriter::Ticket slotTicket_[2] = {0, 0};  // the job that reads each slot, 0 = none
  int nextSlot_ = 0;
  std::vector<Pending> pending_;
  double waited_ = 0;
  double bytes_ = 0;  // written by the writer's jobs, read after a wait for them
  long long steps_ = 0;
  bool synchronous_;
  // Last: destroyed first, so that the job under way finishes while everything it reads is still there.
  io::BackgroundWriter writer_;
};

}  // namespace hopsim::lbm
