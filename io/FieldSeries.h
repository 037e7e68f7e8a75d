// What every writer of cell-centred grid fields shares: the grid and field descriptions, the checks and file names,
// the FieldSeriesSink interface a run loop writes its output steps through, and the series bookkeeping.
#pragma once

#include <array>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/Mpi.h"

namespace hopsim::io {

struct GridGeometry {
  std::array<long long, 3> cells{1, 1, 1};  // nx, ny, nz (nz = 1 for 2D)
  int dimensions = 3;                        // 2 or 3
  std::array<double, 3> origin{0, 0, 0};
  double spacing = 1.0;
  std::string lengthUnit;  // of origin and spacing, e.g. "m"; empty: none stated (lattice units)

  long long cellCount() const { return cells[0] * cells[1] * cells[2]; }
};

// One rank's block of a grid split over ranks: cells [first, first + count) in global cell coordinates.
struct GridBlock {
  std::array<long long, 3> first{0, 0, 0};
  std::array<long long, 3> count{1, 1, 1};

  long long cellCount() const { return count[0] * count[1] * count[2]; }
};

// One cell-centred field, x fastest then y then z: cells.x * y * z * components values in double or in single
// precision (one of data and floats). A GPU run's single-precision fields reach the writers as the floats the device
// computed, so that a single-precision file is written without a conversion pass.
struct FieldView {
  std::string name;                // "density", "velocity", "flags": letters, digits and '_' only
  int components = 1;              // 1 (scalar) or 3 (vector: data[cell * 3 + c])
  const double* data = nullptr;    // double-precision values, or
  const float* floats = nullptr;   // single-precision values
  std::string units;               // e.g. "m/s", written beside the values where the format allows; empty: none
};

// `fields` with every single-precision field widened to double (exactly: a float is a double), the values kept in
// `storage`: for a writer that takes doubles only (FieldSeriesSink::takesSingle). Each field has `cells` cells.
std::vector<FieldView> widened(const std::vector<FieldView>& fields, long long cells,
                               std::vector<std::vector<double>>& storage);

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

// A time series of field files in one format, as a run loop sees it: one call per output step, one at the end. The
// run keeps a list of them (io/FieldOutput.h makes it) and hands each the same fields.
class FieldSeriesSink {
 public:
  virtual ~FieldSeriesSink() = default;

  // Writes the fields of one output step and lists the step in the series file; writing a step again replaces it.
  // `fields` hold the cells this rank writes: the whole grid for a writer of the whole grid, this rank's block for
  // a writer of a split grid (then the call is collective over the writer's ranks, and an error on any rank throws
  // on every rank).
  virtual void write(long long step, double time, const std::vector<FieldView>& fields) = 0;

  // Whether write() and writePiece() take single-precision fields (FieldView::floats); a writer that does not is
  // handed them widened to double (widened()).
  virtual bool takesSingle() const { return false; }

  // Ends the series. Every write leaves the files and the series complete (the series file is rewritten whole, under
  // a temporary name, each step), so the writers here have nothing left to do; a run calls it all the same, on
  // every rank, so that a writer which holds something back has its place to finish.
  virtual void finish() {}
  // Lists a step that an earlier run of this series wrote (a restarted run continuing it), without writing a file;
  // the series file lists it from the next write on. Every rank calls it, with the step's field names and
  // components (their data are not read). The HDF5 writers list the step's files as they are on disk (one file, or
  // pieces written by another number of ranks) and return false, listing nothing, when there are none.
  virtual bool listEarlier(long long step, double time, const std::vector<FieldView>& fields) = 0;
};

// The bookkeeping of a series that every writer repeats: its files, named after one base name in one folder, and the
// steps written so far with their fields, in step order, which the series file (.xmf, .pvd) lists. ParaView orders a
// temporal collection by the order of its entries, so a step written again replaces its entry in place.
class SeriesIndex {
 public:
  struct Entry {
    long long step;
    double time;
    std::vector<std::pair<std::string, int>> fields;  // name, components
    std::vector<std::string> units;                   // each field's units ("" when none)
    // How the step's files split the grid: empty, one file of the whole grid (<base>_<step>.h5); else one file per
    // block (<base>_<step>/r<k>.h5). A restarted run lists steps written by another number of ranks as they were.
    std::vector<GridBlock> pieces;
  };

  // Throws std::invalid_argument unless checkBaseName(baseName). seriesExtension names the series file (".xmf").
  SeriesIndex(std::filesystem::path dir, std::string baseName, std::string seriesExtension);

  const std::string& baseName() const { return base_; }
  // dir/<base><seriesExtension>, dir/<stepFileName(step, extension)>, dir/<pieceFileName(step, piece, extension)>
  std::filesystem::path seriesPath() const { return dir_ / (base_ + seriesExtension_); }
  std::filesystem::path stepPath(long long step, const std::string& extension) const;
  std::filesystem::path piecePath(long long step, int piece, const std::string& extension) const;
  const std::vector<Entry>& entries() const { return entries_; }
  // Lists the step without rewriting the series file (FieldSeriesSink::listEarlier).
  void adopt(long long step, double time, const std::vector<FieldView>& fields, std::vector<GridBlock> pieces = {}) {
    add(step, time, fields, std::move(pieces));
  }

  // Lists the step (only the fields' names and components are kept; a negative step throws) and rewrites the series
  // file atomically as seriesText(), which reads entries() with the step in place.
  template <class SeriesText>
  void record(long long step, double time, const std::vector<FieldView>& fields, SeriesText&& seriesText,
              std::vector<GridBlock> pieces = {}) {
    add(step, time, fields, std::move(pieces));
    save(seriesText());
  }

 private:
  void add(long long step, double time, const std::vector<FieldView>& fields, std::vector<GridBlock> pieces);
  void save(const std::string& text) const;

  std::filesystem::path dir_;
  std::string base_;
  std::string seriesExtension_;
  std::vector<Entry> entries_;
};

// A sink for a grid split into blocks, one per rank of a communicator, each block written by its rank into a file of
// its own (writePiece, no MPI) and the files named in the series by rank 0 once every block of the step is complete
// (commitStep), so a series never lists a piece that is missing. write() runs the two halves over the ranks; a caller
// that writes every piece itself (one process writing all blocks) calls them directly.
class PartitionedSeriesSink : public FieldSeriesSink {
 public:
  // Collective over the communicator, whose size must be the number of blocks: rank r writes blocks()[r]. A failure on any rank
  // throws on every rank.
  void write(long long step, double time, const std::vector<FieldView>& fields) final;

  // Writes the file of blocks()[piece] at this step: fields hold that block's cells only, x fastest.
  virtual void writePiece(long long step, double time, int piece, const std::vector<FieldView>& fields) const = 0;
  // Lists the step, as every block's file, in the series files. The fields' data are not read, only their names and
  // components. Call after every piece of the step is written.
  virtual void commitStep(long long step, double time, const std::vector<FieldView>& fields) = 0;

  const std::vector<GridBlock>& blocks() const { return blocks_; }

 protected:
  // The derived writer checks the blocks against its grid (checkBlocks) once it has checked the grid.
  PartitionedSeriesSink(std::vector<GridBlock> blocks, mpi::Comm comm) : blocks_(std::move(blocks)), comm_(comm) {}

 private:
  std::vector<GridBlock> blocks_;
  mpi::Comm comm_;
};

}  // namespace hopsim::io
