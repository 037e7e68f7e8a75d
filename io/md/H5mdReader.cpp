// H5MD frame reader through the HDF5 C API.
#include "io/md/H5mdReader.h"

#include <fmt/format.h>
#include <hdf5.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace hopsim::io::md {

namespace {

struct Handle {
  hid_t id = -1;
  herr_t (*close)(hid_t) = nullptr;
  ~Handle() { if (id >= 0 && close) close(id); }
};

class File {
 public:
  explicit File(std::string path) : path_(std::move(path)) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    id_ = H5Fopen(path_.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (id_ < 0) fail("", "cannot open it as an HDF5 file (does it exist?)");
  }
  ~File() { if (id_ >= 0) H5Fclose(id_); }
  [[noreturn]] void fail(const std::string& ds, const std::string& msg) const {
    throw std::runtime_error(fmt::format("{}{}: {}", path_, ds.empty() ? "" : ":/" + ds, msg));
  }
  bool exists(const std::string& path) const {
    // Walk the path so that a missing parent group is not an error.
    std::string sofar;
    std::size_t pos = 0;
    while (pos != std::string::npos) {
      const auto next = path.find('/', pos);
      sofar = path.substr(0, next);
      if (H5Lexists(id_, sofar.c_str(), H5P_DEFAULT) <= 0) return false;
      pos = next == std::string::npos ? next : next + 1;
    }
    return true;
  }
  // Dimensions of a dataset.
  std::vector<hsize_t> dims(const std::string& ds) const {
    Handle d{H5Dopen2(id_, ds.c_str(), H5P_DEFAULT), H5Dclose};
    if (d.id < 0) fail(ds, "missing dataset");
    Handle sp{H5Dget_space(d.id), H5Sclose};
    std::vector<hsize_t> out(H5Sget_simple_extent_ndims(sp.id));
    H5Sget_simple_extent_dims(sp.id, out.data(), nullptr);
    return out;
  }
  // Bytes the dataset occupies in the file (0 where nothing was ever written to it).
  double storedBytes(const std::string& ds) const {
    Handle d{H5Dopen2(id_, ds.c_str(), H5P_DEFAULT), H5Dclose};
    if (d.id < 0) fail(ds, "missing dataset");
    return static_cast<double>(H5Dget_storage_size(d.id));
  }
  // Reads the slab [frame, ...] of a time-dependent value (or the whole dataset when frame < 0).
  template <class T>
  std::vector<T> read(const std::string& ds, hid_t memType, long long frame) const {
    Handle d{H5Dopen2(id_, ds.c_str(), H5P_DEFAULT), H5Dclose};
    if (d.id < 0) fail(ds, "missing dataset");
    Handle fs{H5Dget_space(d.id), H5Sclose};
    const int rank = H5Sget_simple_extent_ndims(fs.id);
    std::vector<hsize_t> dims(rank), start(rank, 0);
    H5Sget_simple_extent_dims(fs.id, dims.data(), nullptr);
    if (frame >= 0) {
      start[0] = static_cast<hsize_t>(frame);
      dims[0] = 1;
      H5Sselect_hyperslab(fs.id, H5S_SELECT_SET, start.data(), nullptr, dims.data(), nullptr);
    }
    hsize_t count = 1;
    for (auto v : dims) count *= v;
    std::vector<T> out(count);
    Handle ms{H5Screate_simple(rank, dims.data(), nullptr), H5Sclose};
    if (H5Dread(d.id, memType, ms.id, fs.id, H5P_DEFAULT, out.data()) < 0) fail(ds, "cannot read it");
    return out;
  }

 private:
  std::string path_;
  hid_t id_ = -1;
};

}  // namespace

H5mdFrame readH5mdFrame(const std::string& path, long long frame) {
  File f(path);
  const std::string pos = "particles/all/position/value";
  if (!f.exists(pos)) f.fail(pos, "missing: not an H5MD trajectory with particles/all/position");
  const auto dims = f.dims(pos);
  if (dims.size() != 3 || dims[2] != 3) f.fail(pos, "expected a (frames x N x 3) dataset");
  H5mdFrame out;
  out.frames = static_cast<long long>(dims[0]);
  if (out.frames == 0) f.fail(pos, "the trajectory has no frames");
  const long long k = frame < 0 ? out.frames + frame : frame;
  if (k < 0 || k >= out.frames) f.fail(pos, fmt::format("frame {} does not exist ({} frames)", frame, out.frames));
  out.frame = k;
  const std::size_t n = dims[1];
  if (n == 0) f.fail(pos, "the trajectory has no atoms");
  // The shape alone sizes the arrays below; a shape its stored bytes cannot back (a damaged file, or chunks never
  // written) is refused before allocating for it. Compressed positions shrink by far less than this factor.
  constexpr double kMaxCompression = 64;
  const double frameBytes = 3.0 * 8.0 * static_cast<double>(n);
  if (f.storedBytes(pos) * kMaxCompression < frameBytes)
    f.fail(pos, fmt::format("the shape claims {} atoms per frame, but the file stores only {} bytes of positions: "
                            "a damaged or incomplete file",
                            n, f.storedBytes(pos)));
  auto& s = out.state;
  s.resize(n);
  const auto p = f.read<double>(pos, H5T_NATIVE_DOUBLE, k);
  for (std::size_t i = 0; i < n; ++i) s.x[i] = p[3 * i], s.y[i] = p[3 * i + 1], s.z[i] = p[3 * i + 2];
  const std::string vel = "particles/all/velocity/value";
  if (f.exists(vel)) {
    if (f.dims(vel) != dims) f.fail(vel, "its shape differs from the positions'");
    const auto v = f.read<double>(vel, H5T_NATIVE_DOUBLE, k);
    for (std::size_t i = 0; i < n; ++i) s.vx[i] = v[3 * i], s.vy[i] = v[3 * i + 1], s.vz[i] = v[3 * i + 2];
    out.hasVelocities = true;
  }
  const std::string ids = "particles/all/id/value";
  if (f.exists(ids)) {
    if (f.dims(ids) != std::vector<hsize_t>{dims[0], dims[1]})
      f.fail(ids, fmt::format("expected a (frames x N) = ({} x {}) dataset, like the positions", dims[0], dims[1]));
    const auto v = f.read<long long>(ids, H5T_NATIVE_LLONG, k);
    for (std::size_t i = 0; i < n; ++i) s.id[i] = v[i];
  } else {
    for (std::size_t i = 0; i < n; ++i) s.id[i] = static_cast<long long>(i) + 1;
  }
  // A NaN or infinite coordinate would run to the end with NaN atoms (a neighbour list bins it nowhere), so it is
  // refused here, as the LAMMPS reader refuses one, naming the atom.
  const auto requireFinite = [&](const std::string& ds, const char* names, const std::vector<double>* columns[3]) {
    for (std::size_t i = 0; i < n; ++i)
      for (int d = 0; d < 3; ++d)
        if (const double v = (*columns[d])[i]; !std::isfinite(v))
          f.fail(ds, fmt::format("frame {}, atom id {} (row {}): {}{} = {} is not a finite number", k, s.id[i], i,
                                 names, "xyz"[d], v));
  };
  const std::vector<double>* positions[3] = {&s.x, &s.y, &s.z};
  requireFinite(pos, "", positions);
  if (out.hasVelocities) {
    const std::vector<double>* velocities[3] = {&s.vx, &s.vy, &s.vz};
    requireFinite(vel, "v", velocities);
  }
  // Box edges: a time series in hopsim's files, a fixed dataset allowed by H5MD too.
  std::vector<double> edges;
  if (f.exists("particles/all/box/edges/value")) {
    if (f.dims("particles/all/box/edges/value") != std::vector<hsize_t>{dims[0], 3})
      f.fail("particles/all/box/edges/value",
             fmt::format("expected a (frames x 3) = ({} x 3) dataset, one box per position frame", dims[0]));
    edges = f.read<double>("particles/all/box/edges/value", H5T_NATIVE_DOUBLE, k);
  } else if (f.exists("particles/all/box/edges")) {
    if (f.dims("particles/all/box/edges") != std::vector<hsize_t>{3})
      f.fail("particles/all/box/edges", "expected 3 edge lengths (orthogonal box)");
    edges = f.read<double>("particles/all/box/edges", H5T_NATIVE_DOUBLE, -1);
  } else {
    f.fail("particles/all/box/edges", "missing: the box is needed to restart");
  }
  if (edges.size() != 3) f.fail("particles/all/box/edges", "expected 3 edge lengths (orthogonal box)");
  for (int d = 0; d < 3; ++d) {
    if (!(edges[d] > 0) || !std::isfinite(edges[d]))
      f.fail("particles/all/box/edges", fmt::format("edge lengths must be positive and finite, found {}", edges[d]));
    s.box.length[d] = edges[d];
  }
  if (f.exists("particles/all/position/step")) {
    if (f.dims("particles/all/position/step") != std::vector<hsize_t>{dims[0]})
      f.fail("particles/all/position/step", fmt::format("expected {} steps, one per position frame", dims[0]));
    s.step = f.read<long long>("particles/all/position/step", H5T_NATIVE_LLONG, k)[0];
  }
  return out;
}

}  // namespace hopsim::io::md
