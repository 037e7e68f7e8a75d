// HDF5 + XDMF time series of cell-centred grid fields.
#include "io/FieldWriter.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <system_error>

#include "io/AtomicFile.h"
#include "io/Hdf5Handle.h"

namespace hopsim::io {

bool isSafeName(const std::string& name, bool allowDashDot) {
  if (name.empty() || name.front() == '.' || name.front() == '-') return false;
  return std::all_of(name.begin(), name.end(), [&](char c) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    return alnum || c == '_' || (allowDashDot && (c == '-' || c == '.'));
  });
}

std::string stepFileName(const std::string& baseName, long long step, const std::string& extension) {
  if (step < 0) throw std::invalid_argument(fmt::format("output step {} is negative", step));
  return fmt::format("{}_{:09d}{}", baseName, step, extension);
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
    if (!f.data) throw std::invalid_argument(fmt::format("field '{}' has no data", f.name));
  }
}

FieldSeriesWriter::FieldSeriesWriter(std::filesystem::path dir, std::string baseName, GridGeometry grid,
                                     bool singlePrecision)
    : dir_(std::move(dir)), base_(std::move(baseName)), grid_(grid), single_(singlePrecision) {
  checkGrid(grid_);
  if (!isSafeName(base_, true))
    throw std::invalid_argument(fmt::format("output base name '{}' must be letters, digits, '_', '-' or '.'", base_));
}

std::filesystem::path FieldSeriesWriter::seriesPath() const { return dir_ / (base_ + ".xmf"); }

std::filesystem::path FieldSeriesWriter::stepPath(long long step) const {
  return dir_ / stepFileName(base_, step, ".h5");
}

namespace {

void writeStepFile(const std::filesystem::path& path, const GridGeometry& grid, bool single, long long step,
                   double time, const std::vector<FieldView>& fields) {
  using h5::own;
  h5::QuietErrors quiet;
  auto file = own(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose, "H5Fcreate", path);
  {
    auto scalar = own(H5Screate(H5S_SCALAR), H5Sclose, "H5Screate", path);
    auto stepAttr = own(H5Acreate2(file.get(), "step", H5T_STD_I64LE, scalar.get(), H5P_DEFAULT, H5P_DEFAULT),
                        H5Aclose, "H5Acreate2", path, "(attribute step)");
    h5::checkStatus(H5Awrite(stepAttr.get(), H5T_NATIVE_LLONG, &step), "H5Awrite", path, "(attribute step)");
    auto timeAttr = own(H5Acreate2(file.get(), "time", H5T_IEEE_F64LE, scalar.get(), H5P_DEFAULT, H5P_DEFAULT),
                        H5Aclose, "H5Acreate2", path, "(attribute time)");
    h5::checkStatus(H5Awrite(timeAttr.get(), H5T_NATIVE_DOUBLE, &time), "H5Awrite", path, "(attribute time)");
  }
  const hid_t fileType = single ? H5T_IEEE_F32LE : H5T_IEEE_F64LE;
  for (const auto& f : fields) {
    const std::string what = fmt::format("(dataset {})", f.name);
    // Slowest axis first, so x runs fastest in the file as in memory, and XDMF reads it in z y x order.
    const hsize_t dims[4] = {static_cast<hsize_t>(grid.cells[2]), static_cast<hsize_t>(grid.cells[1]),
                             static_cast<hsize_t>(grid.cells[0]), 3};
    const int rank = f.components == 3 ? 4 : 3;
    auto space = own(H5Screate_simple(rank, dims, nullptr), H5Sclose, "H5Screate_simple", path, what);
    auto dset = own(H5Dcreate2(file.get(), f.name.c_str(), fileType, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                               H5P_DEFAULT),
                    H5Dclose, "H5Dcreate2", path, what);
    // HDF5 converts double to float on the way when the file type is single precision.
    h5::checkStatus(H5Dwrite(dset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, f.data), "H5Dwrite",
                    path, what);
    dset.close("H5Dclose", path);
  }
  file.close("H5Fclose", path);
}

}  // namespace

void FieldSeriesWriter::write(long long step, double time, const std::vector<FieldView>& fields) {
  checkFields(fields);
  const auto finalPath = stepPath(step);
  ensureDirectory(dir_);
  const auto tmp = temporaryPathFor(finalPath);
  try {
    writeStepFile(tmp, grid_, single_, step, time, fields);
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
    throw;
  }
  commitFile(tmp, finalPath);

  Entry entry{step, time, {}};
  for (const auto& f : fields) entry.fields.emplace_back(f.name, f.components);
  auto same = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.step == step; });
  if (same != entries_.end())
    *same = std::move(entry);
  else
    entries_.push_back(std::move(entry));
  // ParaView orders a temporal collection by the order of its grids, so keep them by step.
  std::stable_sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) { return a.step < b.step; });
  writeFileAtomic(seriesPath(), xdmf());
}

std::string FieldSeriesWriter::xdmf() const {
  const auto& c = grid_.cells;
  const double h = grid_.spacing;
  const auto& o = grid_.origin;
  const int precision = single_ ? 4 : 8;
  std::string out;
  out += "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n<Xdmf Version=\"2.0\">\n  <Domain>\n";
  out += fmt::format("    <Grid Name=\"{}\" GridType=\"Collection\" CollectionType=\"Temporal\">\n", base_);
  for (const auto& e : entries_) {
    const std::string file = stepFileName(base_, e.step, ".h5");
    out += fmt::format("      <Grid Name=\"step_{}\" GridType=\"Uniform\">\n", e.step);
    out += fmt::format("        <Time Value=\"{}\"/>\n", e.time);
    // Topology and geometry count points, slowest axis first; cells are one fewer along each axis.
    out += fmt::format("        <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"{} {} {}\"/>\n", c[2] + 1,
                       c[1] + 1, c[0] + 1);
    out += "        <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n";
    out += fmt::format(
        "          <DataItem Name=\"Origin\" Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
        "Format=\"XML\">{} {} {}</DataItem>\n",
        o[2], o[1], o[0]);
    out += fmt::format(
        "          <DataItem Name=\"Spacing\" Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
        "Format=\"XML\">{} {} {}</DataItem>\n",
        h, h, h);
    out += "        </Geometry>\n";
    for (const auto& [name, components] : e.fields) {
      const bool vector = components == 3;
      out += fmt::format("        <Attribute Name=\"{}\" AttributeType=\"{}\" Center=\"Cell\">\n", name,
                         vector ? "Vector" : "Scalar");
      out += fmt::format(
          "          <DataItem Dimensions=\"{} {} {}{}\" NumberType=\"Float\" Precision=\"{}\" "
          "Format=\"HDF\">{}:/{}</DataItem>\n",
          c[2], c[1], c[0], vector ? " 3" : "", precision, file, name);
      out += "        </Attribute>\n";
    }
    out += "      </Grid>\n";
  }
  out += "    </Grid>\n  </Domain>\n</Xdmf>\n";
  return out;
}

}  // namespace hopsim::io
