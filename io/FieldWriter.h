// Cell-centred grid fields as one HDF5 file per output step, joined into a time series by an XDMF file ParaView opens.
#pragma once

#include <array>
#include <filesystem>
#include <string>
#include <vector>

namespace hopsim::io {

struct GridGeometry {
  std::array<long long, 3> cells{1, 1, 1};  // nx, ny, nz (nz = 1 for 2D)
  int dimensions = 3;                        // 2 or 3
  std::array<double, 3> origin{0, 0, 0};
  double spacing = 1.0;

  long long cellCount() const { return cells[0] * cells[1] * cells[2]; }
};

// One cell-centred field, x fastest then y then z.
struct FieldView {
  std::string name;              // "density", "velocity", "flags": letters, digits and '_' only
  int components = 1;            // 1 (scalar) or 3 (vector: data[cell * 3 + c])
  const double* data = nullptr;  // cells.x * y * z * components values
};

// Checks a grid and a set of fields before anything is written, so a bad call never leaves a partial file.
// Throws std::invalid_argument naming the problem.
void checkGrid(const GridGeometry& grid);
void checkFields(const std::vector<FieldView>& fields);

// Names that go into file names and XML attributes unescaped: letters, digits, '_', '-', '.' (no leading '.').
bool isSafeName(const std::string& name, bool allowDashDot);

// "<base>_<step, zero-padded to 9 digits><extension>", shared by the HDF5 and VTK series.
std::string stepFileName(const std::string& baseName, long long step, const std::string& extension);

class FieldSeriesWriter {
 public:
  FieldSeriesWriter(std::filesystem::path dir, std::string baseName, GridGeometry grid, bool singlePrecision);

  // Writes dir/<base>_<step, zero-padded to 9 digits>.h5 (under a temporary name, renamed when complete) and
  // rewrites dir/<base>.xmf atomically as a temporal collection over all steps written so far. Writing a step
  // again replaces its entry.
  void write(long long step, double time, const std::vector<FieldView>& fields);

  std::filesystem::path seriesPath() const;                // dir/<base>.xmf
  std::filesystem::path stepPath(long long step) const;    // dir/<base>_<step>.h5

 private:
  struct Entry {
    long long step;
    double time;
    std::vector<std::pair<std::string, int>> fields;  // name, components
  };
  std::string xdmf() const;

  std::filesystem::path dir_;
  std::string base_;
  GridGeometry grid_;
  bool single_;
  std::vector<Entry> entries_;
};

}  // namespace hopsim::io
