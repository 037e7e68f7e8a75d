// Cell-centred grid fields as one HDF5 file per output step, joined into a time series by an XDMF file ParaView opens.
// A grid split over MPI ranks is written, with parallel HDF5, into that same one file per step by every rank at
// once (collectively, through MPI-IO); otherwise as one HDF5 file per rank and step (no gather), joined by the same
// XDMF file as a spatial collection per step.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/Mpi.h"
#include "io/FieldSeries.h"

namespace hopsim::io {

// Every writer here takes a gzip level: 0 (the default) writes each dataset contiguous, in one block; 1-9 chunks,
// shuffles and deflates it (output.compression). Returns the level; throws std::invalid_argument outside 0-9.
int checkGzipLevel(int level);

// The whole grid, written by one process.
class FieldSeriesWriter : public FieldSeriesSink {
 public:
  FieldSeriesWriter(std::filesystem::path dir, std::string baseName, GridGeometry grid, bool singlePrecision,
                    int gzipLevel = 0);

  // Writes dir/<base>_<step, zero-padded to 9 digits>.h5 (under a temporary name, renamed when complete) and
  // rewrites dir/<base>.xmf atomically as a temporal collection over all steps written so far. Writing a step
  // again replaces its entry.
  void write(long long step, double time, const std::vector<FieldView>& fields) override;
  bool takesSingle() const override { return true; }
  // The second half of write(): rewrites dir/<base>.xmf with the step (re)listed; its file must be in place (a
  // collective writer writes it). The fields' data are not read, only their names and components.
  void commitStep(long long step, double time, const std::vector<FieldView>& fields);
  bool listEarlier(long long step, double time, const std::vector<FieldView>& fields) override;

  // dir/<base>.xmf, dir/<base>_<step>.h5
  std::filesystem::path seriesPath() const { return series_.seriesPath(); }
  std::filesystem::path stepPath(long long step) const { return series_.stepPath(step, ".h5"); }

 private:
  std::string xdmf() const;

  SeriesIndex series_;
  GridGeometry grid_;
  bool single_;
  int gzip_;
};

// A grid split into blocks (one per MPI rank), each block written by its own rank into a file of its own, and
// the files joined by one XDMF series that ParaView's XDMF reader shows as a single data set (a spatial
// collection of uniform grids per time step). writePiece and commitStep need no MPI; write() runs them over `comm`.
class PartitionedFieldSeriesWriter : public PartitionedSeriesSink {
 public:
  PartitionedFieldSeriesWriter(std::filesystem::path dir, std::string baseName, GridGeometry grid,
                               std::vector<GridBlock> blocks, bool singlePrecision,
                               mpi::Comm comm = mpi::Comm::self(), int gzipLevel = 0);
  bool takesSingle() const override { return true; }

  // Writes dir/<pieceFileName(step, piece, ".h5")> atomically: the block's cells only (fields hold
  // blocks[piece].cellCount() cells, x fastest), with attributes step, time, first (the block's first cell, x y z)
  // and grid_cells (the whole grid's cells, x y z).
  void writePiece(long long step, double time, int piece, const std::vector<FieldView>& fields) const override;
  // Rewrites dir/<base>.xmf atomically, the step (re)listed as the spatial collection of every block's file.
  void commitStep(long long step, double time, const std::vector<FieldView>& fields) override;
  bool listEarlier(long long step, double time, const std::vector<FieldView>& fields) override;

  // dir/<base>.xmf, dir/<base>_<step>/r<piece>.h5
  std::filesystem::path seriesPath() const { return series_.seriesPath(); }
  std::filesystem::path piecePath(long long step, int piece) const { return series_.piecePath(step, piece, ".h5"); }

 private:
  std::string xdmf() const;

  SeriesIndex series_;
  GridGeometry grid_;
  bool single_;
  int gzip_;
};

// A grid split into blocks (one per rank of `comm`) written by all ranks together into one HDF5 file per step
// through parallel HDF5: each rank writes its block into a hyperslab of every dataset with one collective transfer.
// The files and the series are the ones a FieldSeriesWriter of the whole grid writes on one rank (same datasets,
// shapes, attributes, same .xmf), so nothing downstream can tell how many ranks wrote them.
class CollectiveFieldSeriesWriter : public FieldSeriesSink {
 public:
  // Whether this build's HDF5 is parallel (HOPSIM_HDF5_PARALLEL); without it the constructor throws.
  static bool available();

  // Collective over comm. blocks[r] is rank r's block; comm.size() == blocks.size().
  CollectiveFieldSeriesWriter(std::filesystem::path dir, std::string baseName, GridGeometry grid,
                              std::vector<GridBlock> blocks, bool singlePrecision, mpi::Comm comm,
                              int gzipLevel = 0);

  // Collective: every rank passes its own block's fields (blocks[rank].cellCount() cells, x fastest). All ranks
  // write dir/<base>_<step>.h5 under one temporary name; once every rank's part is complete, rank 0 renames it and
  // rewrites dir/<base>.xmf. An error on any rank throws on every rank, and no file takes the final name. (Errors
  // are caught before the file is opened or come from collective HDF5 calls, which fail on every rank alike; a rank
  // failing alone inside one, as with any MPI-IO, would leave the others waiting.)
  void write(long long step, double time, const std::vector<FieldView>& fields) override;
  bool takesSingle() const override { return true; }
  bool listEarlier(long long step, double time, const std::vector<FieldView>& fields) override {
    return series_.listEarlier(step, time, fields);
  }

  std::filesystem::path seriesPath() const { return series_.seriesPath(); }
  std::filesystem::path stepPath(long long step) const { return series_.stepPath(step); }

 private:
  FieldSeriesWriter series_;  // names, checks and the .xmf; only rank 0 writes through it
  GridGeometry grid_;
  std::vector<GridBlock> blocks_;
  bool single_;
  int gzip_;
  mpi::Comm comm_;
  long rootProcess_;  // rank 0's process id: the temporary file's name, the same on every rank
};

}  // namespace hopsim::io
