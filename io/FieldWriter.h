// Cell-centred grid fields as one HDF5 file per output step, joined into a time series by an XDMF file ParaView opens.
// A grid split over MPI ranks is written, with parallel HDF5, into that same one file per step by every rank at
// once (collectively, through MPI-IO); otherwise as one HDF5 file per rank and step (no gather), joined by the same
// XDMF file as a spatial collection per step.
#pragma once

#include <algorithm>
#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include "core/Mpi.h"

namespace hopsim::io {

struct GridGeometry {
  std::array<long long, 3> cells{1, 1, 1};  // nx, ny, nz (nz = 1 for 2D)
  int dimensions = 3;                        // 2 or 3
  std::array<double, 3> origin{0, 0, 0};
  double spacing = 1.0;

  long long cellCount() const { return cells[0] * cells[1] * cells[2]; }
};

// One rank's block of a grid split over ranks: cells [first, first + count) in global cell coordinates.
struct GridBlock {
  std::array<long long, 3> first{0, 0, 0};
  std::array<long long, 3> count{1, 1, 1};

  long long cellCount() const { return count[0] * count[1] * count[2]; }
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
// Checks that the blocks tile the grid: each inside it, non-empty, and every cell in exactly one block.
void checkBlocks(const GridGeometry& grid, const std::vector<GridBlock>& blocks);

// Names that go into file names and XML attributes unescaped: letters, digits, '_', '-', '.' (no leading '.').
bool isSafeName(const std::string& name, bool allowDashDot);
// The base name of a series of files: throws std::invalid_argument unless isSafeName(base, true).
void checkBaseName(const std::string& base);

// "<base>_<step, zero-padded to 9 digits><extension>", shared by the HDF5 and VTK series.
std::string stepFileName(const std::string& baseName, long long step, const std::string& extension);

// The file of one block (piece) of a split grid at one step, relative to the output directory:
// "<base>_<step, 9 digits>/r<piece, at least 5 digits><extension>". One folder per step keeps the output directory
// short however many ranks write.
std::string pieceFileName(const std::string& baseName, long long step, int piece, const std::string& extension);

// Throws std::invalid_argument unless piece indexes one of `blocks`.
void checkPiece(int piece, const std::vector<GridBlock>& blocks);

// Adds a series entry (anything with a `step`), replacing one of the same step, and keeps the entries ordered by
// step: ParaView orders a temporal collection by the order of its entries.
template <class Entry>
void recordStep(std::vector<Entry>& entries, Entry entry) {
  auto same = std::find_if(entries.begin(), entries.end(), [&](const Entry& e) { return e.step == entry.step; });
  if (same != entries.end())
    *same = std::move(entry);
  else
    entries.push_back(std::move(entry));
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.step < b.step; });
}

class FieldSeriesWriter {
 public:
  FieldSeriesWriter(std::filesystem::path dir, std::string baseName, GridGeometry grid, bool singlePrecision);

  // Writes dir/<base>_<step, zero-padded to 9 digits>.h5 (under a temporary name, renamed when complete) and
  // rewrites dir/<base>.xmf atomically as a temporal collection over all steps written so far. Writing a step
  // again replaces its entry.
  void write(long long step, double time, const std::vector<FieldView>& fields);
  // The second half of write(): rewrites dir/<base>.xmf with the step (re)listed; its file must be in place (a
  // collective writer writes it). The fields' data are not read, only their names and components.
  void commitStep(long long step, double time, const std::vector<FieldView>& fields);

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

// A grid split into blocks (one per MPI rank), each block written by its own rank into a file of its own, and
// the files joined by one XDMF series that ParaView's XDMF reader shows as a single data set (a spatial
// collection of uniform grids per time step). No MPI in here: every rank calls writePiece for its block, and once
// every piece of a step is complete (the caller's collective), one rank calls commitStep to name them in the series.
class PartitionedFieldSeriesWriter {
 public:
  PartitionedFieldSeriesWriter(std::filesystem::path dir, std::string baseName, GridGeometry grid,
                               std::vector<GridBlock> blocks, bool singlePrecision);

  // Writes dir/<pieceFileName(step, piece, ".h5")> atomically: the block's cells only (fields hold
  // blocks[piece].cellCount() cells, x fastest), with attributes step, time, first (the block's first cell, x y z)
  // and grid_cells (the whole grid's cells, x y z).
  void writePiece(long long step, double time, int piece, const std::vector<FieldView>& fields) const;
  // Rewrites dir/<base>.xmf atomically, the step (re)listed as the spatial collection of every block's file. The
  // fields' data are not read, only their names and components. Call after every piece of the step is written.
  void commitStep(long long step, double time, const std::vector<FieldView>& fields);

  std::filesystem::path seriesPath() const;                          // dir/<base>.xmf
  std::filesystem::path piecePath(long long step, int piece) const;  // dir/<base>_<step>/r<piece>.h5
  const std::vector<GridBlock>& blocks() const { return blocks_; }

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
  std::vector<GridBlock> blocks_;
  bool single_;
  std::vector<Entry> entries_;
};

// A grid split into blocks (one per rank of `comm`) written by all ranks together into one HDF5 file per step
// through parallel HDF5: each rank writes its block into a hyperslab of every dataset with one collective transfer.
// The files and the series are the ones a FieldSeriesWriter of the whole grid writes on one rank (same datasets,
// shapes, attributes, same .xmf), so nothing downstream can tell how many ranks wrote them.
class CollectiveFieldSeriesWriter {
 public:
  // Whether this build's HDF5 is parallel (HOPSIM_HDF5_PARALLEL); without it the constructor throws.
  static bool available();

  // Collective over comm. blocks[r] is rank r's block; comm.size() == blocks.size().
  CollectiveFieldSeriesWriter(std::filesystem::path dir, std::string baseName, GridGeometry grid,
                              std::vector<GridBlock> blocks, bool singlePrecision, mpi::Comm comm);

  // Collective: every rank passes its own block's fields (blocks[rank].cellCount() cells, x fastest). All ranks
  // write dir/<base>_<step>.h5 under one temporary name; once every rank's part is complete, rank 0 renames it and
  // rewrites dir/<base>.xmf. An error on any rank throws on every rank, and no file takes the final name. (Errors
  // are caught before the file is opened or come from collective HDF5 calls, which fail on every rank alike; a rank
  // failing alone inside one, as with any MPI-IO, would leave the others waiting.)
  void write(long long step, double time, const std::vector<FieldView>& fields);

  std::filesystem::path seriesPath() const { return series_.seriesPath(); }
  std::filesystem::path stepPath(long long step) const { return series_.stepPath(step); }

 private:
  FieldSeriesWriter series_;  // names, checks and the .xmf; only rank 0 writes through it
  GridGeometry grid_;
  std::vector<GridBlock> blocks_;
  bool single_;
  mpi::Comm comm_;
  long rootProcess_;  // rank 0's process id: the temporary file's name, the same on every rank
};

}  // namespace hopsim::io
