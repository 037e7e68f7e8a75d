// Cell-centred grid fields as VTK image data (.vti) per output step plus a ParaView .pvd collection; a grid split
// over MPI ranks as one .vti piece per rank and step joined by a .pvti per step, the steps by the same .pvd.
// Declared in every build; defined only when hopsim is built with VTK (HOPSIM_WITH_VTK): io/FieldOutput.cpp makes
// them there, and tests test the macro.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "io/FieldWriter.h"

namespace hopsim::io {

// The whole grid, written by one process.
class VtkSeriesWriter : public FieldSeriesSink {
 public:
  VtkSeriesWriter(std::filesystem::path dir, std::string baseName, GridGeometry grid, bool singlePrecision);

  // Writes dir/<base>_<step, zero-padded to 9 digits>.vti (binary appended, zlib-compressed, under a temporary
  // name, renamed when complete) and rewrites dir/<base>.pvd atomically listing every step written so far.
  // Writing a step again replaces its entry.
  void write(long long step, double time, const std::vector<FieldView>& fields) override;
  bool listEarlier(long long step, double time, const std::vector<FieldView>& fields) override {
    series_.adopt(step, time, fields);
    return true;
  }

  // dir/<base>.pvd, dir/<base>_<step>.vti
  std::filesystem::path seriesPath() const { return series_.seriesPath(); }
  std::filesystem::path stepPath(long long step) const { return series_.stepPath(step, ".vti"); }

 private:
  SeriesIndex series_;
  GridGeometry grid_;
  bool single_;
};

// A grid split into blocks (one per MPI rank): each rank writes its block as a .vti piece whose extent is the block's
// place in the whole grid, and once every piece of a step is complete, rank 0 writes the step's .pvti naming them and
// the .pvd over all steps. ParaView opens the .pvd as one image per step. writePiece and commitStep need no MPI;
// write() runs them over `comm`.
class PartitionedVtkSeriesWriter : public PartitionedSeriesSink {
 public:
  PartitionedVtkSeriesWriter(std::filesystem::path dir, std::string baseName, GridGeometry grid,
                             std::vector<GridBlock> blocks, bool singlePrecision, mpi::Comm comm = mpi::Comm::self());

  // Writes dir/<pieceFileName(step, piece, ".vti")> atomically: the block's cells only (fields hold
  // blocks[piece].cellCount() cells, x fastest), its extent the block's point extent in the whole grid.
  void writePiece(long long step, double time, int piece, const std::vector<FieldView>& fields) const override;
  // Writes dir/<base>_<step>.pvti (whole extent, arrays, one Piece per block) and rewrites dir/<base>.pvd, both
  // atomically.
  void commitStep(long long step, double time, const std::vector<FieldView>& fields) override;
  bool listEarlier(long long step, double time, const std::vector<FieldView>& fields) override {
    series_.adopt(step, time, fields);
    return true;
  }

  // dir/<base>.pvd, dir/<base>_<step>.pvti, dir/<base>_<step>/r<piece>.vti
  std::filesystem::path seriesPath() const { return series_.seriesPath(); }
  std::filesystem::path stepPath(long long step) const { return series_.stepPath(step, ".pvti"); }
  std::filesystem::path piecePath(long long step, int piece) const { return series_.piecePath(step, piece, ".vti"); }

 private:
  std::string pvti(const std::vector<FieldView>& fields, long long step) const;

  SeriesIndex series_;
  GridGeometry grid_;
  bool single_;
};

}  // namespace hopsim::io
