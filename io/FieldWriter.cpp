// HDF5 + XDMF time series of cell-centred grid fields.
#include "io/FieldWriter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <system_error>

#include "io/AtomicFile.h"
#include "io/Hdf5Handle.h"

#if HOPSIM_HDF5_PARALLEL
#include <mpi.h>  // MPI_Comm_f2c: the communicator for HDF5's MPI-IO driver
#endif

namespace hopsim::io {

int checkGzipLevel(int level) {
  if (level < 0 || level > 9)
    throw std::invalid_argument(fmt::format("gzip level {}: 0 (no compression) to 9", level));
  return level;
}

FieldSeriesWriter::FieldSeriesWriter(std::filesystem::path dir, std::string baseName, GridGeometry grid,
                                     bool singlePrecision, int gzipLevel)
    : series_(std::move(dir), std::move(baseName), ".xmf"), grid_(grid), single_(singlePrecision),
      gzip_(checkGzipLevel(gzipLevel)) {
  checkGrid(grid_);
}

namespace {

// How a step file is written: by this process alone (the defaults), or by every rank of a communicator at once, each
// its own block of every dataset (a file access list with the MPI-IO driver, a transfer list asking for collective
// writes). Every rank then makes the same calls in the same order, as parallel HDF5 requires of anything that
// creates objects or attributes.
struct Access {
  hid_t fileAccess = H5P_DEFAULT;
  hid_t transfer = H5P_DEFAULT;
  const GridBlock* part = nullptr;  // the cells of each dataset this process writes; null: all of them
};

// The step at which HOPSIM_INJECT_FIELD_WRITE_FAILURE=<step> makes writeStepFile fail halfway (after its first
// dataset, the temporary file half written), or -1: how the tests show that a failed write, in the run's writer
// thread or not, ends the run with an error and leaves no partial file under a final name.
long long injectedFailureStep() {
  const char* v = std::getenv("HOPSIM_INJECT_FIELD_WRITE_FAILURE");
  if (!v || !*v) return -1;
  char* end = nullptr;
  const long long step = std::strtoll(v, &end, 10);
  return *end ? -1 : step;
}

// Chunks of whole z planes (rows of x when a plane is large), about 1 MiB each: large enough for deflate to work well
// and for few chunk-index entries, small enough that a reader of one plane decompresses little besides it.
std::array<hsize_t, 4> chunkShape(const hsize_t dims[4], int rank, std::size_t valueBytes) {
  const hsize_t target = hsize_t(1) << 20;
  const hsize_t row = dims[2] * (rank == 4 ? dims[3] : 1) * valueBytes;
  const hsize_t plane = row * dims[1];
  std::array<hsize_t, 4> chunk{1, dims[1], dims[2], dims[3]};
  if (plane <= target) chunk[0] = std::min<hsize_t>(dims[0], std::max<hsize_t>(1, target / plane));
  else chunk[1] = std::min<hsize_t>(dims[1], std::max<hsize_t>(1, target / std::max<hsize_t>(1, row)));
  return chunk;
}

// A fixed-length string attribute on `object` (h5py reads it as bytes, ParaView's HDF5 view as text).
void writeStringAttribute(hid_t object, const char* name, const std::string& value,
                          const std::filesystem::path& path, const std::string& what) {
  using h5::own;
  auto type = own(H5Tcopy(H5T_C_S1), H5Tclose, "H5Tcopy", path, what);
  h5::checkStatus(H5Tset_size(type.get(), std::max<std::size_t>(1, value.size())), "H5Tset_size", path, what);
  h5::checkStatus(H5Tset_strpad(type.get(), H5T_STR_NULLPAD), "H5Tset_strpad", path, what);
  auto scalar = own(H5Screate(H5S_SCALAR), H5Sclose, "H5Screate", path, what);
  auto attr = own(H5Acreate2(object, name, type.get(), scalar.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose, "H5Acreate2",
                  path, what);
  h5::checkStatus(H5Awrite(attr.get(), type.get(), value.c_str()), "H5Awrite", path, what);
}

// One HDF5 file of `cells` cells; `block` (a piece of a split grid, in a file of its own) adds the attributes first
// and grid_cells. Without compression each dataset is contiguous and written by one H5Dwrite of all its values (no
// type conversion where the values are already in the file's precision: one large block); with it (gzip level
// 1-9), chunked, shuffled and deflated.
void writeStepFile(const std::filesystem::path& path, const std::array<long long, 3>& cells, bool single,
                   int gzipLevel, long long step, double time, const std::vector<FieldView>& fields,
                   const GridBlock* block = nullptr, const GridGeometry* whole = nullptr, const Access& access = {}) {
  using h5::own;
  const bool failHalfway = injectedFailureStep() == step;
  // Written on the run's writer thread while the main thread may write a checkpoint: one thread in HDF5 at a time.
  std::lock_guard library(h5::libraryMutex());
  h5::QuietErrors quiet;
  auto file = own(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.fileAccess), H5Fclose, "H5Fcreate",
                  path);
  {
    auto scalar = own(H5Screate(H5S_SCALAR), H5Sclose, "H5Screate", path);
    auto stepAttr = own(H5Acreate2(file.get(), "step", H5T_STD_I64LE, scalar.get(), H5P_DEFAULT, H5P_DEFAULT),
                        H5Aclose, "H5Acreate2", path, "(attribute step)");
    h5::checkStatus(H5Awrite(stepAttr.get(), H5T_NATIVE_LLONG, &step), "H5Awrite", path, "(attribute step)");
    auto timeAttr = own(H5Acreate2(file.get(), "time", H5T_IEEE_F64LE, scalar.get(), H5P_DEFAULT, H5P_DEFAULT),
                        H5Aclose, "H5Acreate2", path, "(attribute time)");
    h5::checkStatus(H5Awrite(timeAttr.get(), H5T_NATIVE_DOUBLE, &time), "H5Awrite", path, "(attribute time)");
    if (block && whole) {
      const hsize_t three = 3;
      auto vec = own(H5Screate_simple(1, &three, nullptr), H5Sclose, "H5Screate_simple", path);
      const std::pair<const char*, const std::array<long long, 3>*> attrs[] = {{"first", &block->first},
                                                                                {"grid_cells", &whole->cells}};
      for (const auto& [name, values] : attrs) {
        const std::string what = fmt::format("(attribute {})", name);
        auto a = own(H5Acreate2(file.get(), name, H5T_STD_I64LE, vec.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                     "H5Acreate2", path, what);
        h5::checkStatus(H5Awrite(a.get(), H5T_NATIVE_LLONG, values->data()), "H5Awrite", path, what);
      }
    }
  }
  const hid_t fileType = single ? H5T_IEEE_F32LE : H5T_IEEE_F64LE;
  for (const auto& f : fields) {
    const std::string what = fmt::format("(dataset {})", f.name);
    // Slowest axis first, so x runs fastest in the file as in memory, and XDMF reads it in z y x order.
    const hsize_t dims[4] = {static_cast<hsize_t>(cells[2]), static_cast<hsize_t>(cells[1]),
                             static_cast<hsize_t>(cells[0]), 3};
    const int rank = f.components == 3 ? 4 : 3;
    auto space = own(H5Screate_simple(rank, dims, nullptr), H5Sclose, "H5Screate_simple", path, what);
    auto create = own(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "H5Pcreate", path, what);
    // No modification times in the object headers: the same fields make the same bytes, whenever they are written
    // (and the writer thread's files can be compared with the synchronous path's byte for byte).
    h5::checkStatus(H5Pset_obj_track_times(create.get(), false), "H5Pset_obj_track_times", path, what);
    if (gzipLevel > 0) {
      const auto chunk = chunkShape(dims, rank, single ? 4 : 8);
      h5::checkStatus(H5Pset_chunk(create.get(), rank, chunk.data()), "H5Pset_chunk", path, what);
      h5::checkStatus(H5Pset_shuffle(create.get()), "H5Pset_shuffle", path, what);
      h5::checkStatus(H5Pset_deflate(create.get(), static_cast<unsigned>(gzipLevel)), "H5Pset_deflate", path, what);
    }
    auto dset = own(H5Dcreate2(file.get(), f.name.c_str(), fileType, space.get(), H5P_DEFAULT, create.get(),
                               H5P_DEFAULT),
                    H5Dclose, "H5Dcreate2", path, what);
    // Every rank creates the same attributes (parallel HDF5 wants it so): the units are the same everywhere.
    if (!f.units.empty()) writeStringAttribute(dset.get(), "units", f.units, path, what + " (attribute units)");
    if (!access.part) {
      // HDF5 converts on the way where the values are not in the file's precision (doubles into a single-precision
      // file); floats into a single-precision file go out as they are.
      const hid_t memoryType = f.floats ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
      const void* values = f.floats ? static_cast<const void*>(f.floats) : static_cast<const void*>(f.data);
      h5::checkStatus(H5Dwrite(dset.get(), memoryType, H5S_ALL, H5S_ALL, access.transfer, values), "H5Dwrite", path,
                      what);
    } else {
      // This process's block: a hyperslab of the file's dataset, a whole array in memory.
      const GridBlock& b = *access.part;
      const hsize_t start[4] = {static_cast<hsize_t>(b.first[2]), static_cast<hsize_t>(b.first[1]),
                                static_cast<hsize_t>(b.first[0]), 0};
      const hsize_t count[4] = {static_cast<hsize_t>(b.count[2]), static_cast<hsize_t>(b.count[1]),
                                static_cast<hsize_t>(b.count[0]), 3};
      h5::checkStatus(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr),
                      "H5Sselect_hyperslab", path, what);
      auto memory = own(H5Screate_simple(rank, count, nullptr), H5Sclose, "H5Screate_simple", path, what);
      // Parallel HDF5 gives up a collective transfer for independent ones when it has to convert types on the way
      // (H5D_MPIO_DATATYPE_CONVERSION), so single precision is converted first, by HDF5's own double-to-float
      // conversion: the same bits a one-rank file holds.
      hid_t memoryType = f.floats ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
      const void* values = f.floats ? static_cast<const void*>(f.floats) : static_cast<const void*>(f.data);
      const std::size_t n = static_cast<std::size_t>(b.cellCount()) * static_cast<std::size_t>(f.components);
      std::vector<double> converted;
      if (!single && f.floats) {
        converted.assign(f.floats, f.floats + n);  // widened exactly, for the same reason
        memoryType = H5T_NATIVE_DOUBLE;
        values = converted.data();
      } else if (single && !f.floats) {
        converted.assign(f.data, f.data + n);  // H5Tconvert works in place; doubles leave room for the floats
        h5::checkStatus(H5Tconvert(H5T_NATIVE_DOUBLE, H5T_NATIVE_FLOAT, n, converted.data(), nullptr, H5P_DEFAULT),
                        "H5Tconvert", path, what);
        memoryType = H5T_NATIVE_FLOAT;
        values = converted.data();
      }
      h5::checkStatus(H5Dwrite(dset.get(), memoryType, memory.get(), space.get(), access.transfer, values),
                      "H5Dwrite", path, what);
    }
    dset.close("H5Dclose", path);
    if (failHalfway)
      throw std::runtime_error(fmt::format("{}: write failed (injected by HOPSIM_INJECT_FIELD_WRITE_FAILURE={})",
                                           path.string(), step));
  }
  file.close("H5Fclose", path);
}

}  // namespace

void FieldSeriesWriter::write(long long step, double time, const std::vector<FieldView>& fields) {
  checkFields(fields);
  writeFileVia(stepPath(step),
               [&](const auto& tmp) { writeStepFile(tmp, grid_.cells, single_, gzip_, step, time, fields); });
  commitStep(step, time, fields);
}

void FieldSeriesWriter::commitStep(long long step, double time, const std::vector<FieldView>& fields) {
  series_.record(step, time, fields, [&] { return xdmf(); });
}

namespace {

// One <Grid GridType="Uniform"> of `cells` cells whose first cell's corner is at `origin`, its fields read from
// `file` (relative to the .xmf); every line indented by `indent`.
// Units (of the geometry, of each field) go into XDMF's own <Information> elements, which readers pass over.
std::string uniformGrid(const std::string& name, const std::string& indent, const std::optional<double>& time,
                        const std::array<long long, 3>& c, const std::array<double, 3>& o, double h, int precision,
                        const std::string& file, const std::vector<std::pair<std::string, int>>& fields,
                        const std::vector<std::string>& units, const std::string& lengthUnit) {
  std::string out;
  out += fmt::format("{}<Grid Name=\"{}\" GridType=\"Uniform\">\n", indent, name);
  if (time) out += fmt::format("{}  <Time Value=\"{}\"/>\n", indent, *time);
  // Topology and geometry count points, slowest axis first; cells are one fewer along each axis.
  out += fmt::format("{}  <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"{} {} {}\"/>\n", indent, c[2] + 1,
                     c[1] + 1, c[0] + 1);
  out += fmt::format("{}  <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n", indent);
  out += fmt::format(
      "{}    <DataItem Name=\"Origin\" Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
      "Format=\"XML\">{} {} {}</DataItem>\n",
      indent, o[2], o[1], o[0]);
  out += fmt::format(
      "{}    <DataItem Name=\"Spacing\" Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
      "Format=\"XML\">{} {} {}</DataItem>\n",
      indent, h, h, h);
  if (!lengthUnit.empty()) out += fmt::format("{}    <Information Name=\"units\" Value=\"{}\"/>\n", indent, lengthUnit);
  out += fmt::format("{}  </Geometry>\n", indent);
  for (std::size_t k = 0; k < fields.size(); ++k) {
    const auto& [field, components] = fields[k];
    const bool vector = components == 3;
    out += fmt::format("{}  <Attribute Name=\"{}\" AttributeType=\"{}\" Center=\"Cell\">\n", indent, field,
                       vector ? "Vector" : "Scalar");
    out += fmt::format(
        "{}    <DataItem Dimensions=\"{} {} {}{}\" NumberType=\"Float\" Precision=\"{}\" "
        "Format=\"HDF\">{}:/{}</DataItem>\n",
        indent, c[2], c[1], c[0], vector ? " 3" : "", precision, file, field);
    if (k < units.size() && !units[k].empty())
      out += fmt::format("{}    <Information Name=\"units\" Value=\"{}\"/>\n", indent, units[k]);
    out += fmt::format("{}  </Attribute>\n", indent);
  }
  out += fmt::format("{}</Grid>\n", indent);
  return out;
}

const char* kXdmfHeader = "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n<Xdmf Version=\"2.0\">\n  <Domain>\n";
const char* kXdmfFooter = "    </Grid>\n  </Domain>\n</Xdmf>\n";

// The .xmf of a series: a temporal collection over its steps, each step one uniform grid read from the step's file,
// or, for a step written in pieces, a spatial collection of the blocks side by side, each placed by its first cell.
std::string xdmfText(const SeriesIndex& series, const GridGeometry& grid, bool single) {
  const int precision = single ? 4 : 8;
  const double h = grid.spacing;
  const std::string& base = series.baseName();
  std::string out = kXdmfHeader;
  out += fmt::format("    <Grid Name=\"{}\" GridType=\"Collection\" CollectionType=\"Temporal\">\n", base);
  for (const auto& e : series.entries()) {
    if (e.pieces.empty()) {
      out += uniformGrid(fmt::format("step_{}", e.step), "      ", e.time, grid.cells, grid.origin, grid.spacing,
                         precision, stepFileName(base, e.step, ".h5"), e.fields, e.units, grid.lengthUnit);
      continue;
    }
    out += fmt::format("      <Grid Name=\"step_{}\" GridType=\"Collection\" CollectionType=\"Spatial\">\n",
                       e.step);
    out += fmt::format("        <Time Value=\"{}\"/>\n", e.time);
    for (std::size_t b = 0; b < e.pieces.size(); ++b) {
      const GridBlock& k = e.pieces[b];
      std::array<double, 3> origin{};
      for (int a = 0; a < 3; ++a) origin[a] = grid.origin[a] + static_cast<double>(k.first[a]) * h;
      out += uniformGrid(fmt::format("step_{}_r{}", e.step, b), "        ", std::nullopt, k.count, origin, h,
                         precision, pieceFileName(base, e.step, static_cast<int>(b), ".h5"), e.fields, e.units,
                         grid.lengthUnit);
    }
    out += "      </Grid>\n";
  }
  out += kXdmfFooter;
  return out;
}

// How a run wrote a step's files, as they are on disk: one file of the whole grid (an empty list), or pieces
// (<base>_<step>/r<k>.h5, each block from its file's 'first' attribute and the shape of its first field); nothing
// when the step has no files. A restarted run lists the steps an earlier run wrote on another number of ranks so.
std::optional<std::vector<GridBlock>> stepLayoutOnDisk(const SeriesIndex& series, long long step,
                                                       const std::vector<FieldView>& fields) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(series.stepPath(step, ".h5"), ec)) return std::vector<GridBlock>{};
  if (fields.empty() || !std::filesystem::is_regular_file(series.piecePath(step, 0, ".h5"), ec)) return std::nullopt;
  using h5::own;
  h5::QuietErrors quiet;
  std::vector<GridBlock> pieces;
  for (int k = 0;; ++k) {
    const std::filesystem::path path = series.piecePath(step, k, ".h5");
    if (!std::filesystem::is_regular_file(path, ec)) break;
    const hid_t opened = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (opened < 0) return std::nullopt;
    h5::Handle file(opened, H5Fclose);
    GridBlock block;
    auto first = own(H5Aopen(file.get(), "first", H5P_DEFAULT), H5Aclose, "H5Aopen", path, "(attribute first)");
    h5::checkStatus(H5Aread(first.get(), H5T_NATIVE_LLONG, block.first.data()), "H5Aread", path,
                    "(attribute first)");
    auto dset = own(H5Dopen2(file.get(), fields[0].name.c_str(), H5P_DEFAULT), H5Dclose, "H5Dopen2", path);
    auto space = own(H5Dget_space(dset.get()), H5Sclose, "H5Dget_space", path);
    hsize_t dims[4] = {0, 0, 0, 0};
    if (H5Sget_simple_extent_dims(space.get(), dims, nullptr) < 3) return std::nullopt;
    block.count = {static_cast<long long>(dims[2]), static_cast<long long>(dims[1]), static_cast<long long>(dims[0])};
    pieces.push_back(block);
  }
  return pieces;
}

}  // namespace

std::string FieldSeriesWriter::xdmf() const { return xdmfText(series_, grid_, single_); }

bool FieldSeriesWriter::listEarlier(long long step, double time, const std::vector<FieldView>& fields) {
  auto pieces = stepLayoutOnDisk(series_, step, fields);
  if (pieces) series_.adopt(step, time, fields, std::move(*pieces));
  return pieces.has_value();
}

PartitionedFieldSeriesWriter::PartitionedFieldSeriesWriter(std::filesystem::path dir, std::string baseName,
                                                           GridGeometry grid, std::vector<GridBlock> blocks,
                                                           bool singlePrecision, mpi::Comm comm, int gzipLevel)
    : PartitionedSeriesSink(std::move(blocks), comm), series_(std::move(dir), std::move(baseName), ".xmf"),
      grid_(grid), single_(singlePrecision), gzip_(checkGzipLevel(gzipLevel)) {
  checkGrid(grid_);
  checkBlocks(grid_, this->blocks());  // `blocks`, the argument, is moved from
}

void PartitionedFieldSeriesWriter::writePiece(long long step, double time, int piece,
                                              const std::vector<FieldView>& fields) const {
  checkFields(fields);
  checkPiece(piece, blocks());
  const GridBlock& block = blocks()[piece];
  writeFileVia(piecePath(step, piece), [&](const auto& tmp) {
    writeStepFile(tmp, block.count, single_, gzip_, step, time, fields, &block, &grid_);
  });
}

void PartitionedFieldSeriesWriter::commitStep(long long step, double time, const std::vector<FieldView>& fields) {
  series_.record(step, time, fields, [&] { return xdmf(); }, blocks());
}

std::string PartitionedFieldSeriesWriter::xdmf() const { return xdmfText(series_, grid_, single_); }

bool PartitionedFieldSeriesWriter::listEarlier(long long step, double time, const std::vector<FieldView>& fields) {
  auto pieces = stepLayoutOnDisk(series_, step, fields);
  if (pieces) series_.adopt(step, time, fields, std::move(*pieces));
  return pieces.has_value();
}

bool CollectiveFieldSeriesWriter::available() { return HOPSIM_HDF5_PARALLEL; }

CollectiveFieldSeriesWriter::CollectiveFieldSeriesWriter(std::filesystem::path dir, std::string baseName,
                                                         GridGeometry grid, std::vector<GridBlock> blocks,
                                                         bool singlePrecision, mpi::Comm comm, int gzipLevel)
    : series_(std::move(dir), std::move(baseName), grid, singlePrecision), grid_(grid), blocks_(std::move(blocks)),
      single_(singlePrecision), gzip_(checkGzipLevel(gzipLevel)), comm_(comm), rootProcess_(0) {
  if (!available())
    throw std::runtime_error(
        "one HDF5 file written collectively needs a parallel HDF5 library; this build's HDF5 is serial");
  checkBlocks(grid_, blocks_);
  if (static_cast<int>(blocks_.size()) != comm_.size())
    throw std::invalid_argument(fmt::format("{} blocks for {} ranks: one block per rank", blocks_.size(),
                                            comm_.size()));
  rootProcess_ = static_cast<long>(comm_.allreduceSum(comm_.isRoot() ? static_cast<long long>(processId()) : 0LL));
}

void CollectiveFieldSeriesWriter::write(long long step, double time, const std::vector<FieldView>& fields) {
  const std::filesystem::path finalPath = stepPath(step);  // throws for a negative step, on every rank alike
  const std::filesystem::path tmp = temporaryPathFor(finalPath, rootProcess_);
  const int rank = comm_.rank();
  std::string error;
  try {
    checkFields(fields);
    if (rank == 0) ensureDirectory(finalPath.parent_path());
  } catch (const std::exception& e) {
    error = e.what();
  }
  // Every rank's fields checked and the folder made before any rank opens the file: a collective open that one
  // rank never reaches would leave the others waiting.
  mpi::throwIfAnyFailed(comm_, error, finalPath.string());

  try {
#if HOPSIM_HDF5_PARALLEL
    using h5::own;
    h5::QuietErrors quiet;
    auto fileAccess = own(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "H5Pcreate", tmp, "(file access)");
    h5::checkStatus(H5Pset_fapl_mpio(fileAccess.get(), MPI_Comm_f2c(static_cast<MPI_Fint>(comm_.fortranHandle())),
                                     MPI_INFO_NULL),
                    "H5Pset_fapl_mpio", tmp);
    auto transfer = own(H5Pcreate(H5P_DATASET_XFER), H5Pclose, "H5Pcreate", tmp, "(transfer)");
    h5::checkStatus(H5Pset_dxpl_mpio(transfer.get(), H5FD_MPIO_COLLECTIVE), "H5Pset_dxpl_mpio", tmp);
    // The file of the whole grid, as on one rank: no piece attributes; each rank fills its block.
    writeStepFile(tmp, grid_.cells, single_, gzip_, step, time, fields, nullptr, nullptr,
                  Access{fileAccess.get(), transfer.get(), &blocks_[static_cast<std::size_t>(rank)]});
#endif
  } catch (const std::exception& e) {
    error = e.what();
  }
  // The file is closed on every rank (H5Fclose is collective and flushes) once the allreduce returns, so rank 0
  // renames only a complete file, and none at all when any rank failed.
  try {
    mpi::throwIfAnyFailed(comm_, error, finalPath.string());
  } catch (...) {
    if (rank == 0) {
      std::error_code ec;
      std::filesystem::remove(tmp, ec);
    }
    throw;
  }
  if (rank == 0) {
    try {
      commitFile(tmp, finalPath);
      series_.commitStep(step, time, fields);
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  mpi::throwIfAnyFailed(comm_, error, fmt::format("{} or {}", finalPath.string(), seriesPath().string()));
}

}  // namespace hopsim::io
