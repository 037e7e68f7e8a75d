// H5MD trajectory writer (particles/all/{position, velocity, id, box}, observables) plus an XDMF file for ParaView.
#pragma once

#include <array>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/md/ParticleState.h"

namespace hopsim::io::md {

// The file grows under NAME.part while the run goes on (flushed after each frame); finish() closes it, renames it to
// its final name and writes NAME.xmf next to it, so neither final name ever holds a half-written file.
class H5mdWriter {
 public:
  H5mdWriter(std::filesystem::path path, std::size_t particles, const std::string& creatorVersion);
  // Continues the trajectory an earlier run left (a restart from the checkpoint of step `lastStep`): its frames and
  // observable samples up to `lastStep` are kept, later ones dropped, and frames go on from there. The earlier file
  // is NAME.part where that run did not finish, else NAME; without either the trajectory starts afresh. Throws
  // std::runtime_error when the earlier file holds another number of particles or cannot be opened.
  H5mdWriter(std::filesystem::path path, std::size_t particles, const std::string& creatorVersion, long long lastStep);
  ~H5mdWriter();
  H5mdWriter(const H5mdWriter&) = delete;
  H5mdWriter& operator=(const H5mdWriter&) = delete;

  // Positions relative to the box origin, in [0, L); particles in id order.
  void frame(long long step, double time, const hopsim::md::ParticleState& s);
  // The same from arrays in id order: positions and velocities interleaved (particle k at [3k, 3k + 3)), ids
  // ascending. Each dataset of the frame is written by one H5Dwrite of the whole frame. A new file's positions and
  // velocities are stored as the first frame's values are (float: single-precision runs; the reader converts);
  // a continued file keeps the type it has. HOPSIM_INJECT_TRAJECTORY_WRITE_FAILURE=<step> makes the frame of that
  // step fail halfway (positions written, the rest not): how the tests show that a failed write leaves no
  // trajectory under the final name.
  void frame(long long step, double time, const std::array<double, 3>& box, const float* positions,
             const float* velocities, const long long* ids);
  void frame(long long step, double time, const std::array<double, 3>& box, const double* positions,
             const double* velocities, const long long* ids);
  // One sample of named scalar observables (thermo columns), each its own H5MD time series.
  void observables(long long step, double time, const std::vector<std::pair<std::string, double>>& values);
  void finish();
  int frames() const { return frames_; }
  const std::filesystem::path& path() const { return final_; }

 private:
  struct Series;
  Series& series(const std::string& group, const std::vector<unsigned long long>& valueShape, long long valueType);
  void frameValues(long long step, double time, const std::array<double, 3>& box, long long memType,
                   const void* positions, const void* velocities, const long long* ids);
  void writeXdmf() const;
  void create(const std::string& creatorVersion);
  void reopen(long long lastStep);

  std::filesystem::path final_, part_;
  std::size_t n_;
  long long fileId_ = -1;
  std::vector<std::pair<std::string, Series*>> series_;
  std::vector<std::pair<long long, double>> frameTimes_;
  int frames_ = 0;
  int valueBytes_ = 8;  // of the stored positions and velocities (the XDMF file says so)
  bool finished_ = false;
};

}  // namespace hopsim::io::md
