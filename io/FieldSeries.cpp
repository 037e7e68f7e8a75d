// Grid field checks and file names, the series bookkeeping, and the rank protocol of a split grid's series.
#include "io/FieldSeries.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "io/AtomicFile.h"

namespace hopsim::io {

bool isSafeName(const std::string& name, bool allowDashDot) {
  if (name.empty() || name.front() == '.' || name.front() == '-') return false;
  return std::all_of(name.begin(), name.end(), [&](char c) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    return alnum || c == '_' || (allowDashDot && (c == '-' || c == '.'));
  });
}

void checkBaseName(const std::string& base) {
  if (!isSafeName(base, true))
    throw std::invalid_argument(fmt::format("output base name '{}' must be letters, digits, '_', '-' or '.'", base));
}

std::string stepFileName(const std::string& baseName, long long step, const std::string& extension) {
  if (step < 0) throw std::invalid_argument(fmt::format("output step {} is negative", step));
  return fmt::format("{}_{:09d}{}", baseName, step, extension);
}

std::string pieceFileName(const std::string& baseName, long long step, int piece, const std::string& extension) {
  if (piece < 0) throw std::invalid_argument(fmt::format("piece {} is negative", piece));
  return fmt::format("{}/r{:05d}{}", stepFileName(baseName, step, ""), piece, extension);
}

void checkGrid(const GridGeometry& grid) {
  if (grid.dimensions != 2 && grid.dimensions != 3)
    throw std::invalid_argument(fmt::format("grid dimensions must be 2 or 3, not {}", grid.dimensions));
  for (long long n : grid.cells)
    if (n < 1) throw std::invalid_argument(fmt::format("grid cell counts must be positive, got {}", n));
  if (grid.dimensions == 2 && grid.cells[2] != 1)
    throw std::invalid_argument(fmt::format("a 2D grid has one cell in z, not {}", grid.cells[2]));
  if (!(grid.spacing > 0))
    throw std::invalid_argument(fmt::format("grid spacing must be positive, not {}", grid.spacing));
}

void checkFields(const std::vector<FieldView>& fields) {
  std::set<std::string> seen;
  for (const auto& f : fields) {
    if (!isSafeName(f.name, false))
      throw std::invalid_argument(
          fmt::format("field name '{}' must be letters, digits and '_' (it becomes an HDF5 path and XML)", f.name));
    if (!seen.insert(f.name).second) throw std::invalid_argument(fmt::format("field '{}' given twice", f.name));
    if (f.components != 1 && f.components != 3)
      throw std::invalid_argument(fmt::format("field '{}' has {} components; 1 or 3 are supported", f.name,
                                              f.components));
    if (!f.data && !f.floats) throw std::invalid_argument(fmt::format("field '{}' has no data", f.name));
    if (f.data && f.floats)
      throw std::invalid_argument(fmt::format("field '{}' has both double and single values", f.name));
  }
}

std::vector<FieldView> widened(const std::vector<FieldView>& fields, long long cells,
                               std::vector<std::vector<double>>& storage) {
  std::vector<FieldView> out = fields;
  for (FieldView& f : out) {
    if (!f.floats) continue;
    const std::size_t n = static_cast<std::size_t>(cells) * static_cast<std::size_t>(f.components);
    storage.emplace_back(f.floats, f.floats + n);
    f.data = storage.back().data();
    f.floats = nullptr;
  }
  return out;
}

void checkBlocks(const GridGeometry& grid, const std::vector<GridBlock>& blocks) {
  if (blocks.empty()) throw std::invalid_argument("a split grid needs at least one block");
  long long covered = 0;
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    const GridBlock& k = blocks[b];
    for (int a = 0; a < 3; ++a)
      if (k.count[a] < 1 || k.first[a] < 0 || k.first[a] + k.count[a] > grid.cells[a])
        throw std::invalid_argument(fmt::format("block {} (cells {} + {} along axis {}) is not inside the grid of {}",
                                                b, k.first[a], k.count[a], a, grid.cells[a]));
    covered += k.cellCount();
    for (std::size_t p = 0; p < b; ++p) {
      bool overlap = true;
      for (int a = 0; a < 3; ++a)
        overlap = overlap && k.first[a] < blocks[p].first[a] + blocks[p].count[a] &&
                  blocks[p].first[a] < k.first[a] + k.count[a];
      if (overlap) throw std::invalid_argument(fmt::format("blocks {} and {} overlap", p, b));
    }
  }
  // Disjoint blocks inside the grid cover it exactly when their cells add up to the grid's.
  if (covered != grid.cellCount())
    throw std::invalid_argument(
        fmt::format("the blocks hold {} cells, the grid {}: they leave a gap", covered, grid.cellCount()));
}

void checkPiece(int piece, const std::vector<GridBlock>& blocks) {
  if (piece < 0 || piece >= static_cast<int>(blocks.size()))
    throw std::invalid_argument(fmt::format("piece {} of a grid split into {} blocks", piece, blocks.size()));
}

SeriesIndex::SeriesIndex(std::filesystem::path dir, std::string baseName, std::string seriesExtension)
    : dir_(std::move(dir)), base_(std::move(baseName)), seriesExtension_(std::move(seriesExtension)) {
  checkBaseName(base_);
}

std::filesystem::path SeriesIndex::stepPath(long long step, const std::string& extension) const {
  return dir_ / stepFileName(base_, step, extension);
}

std::filesystem::path SeriesIndex::piecePath(long long step, int piece, const std::string& extension) const {
  return dir_ / pieceFileName(base_, step, piece, extension);
}

void SeriesIndex::add(long long step, double time, const std::vector<FieldView>& fields,
                      std::vector<GridBlock> pieces) {
  stepFileName(base_, step, "");  // throws for a negative step
  Entry entry{step, time, {}, {}, std::move(pieces)};
  for (const auto& f : fields) {
    entry.fields.emplace_back(f.name, f.components);
    entry.units.push_back(f.units);
  }
  auto same = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.step == step; });
  if (same != entries_.end())
    *same = std::move(entry);
  else
    entries_.push_back(std::move(entry));
  std::stable_sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) { return a.step < b.step; });
}

void SeriesIndex::save(const std::string& text) const {
  // The step's files made it already, unless the caller committing the step wrote none of them itself.
  ensureDirectory(dir_);
  writeFileAtomic(seriesPath(), text);
}

void PartitionedSeriesSink::write(long long step, double time, const std::vector<FieldView>& fields) {
  // The same on every rank, so every rank throws here alike and none is left waiting below.
  if (static_cast<int>(blocks_.size()) != comm_.size())
    throw std::invalid_argument(fmt::format("{} blocks for {} ranks: one block per rank", blocks_.size(),
                                            comm_.size()));
  const int rank = comm_.rank();
  std::string error;
  try {
    writePiece(step, time, rank, fields);
  } catch (const std::exception& e) {
    error = e.what();
  }
  mpi::throwIfAnyFailed(comm_, error, fmt::format("the field files of step {}", step));
  if (comm_.isRoot()) {
    try {
      commitStep(step, time, fields);
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  mpi::throwIfAnyFailed(comm_, error, fmt::format("the series files of step {}", step));
}

}  // namespace hopsim::io
