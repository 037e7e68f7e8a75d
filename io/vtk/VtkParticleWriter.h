// VTK particle output: one .vtp per output step plus a .pvd series (ParaView), only in builds with VTK.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/md/ParticleState.h"

namespace hopsim::io {

// Defined in VtkParticleWriter.cpp, which is compiled only when HOPSIM_WITH_VTK: callers guard their use with
// `#if HOPSIM_WITH_VTK`. Every file is written under a temporary name and renamed when complete.
class VtkParticleWriter {
 public:
  VtkParticleWriter(std::filesystem::path dir, std::string name);
  ~VtkParticleWriter();
  VtkParticleWriter(const VtkParticleWriter&) = delete;
  VtkParticleWriter& operator=(const VtkParticleWriter&) = delete;
  void write(long long step, double time, const hopsim::md::ParticleState& s);
  // A restarted run: lists the piece an earlier run wrote for `step`, where there is one, without writing it.
  void listEarlier(long long step, double time);
  void finish();  // the .pvd is rewritten after every piece, so finish() only marks the end

 private:
  void writeSeries() const;
  std::filesystem::path dir_;
  std::string name_;
  std::vector<std::pair<double, std::string>> pieces_;
};

}  // namespace hopsim::io
