// H5MD trajectory writer (particles/all/{position, velocity, id, box}, observables) plus an XDMF file for ParaView.
#pragma once

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
  // One sample of named scalar observables (thermo columns), each its own H5MD time series.
  void observables(long long step, double time, const std::vector<std::pair<std::string, double>>& values);
  void finish();
  int frames() const { return frames_; }
  const std::filesystem::path& path() const { return final_; }

 private:
  struct Series;
  Series& series(const std::string& group, const std::vector<unsigned long long>& valueShape);
  void writeXdmf() const;
  void create(const std::string& creatorVersion);
  void reopen(long long lastStep);

  std::filesystem::path final_, part_;
  std::size_t n_;
  long long fileId_ = -1;
  std::vector<std::pair<std::string, Series*>> series_;
  std::vector<std::pair<long long, double>> frameTimes_;
  int frames_ = 0;
  bool finished_ = false;
};

}  // namespace hopsim::io::md
