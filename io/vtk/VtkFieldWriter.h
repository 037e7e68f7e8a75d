// Cell-centred grid fields as VTK image data (.vti) per output step plus a ParaView .pvd collection.
// Declared in every build; defined only when hopsim is built with VTK (HOPSIM_WITH_VTK), so callers test the macro.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "io/FieldWriter.h"

namespace hopsim::io {

class VtkSeriesWriter {
 public:
  VtkSeriesWriter(std::filesystem::path dir, std::string baseName, GridGeometry grid, bool singlePrecision);

  // Writes dir/<base>_<step, zero-padded to 9 digits>.vti (binary appended, zlib-compressed, under a temporary
  // name, renamed when complete) and rewrites dir/<base>.pvd atomically listing every step written so far.
  // Writing a step again replaces its entry.
  void write(long long step, double time, const std::vector<FieldView>& fields);

  std::filesystem::path seriesPath() const;              // dir/<base>.pvd
  std::filesystem::path stepPath(long long step) const;  // dir/<base>_<step>.vti

 private:
  struct Entry {
    long long step;
    double time;
  };
  std::string pvd() const;

  std::filesystem::path dir_;
  std::string base_;
  GridGeometry grid_;
  bool single_;
  std::vector<Entry> entries_;
};

}  // namespace hopsim::io
