// The trajectory of an MD run (H5MD frames and thermo samples, VTK pieces), written while it goes on stepping
// (issue 22, the MD half of LBM's LbmFieldOutput): a frame's particles are taken into one of two host slots (on a
// GPU copied to pinned memory on a stream of their own, MdEngine::startFrameCopy) and written by a writer thread
// while the next steps run.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "io/BackgroundWriter.h"
#include "io/md/H5mdWriter.h"
#include "kernels/md/MdEngine.h"
#if HOPSIM_WITH_VTK
#include "io/vtk/VtkParticleWriter.h"
#endif

namespace hopsim::md {

// The writer thread LBM's field output uses too.
using OutputWriter = io::BackgroundWriter;

class MdTrajectoryOutput {
 public:
  // `h5` (and `vtk`) null: nothing written here (another rank writes, or the run writes no trajectory); frames are
  // still taken, for the last good frame of a run that goes unstable. `single`: positions and velocities stored as
  // float (single precision, whose engines hold floats: nothing is rounded). `synchronous`: every write complete
  // before the call returns, on the calling thread (HOPSIM_SYNC_OUTPUT=1), the reference the thread is tested
  // against.
  MdTrajectoryOutput(MdEngine& engine, std::unique_ptr<io::md::H5mdWriter> h5,
#if HOPSIM_WITH_VTK
                     std::unique_ptr<io::VtkParticleWriter> vtk,
#endif
                     bool single, bool synchronous);
  // Waits for the write under way (the .part file then stays as it is) and drops the others. Never throws.
  ~MdTrajectoryOutput();
  MdTrajectoryOutput(const MdTrajectoryOutput&) = delete;
  MdTrajectoryOutput& operator=(const MdTrajectoryOutput&) = delete;

  // Takes the engine's current particles (every rank: collective where the engine's download is) and hands them
  // to the writer. Returns before they are written, having waited only where the writer is still at the frame
  // taken two frames ago, whose slot this one takes: a full buffer behind. Throws the writer's error.
  void frame(long long step, double time);
  // One thermo sample into the H5MD observables, in order with the frames.
  void observables(long long step, double time, std::vector<std::pair<std::string, double>> values);
  // Throws the writer's error, once, if a write has failed: between chunks, so that the run ends soon after.
  void check();
  // Waits for every write (the HDF5 library is not thread-safe: the main thread's checkpoint writes wait for the
  // writer to be idle). Returns the seconds waited; throws the writer's error.
  double drain();
  // Waits for every write, then closes the files under their final names. Throws the writer's error, and then
  // leaves the trajectory as NAME.part.
  void finish();
  // The last frame taken, in id order (empty when none): what an unstable run keeps. Waits for its copy.
  ParticleState lastFrame();

  bool threaded() const { return writer_.threaded(); }
  // Seconds the stepping thread waited for the writer (a full buffer behind, checkpoints, the end).
  double waitedSeconds() const { return waited_; }
  // Seconds the writer spent on the trajectory and the bytes of frame values it wrote.
  double writerSeconds() const { return writer_.busySeconds(); }
  double bytesWritten() const { return bytes_; }
  long long framesTaken() const { return frames_; }

 private:
  // The writer's half of one frame: wait for the slot's copy, put it in id order, write it.
  void writeSlot(int slot, long long step, double time);

  MdEngine& engine_;
  std::unique_ptr<io::md::H5mdWriter> h5_;
#if HOPSIM_WITH_VTK
  std::unique_ptr<io::VtkParticleWriter> vtk_;
#endif
  bool single_;
  OutputWriter::Ticket slotTicket_[2] = {0, 0};  // the job that reads each slot, 0 = none
  int nextSlot_ = 0;
  long long frames_ = 0;
  double waited_ = 0;
  double bytes_ = 0;  // added by the writer's jobs, read after a wait for them
  // The writer's buffers (only its jobs touch them): particles in id order, interleaved.
  std::vector<float> posF_, velF_;
  std::vector<double> posD_, velD_;
  std::vector<long long> ids_;
  std::vector<std::size_t> order_;
  // Last: destroyed first, so that the job under way finishes while everything it reads is still there.
  OutputWriter writer_;
};

// Where each particle of a frame goes in id order (out[order[k]] = in[k]): O(n) when the ids are n consecutive
// integers (a lattice, a LAMMPS data file numbered 1..N), a sort otherwise.
void orderById(const long long* id, std::size_t n, std::vector<std::size_t>& order);

}  // namespace hopsim::md
