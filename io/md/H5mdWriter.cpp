// H5MD writer through the HDF5 C API: extendible, chunked time series (step, time, value) per element.
#include "io/md/H5mdWriter.h"

#include <fmt/format.h>
#include <hdf5.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <numeric>
#include <stdexcept>

#include "io/AtomicFile.h"
#include "io/Hdf5Handle.h"

namespace hopsim::io::md {

namespace {

void check(herr_t status, const std::string& what) {
  if (status < 0) throw std::runtime_error("HDF5 error while " + what);
}
hid_t checkId(hid_t id, const std::string& what) {
  if (id < 0) throw std::runtime_error("HDF5 error while " + what);
  return id;
}

void stringAttribute(hid_t obj, const char* name, const std::vector<std::string>& values, bool scalar) {
  std::size_t len = 1;
  for (const auto& v : values) len = std::max(len, v.size() + 1);
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, len);
  H5Tset_strpad(type, H5T_STR_NULLTERM);
  const hsize_t dims[1] = {values.size()};
  const hid_t space = scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, dims, nullptr);
  std::vector<char> buffer(len * values.size(), '\0');
  for (std::size_t i = 0; i < values.size(); ++i) std::copy(values[i].begin(), values[i].end(), buffer.begin() + i * len);
  const hid_t attr = checkId(H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT), std::string("creating attribute ") + name);
  check(H5Awrite(attr, type, buffer.data()), std::string("writing attribute ") + name);
  H5Aclose(attr);
  H5Sclose(space);
  H5Tclose(type);
}

void intAttribute(hid_t obj, const char* name, const std::vector<int>& values, bool scalar) {
  const hsize_t dims[1] = {values.size()};
  const hid_t space = scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, dims, nullptr);
  const hid_t attr = checkId(H5Acreate2(obj, name, H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT), std::string("creating attribute ") + name);
  check(H5Awrite(attr, H5T_NATIVE_INT, values.data()), std::string("writing attribute ") + name);
  H5Aclose(attr);
  H5Sclose(space);
}

hid_t makeGroups(hid_t file, const std::string& path) {
  // Creates every missing group along path and returns the last one (open).
  hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
  H5Pset_obj_track_times(gcpl, false);
  hid_t g = H5Gcreate2(file, path.c_str(), lcpl, gcpl, H5P_DEFAULT);
  H5Pclose(gcpl);
  H5Pclose(lcpl);
  return checkId(g, "creating group " + path);
}

// An extendible dataset whose first dimension counts frames.
hid_t makeSeriesDataset(hid_t group, const char* name, hid_t type, const std::vector<hsize_t>& shape) {
  const int rank = static_cast<int>(shape.size()) + 1;
  std::vector<hsize_t> dims(rank), maxDims(rank), chunk(rank);
  dims[0] = 0;
  maxDims[0] = H5S_UNLIMITED;
  chunk[0] = 1;
  hsize_t chunkElems = 1;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    dims[k + 1] = maxDims[k + 1] = shape[k];
    chunk[k + 1] = shape[k];
    chunkElems *= shape[k];
  }
  // One chunk per frame up to 64 MiB (a frame of a million atoms' positions in double is 24 MiB): each frame's
  // values are one contiguous block of the file, written by one H5Dwrite straight from the caller's buffer (a chunk
  // larger than HDF5's chunk cache bypasses it). Larger frames are cut along the particles into such chunks.
  const hsize_t chunkBytes = hsize_t(64) << 20;
  if (!shape.empty() && chunkElems * H5Tget_size(type) > chunkBytes)
    chunk[1] = std::max<hsize_t>(1, chunkBytes / (chunkElems / shape[0] * H5Tget_size(type)));
  if (shape.empty()) chunk[0] = 256;
  const hid_t space = H5Screate_simple(rank, dims.data(), maxDims.data());
  const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, rank, chunk.data());
  // No modification times in the object headers (as the LBM field files): the same frames make the same bytes,
  // whenever they are written, and the writer thread's file can be compared with the synchronous path's.
  H5Pset_obj_track_times(dcpl, false);
  const hid_t ds = H5Dcreate2(group, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  H5Pclose(dcpl);
  H5Sclose(space);
  return checkId(ds, std::string("creating dataset ") + name);
}

// The step at which HOPSIM_INJECT_TRAJECTORY_WRITE_FAILURE=<step> makes frame() fail halfway, or -1.
long long injectedFailureStep() {
  const char* v = std::getenv("HOPSIM_INJECT_TRAJECTORY_WRITE_FAILURE");
  if (!v || !*v) return -1;
  char* end = nullptr;
  const long long step = std::strtoll(v, &end, 10);
  return *end ? -1 : step;
}

void appendRow(hid_t ds, hid_t memType, const void* data) {
  const hid_t space0 = H5Dget_space(ds);
  const int rank = H5Sget_simple_extent_ndims(space0);
  std::vector<hsize_t> dims(rank);
  H5Sget_simple_extent_dims(space0, dims.data(), nullptr);
  H5Sclose(space0);
  std::vector<hsize_t> start(rank, 0), count(dims);
  start[0] = dims[0];
  count[0] = 1;
  dims[0] += 1;
  check(H5Dset_extent(ds, dims.data()), "extending a time series");
  const hid_t fileSpace = H5Dget_space(ds);
  H5Sselect_hyperslab(fileSpace, H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr);
  const hid_t memSpace = H5Screate_simple(rank, count.data(), nullptr);
  check(H5Dwrite(ds, memType, memSpace, fileSpace, H5P_DEFAULT, data), "writing a time series row");
  H5Sclose(memSpace);
  H5Sclose(fileSpace);
}

}  // namespace

struct H5mdWriter::Series {
  hid_t group = -1, step = -1, time = -1, value = -1;
  ~Series() {
    for (hid_t h : {value, time, step}) if (h >= 0) H5Dclose(h);
    if (group >= 0) H5Gclose(group);
  }
};

H5mdWriter::H5mdWriter(std::filesystem::path path, std::size_t particles, const std::string& creatorVersion)
    : final_(std::move(path)), part_(final_.string() + ".part"), n_(particles) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors are reported by the return codes checked here
  create(creatorVersion);
}

H5mdWriter::H5mdWriter(std::filesystem::path path, std::size_t particles, const std::string& creatorVersion,
                       long long lastStep)
    : final_(std::move(path)), part_(final_.string() + ".part"), n_(particles) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  std::error_code ec;
  // A finished trajectory goes back to NAME.part while it grows again: the final name never holds a file in change.
  if (!std::filesystem::exists(part_, ec) && std::filesystem::exists(final_, ec)) {
    std::filesystem::rename(final_, part_, ec);
    if (ec)
      throw std::runtime_error(fmt::format("cannot continue the H5MD file {}: {}", final_.string(), ec.message()));
  }
  if (!std::filesystem::exists(part_, ec)) {
    create(creatorVersion);
    return;
  }
  try {
    reopen(lastStep);
  } catch (...) {
    // No destructor runs for a constructor that throws: the file is closed here, so that the caller may set it aside.
    for (auto& [name, s] : series_) delete s;
    series_.clear();
    if (fileId_ >= 0) H5Fclose(fileId_);
    fileId_ = -1;
    throw;
  }
}

void H5mdWriter::reopen(long long lastStep) {
  fileId_ = H5Fopen(part_.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  if (fileId_ < 0)
    throw std::runtime_error(fmt::format("cannot open the H5MD file {} to continue it", part_.string()));
  std::vector<std::string> groups{"particles/all/position", "particles/all/velocity", "particles/all/id",
                                  "particles/all/box/edges"};
  if (H5Lexists(fileId_, "observables", H5P_DEFAULT) > 0) {
    const hid_t obs = checkId(H5Gopen2(fileId_, "observables", H5P_DEFAULT), "opening observables");
    H5G_info_t info{};
    check(H5Gget_info(obs, &info), "listing observables");
    for (hsize_t k = 0; k < info.nlinks; ++k) {
      const ssize_t len = H5Lget_name_by_idx(obs, ".", H5_INDEX_NAME, H5_ITER_INC, k, nullptr, 0, H5P_DEFAULT);
      std::string name(static_cast<std::size_t>(std::max<ssize_t>(len, 0)) + 1, '\0');
      H5Lget_name_by_idx(obs, ".", H5_INDEX_NAME, H5_ITER_INC, k, name.data(), name.size(), H5P_DEFAULT);
      name.resize(static_cast<std::size_t>(std::max<ssize_t>(len, 0)));
      groups.push_back("observables/" + name);
    }
    H5Gclose(obs);
  }
  // H5Lexists link by link: it fails, rather than says no, where a group on the way is missing.
  const auto exists = [this](const std::string& path) {
    for (std::size_t end = path.find('/'); ; end = path.find('/', end + 1)) {
      if (H5Lexists(fileId_, path.substr(0, end).c_str(), H5P_DEFAULT) <= 0) return false;
      if (end == std::string::npos) return true;
    }
  };
  for (const std::string& group : groups) {
    if (!exists(group)) continue;  // no frame or sample of it was written
    auto* ser = new Series;
    series_.emplace_back(group, ser);
    ser->group = checkId(H5Gopen2(fileId_, group.c_str(), H5P_DEFAULT), "opening " + group);
    ser->step = checkId(H5Dopen2(ser->group, "step", H5P_DEFAULT), "opening " + group + "/step");
    ser->time = checkId(H5Dopen2(ser->group, "time", H5P_DEFAULT), "opening " + group + "/time");
    ser->value = checkId(H5Dopen2(ser->group, "value", H5P_DEFAULT), "opening " + group + "/value");
    // The samples up to lastStep (steps ascend): their count k is where every dataset of the series is cut.
    const hid_t space = H5Dget_space(ser->step);
    hsize_t count = 0;
    H5Sget_simple_extent_dims(space, &count, nullptr);
    H5Sclose(space);
    std::vector<long long> steps(count);
    std::vector<double> times(count);
    if (count > 0) {
      check(H5Dread(ser->step, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, steps.data()), "reading " + group);
      check(H5Dread(ser->time, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, times.data()), "reading " + group);
    }
    const auto keep = static_cast<hsize_t>(std::upper_bound(steps.begin(), steps.end(), lastStep) - steps.begin());
    for (hid_t ds : {ser->step, ser->time, ser->value}) {
      const hid_t sp = H5Dget_space(ds);
      const int rank = H5Sget_simple_extent_ndims(sp);
      std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
      H5Sget_simple_extent_dims(sp, dims.data(), nullptr);
      H5Sclose(sp);
      if (ds == ser->value && !group.ends_with("/edges") && group.starts_with("particles/") && rank > 1 &&
          dims[1] != n_)
        throw std::runtime_error(fmt::format("the H5MD file {} holds {} particles, this run has {}: it is not this "
                                             "run's trajectory", part_.string(), dims[1], n_));
      dims[0] = keep;
      check(H5Dset_extent(ds, dims.data()), "cutting " + group + " at the restart step");
    }
    if (group == "particles/all/position") {
      const hid_t type = H5Dget_type(ser->value);
      valueBytes_ = H5Tget_size(type) == 4 ? 4 : 8;
      H5Tclose(type);
      for (hsize_t k = 0; k < keep; ++k) frameTimes_.emplace_back(steps[k], times[k]);
      frames_ = static_cast<int>(keep);
    }
  }
  check(H5Fflush(fileId_, H5F_SCOPE_GLOBAL), "flushing the H5MD file");
}

void H5mdWriter::create(const std::string& creatorVersion) {
  fileId_ = H5Fcreate(part_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (fileId_ < 0) throw std::runtime_error(fmt::format("cannot create the H5MD file {}", part_.string()));
  const hid_t h5md = makeGroups(fileId_, "h5md");
  intAttribute(h5md, "version", {1, 1}, false);
  const hid_t creator = makeGroups(fileId_, "h5md/creator");
  stringAttribute(creator, "name", {"hopsim"}, true);
  stringAttribute(creator, "version", {creatorVersion}, true);
  const hid_t author = makeGroups(fileId_, "h5md/author");
  stringAttribute(author, "name", {"hopsim"}, true);
  H5Gclose(author);
  H5Gclose(creator);
  H5Gclose(h5md);
  const hid_t box = makeGroups(fileId_, "particles/all/box");
  intAttribute(box, "dimension", {3}, true);
  stringAttribute(box, "boundary", {"periodic", "periodic", "periodic"}, false);
  H5Gclose(box);
}

H5mdWriter::~H5mdWriter() {
  for (auto& [name, s] : series_) delete s;
  if (fileId_ >= 0) H5Fclose(fileId_);  // unfinished: stays as .part
}

H5mdWriter::Series& H5mdWriter::series(const std::string& group, const std::vector<unsigned long long>& shape,
                                       long long valueType) {
  for (auto& [name, s] : series_)
    if (name == group) return *s;
  auto* s = new Series;
  series_.emplace_back(group, s);
  s->group = makeGroups(fileId_, group);
  s->step = makeSeriesDataset(s->group, "step", H5T_STD_I64LE, {});
  s->time = makeSeriesDataset(s->group, "time", H5T_IEEE_F64LE, {});
  std::vector<hsize_t> hs(shape.begin(), shape.end());
  s->value = makeSeriesDataset(s->group, "value", static_cast<hid_t>(valueType), hs);
  return *s;
}

void H5mdWriter::frame(long long step, double time, const hopsim::md::ParticleState& s) {
  if (s.size() != n_) throw std::logic_error("H5mdWriter: particle count changed");
  std::vector<double> pos(3 * n_), vel(3 * n_);
  for (std::size_t i = 0; i < n_; ++i) {
    pos[3 * i] = s.x[i], pos[3 * i + 1] = s.y[i], pos[3 * i + 2] = s.z[i];
    vel[3 * i] = s.vx[i], vel[3 * i + 1] = s.vy[i], vel[3 * i + 2] = s.vz[i];
  }
  frame(step, time, s.box.length, pos.data(), vel.data(), s.id.data());
}

void H5mdWriter::frame(long long step, double time, const std::array<double, 3>& box, const float* positions,
                       const float* velocities, const long long* ids) {
  frameValues(step, time, box, H5T_NATIVE_FLOAT, positions, velocities, ids);
}

void H5mdWriter::frame(long long step, double time, const std::array<double, 3>& box, const double* positions,
                       const double* velocities, const long long* ids) {
  frameValues(step, time, box, H5T_NATIVE_DOUBLE, positions, velocities, ids);
}

void H5mdWriter::frameValues(long long step, double time, const std::array<double, 3>& box, long long memType,
                             const void* positions, const void* velocities, const long long* ids) {
  // On the writer thread while the run goes on: HDF5 is not thread-safe, and a field or checkpoint file may be
  // written meanwhile.
  std::lock_guard library(h5::libraryMutex());
  // A new dataset stores what the first frame holds; an existing one keeps its type (HDF5 converts).
  const bool stored = std::any_of(series_.begin(), series_.end(),
                                  [](const auto& e) { return e.first == "particles/all/position"; });
  if (!stored) valueBytes_ = H5Tequal(static_cast<hid_t>(memType), H5T_NATIVE_FLOAT) > 0 ? 4 : 8;
  const hid_t valueType = valueBytes_ == 4 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE;
  auto put = [&](const char* name, const void* values) {
    auto& ser = series(std::string("particles/all/") + name, {n_, 3}, valueType);
    appendRow(ser.step, H5T_NATIVE_LLONG, &step);
    appendRow(ser.time, H5T_NATIVE_DOUBLE, &time);
    appendRow(ser.value, static_cast<hid_t>(memType), values);
  };
  put("position", positions);
  if (step == injectedFailureStep())
    throw std::runtime_error(fmt::format("writing the frame of step {} to {} failed (injected by "
                                         "HOPSIM_INJECT_TRAJECTORY_WRITE_FAILURE)", step, part_.string()));
  put("velocity", velocities);
  auto& idSeries = series("particles/all/id", {n_}, H5T_STD_I64LE);
  appendRow(idSeries.step, H5T_NATIVE_LLONG, &step);
  appendRow(idSeries.time, H5T_NATIVE_DOUBLE, &time);
  appendRow(idSeries.value, H5T_NATIVE_LLONG, ids);
  auto& edges = series("particles/all/box/edges", {3}, H5T_IEEE_F64LE);
  appendRow(edges.step, H5T_NATIVE_LLONG, &step);
  appendRow(edges.time, H5T_NATIVE_DOUBLE, &time);
  appendRow(edges.value, H5T_NATIVE_DOUBLE, box.data());
  // Flushed per frame: a run killed later leaves a .part file that a restart can continue.
  check(H5Fflush(fileId_, H5F_SCOPE_GLOBAL), "flushing the H5MD file");
  frameTimes_.emplace_back(step, time);
  ++frames_;
}

void H5mdWriter::observables(long long step, double time, const std::vector<std::pair<std::string, double>>& values) {
  std::lock_guard library(h5::libraryMutex());
  for (const auto& [name, v] : values) {
    auto& ser = series("observables/" + name, {}, H5T_IEEE_F64LE);
    appendRow(ser.step, H5T_NATIVE_LLONG, &step);
    appendRow(ser.time, H5T_NATIVE_DOUBLE, &time);
    appendRow(ser.value, H5T_NATIVE_DOUBLE, &v);
  }
}

void H5mdWriter::writeXdmf() const {
  std::filesystem::path xmf = final_;
  xmf.replace_extension(".xmf");
  const std::string h5 = final_.filename().string();
  std::string out = "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n<Xdmf Version=\"3.0\">\n <Domain>\n"
                    "  <Grid Name=\"particles\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  // Each frame is a hyperslab [k, 0, 0] of the (frames x N x 3) datasets.
  auto slab = [&](int k, const char* dataset) {
    return fmt::format(
        "     <DataItem ItemType=\"HyperSlab\" Dimensions=\"{n} 3\" Type=\"HyperSlab\">\n"
        "      <DataItem Dimensions=\"3 3\" Format=\"XML\">{k} 0 0 1 1 1 1 {n} 3</DataItem>\n"
        "      <DataItem Dimensions=\"{f} {n} 3\" NumberType=\"Float\" Precision=\"{p}\" Format=\"HDF\">{h5}:/particles/all/{ds}/value</DataItem>\n"
        "     </DataItem>\n",
        fmt::arg("n", n_), fmt::arg("k", k), fmt::arg("f", frames_), fmt::arg("h5", h5), fmt::arg("ds", dataset),
        fmt::arg("p", valueBytes_));
  };
  for (int k = 0; k < frames_; ++k) {
    out += fmt::format("   <Grid Name=\"step {}\" GridType=\"Uniform\">\n    <Time Value=\"{:.17g}\"/>\n",
                       frameTimes_[k].first, frameTimes_[k].second);
    out += fmt::format("    <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"{}\" NodesPerElement=\"1\"/>\n", n_);
    out += "    <Geometry GeometryType=\"XYZ\">\n" + slab(k, "position") + "    </Geometry>\n";
    out += "    <Attribute Name=\"velocity\" AttributeType=\"Vector\" Center=\"Node\">\n" + slab(k, "velocity") + "    </Attribute>\n";
    out += fmt::format(
        "    <Attribute Name=\"id\" AttributeType=\"Scalar\" Center=\"Node\">\n"
        "     <DataItem ItemType=\"HyperSlab\" Dimensions=\"{n}\" Type=\"HyperSlab\">\n"
        "      <DataItem Dimensions=\"3 2\" Format=\"XML\">{k} 0 1 1 1 {n}</DataItem>\n"
        "      <DataItem Dimensions=\"{f} {n}\" NumberType=\"Int\" Precision=\"8\" Format=\"HDF\">{h5}:/particles/all/id/value</DataItem>\n"
        "     </DataItem>\n    </Attribute>\n",
        fmt::arg("n", n_), fmt::arg("k", k), fmt::arg("f", frames_), fmt::arg("h5", h5));
    out += "   </Grid>\n";
  }
  out += "  </Grid>\n </Domain>\n</Xdmf>\n";
  writeFileAtomic(xmf, out);
}

void H5mdWriter::finish() {
  if (finished_) return;
  for (auto& [name, s] : series_) delete s;
  series_.clear();
  const herr_t status = H5Fclose(fileId_);
  fileId_ = -1;
  if (status < 0) throw std::runtime_error(fmt::format("closing {} failed (disk full?)", part_.string()));
  commitFile(part_, final_);
  finished_ = true;
  if (frames_ > 0) writeXdmf();
}

}  // namespace hopsim::io::md
