// Cell-centred grid fields as VTK image data (.vti) per output step plus a ParaView .pvd collection; a grid split
// over MPI ranks as one .vti piece per rank and step joined by a .pvti per step, the steps by the same .pvd.
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

// A grid split into blocks (one per MPI rank): each rank writes its block as a .vti piece whose extent is the block's
// place in the whole grid, and once every piece of a step is complete (the caller's collective), one rank writes the
// step's .pvti naming them and the .pvd over all steps. ParaView opens the .pvd as one image per step. No MPI in here.
class PartitionedVtkSeriesWriter {
 public:
  PartitionedVtkSeriesWriter(std::filesystem::path dir, std::string baseName, GridGeometry grid,
                             std::vector<GridBlock> blocks, bool singlePrecision);

  // Writes dir/<pieceFileName(step, piece, ".vti")> atomically: the block's cells only (fields hold
  // blocks[piece].cellCount() cells, x fastest), its extent the block's point extent in the whole grid.
  void writePiece(long long step, double time, int piece, const std::vector<FieldView>& fields) const;
  // Writes dir/<base>_<step>.pvti (whole extent, arrays, one Piece per block) and rewrites dir/<base>.pvd, both
  // atomically. The fields' data are not read, only their names and components. Call after every piece is written.
  void commitStep(long long step, double time, const std::vector<FieldView>& fields);

  std::filesystem::path seriesPath() const;                          // dir/<base>.pvd
  std::filesystem::path stepPath(long long step) const;              // dir/<base>_<step>.pvti
  std::filesystem::path piecePath(long long step, int piece) const;  // dir/<base>_<step>/r<piece>.vti

 private:
  struct Entry {
    long long step;
    double time;
  };
  std::string pvti(const std::vector<FieldView>& fields, long long step) const;
  std::string pvd() const;

  std::filesystem::path dir_;
  std::string base_;
  GridGeometry grid_;
  std::vector<GridBlock> blocks_;
  bool single_;
  std::vector<Entry> entries_;
};

}  // namespace hopsim::io
