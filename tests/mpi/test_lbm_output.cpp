// Field output of a decomposed LBM run (hopsim run under mpiexec): every rank writes its own block, nothing is
// gathered. The per-rank HDF5 files (and, with VTK, the .pvti pieces) reassemble into fields bitwise equal to a
// one-rank run's; with parallel HDF5 the one file per step written collectively is the one-rank run's file. On one
// rank the run writes the whole-domain files of old, checked the same way.
#include <fmt/format.h>
#include <hdf5.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <map>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "CatchCompat.h"
#include "MpiScratch.h"
#include "io/CaseReader.h"
#include "io/FieldWriter.h"
#include "io/Hdf5Handle.h"
#include "io/LbmCaseParser.h"
#include "io/ViewScript.h"
#include "core/Mpi.h"
#include "core/RunOptions.h"
#include "solvers/lbm/LbmRun.h"
#include "solvers/lbm/LbmSimulation.h"

#if HOPSIM_WITH_VTK
#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkXMLImageDataReader.h>
#include <vtkXMLPImageDataReader.h>
#endif

namespace fs = std::filesystem;
namespace lbm = hopsim::lbm;
namespace mpi = hopsim::mpi;
namespace h5 = hopsim::io::h5;

namespace {

struct OutputCase {
  const char* name;
  std::string yaml;  // without run and output
  long long steps, every;
};

std::vector<OutputCase> outputCases() {
  return {
      {"2D D2Q9: periodic x, walls, circle", 
       "solver: lbm\nlattice: D2Q9\nprecision: double\ndomain: {cells: [30, 22], periodic: [x]}\n"
       "fluid: {viscosity: 0.05}\nbody_force: [1e-5, 0]\nboundaries:\n  y-: {type: wall}\n"
       "  y+: {type: moving_wall, velocity: [0.04, 0]}\n"
       "obstacles:\n  - {name: c, shape: circle, center: [14.3, 10.6], radius: 4}\n",
       20, 10},
      {"3D D3Q19: periodic x and z, walls in y, sphere", 
       "solver: lbm\nlattice: D3Q19\nprecision: double\ndomain: {cells: [14, 12, 10], periodic: [x, z]}\n"
       "fluid: {viscosity: 0.05}\nbody_force: [2e-5, 0, 1e-5]\nboundaries:\n  y-: {type: wall}\n"
       "  y+: {type: wall}\nobstacles:\n  - {name: s, shape: sphere, center: [7.2, 5.7, 5.1], radius: 3}\n",
       10, 5},
  };
}

// `hdf5`: the case's output.hdf5 (auto, collective or per-rank).
std::string caseText(const OutputCase& k, const char* formats, const char* hdf5) {
  return k.yaml + fmt::format("run: {{steps: {}}}\ndevice: {{backend: cpu}}\n", k.steps) +
         fmt::format("output: {{every: {}, fields: [density, velocity, flags], formats: [{}], hdf5: {}}}\n", k.every,
                     formats, hdf5);
}

template <class T>
T readScalarAttribute(hid_t file, const char* name, hid_t memType, const fs::path& path) {
  T v{};
  auto a = h5::own(H5Aopen(file, name, H5P_DEFAULT), H5Aclose, "H5Aopen", path, name);
  h5::checkStatus(H5Aread(a.get(), memType, &v), "H5Aread", path, name);
  return v;
}

std::array<long long, 3> readVectorAttribute(hid_t file, const char* name, const fs::path& path) {
  std::array<long long, 3> v{};
  auto a = h5::own(H5Aopen(file, name, H5P_DEFAULT), H5Aclose, "H5Aopen", path, name);
  h5::checkStatus(H5Aread(a.get(), H5T_NATIVE_LLONG, v.data()), "H5Aread", path, name);
  return v;
}

// A dataset's extents (slowest first) and values as doubles.
std::vector<double> readDataset(hid_t file, const char* name, const fs::path& path, std::vector<hsize_t>& dims) {
  auto d = h5::own(H5Dopen2(file, name, H5P_DEFAULT), H5Dclose, "H5Dopen2", path, name);
  auto space = h5::own(H5Dget_space(d.get()), H5Sclose, "H5Dget_space", path, name);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  dims.assign(static_cast<std::size_t>(rank), 0);
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  hsize_t n = 1;
  for (auto x : dims) n *= x;
  std::vector<double> v(n);
  h5::checkStatus(H5Dread(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), "H5Dread", path,
                  name);
  return v;
}

struct WholeFields {
  std::vector<double> density, velocity, flags;
  std::vector<int> covered;  // how many blocks wrote each cell
  std::vector<std::string> problems;
};

// Places one file's block (whole domain, or a piece with its first cell) into the whole-domain arrays.
void addBlock(const fs::path& path, const std::array<long long, 3>& cells, long long step, bool piece,
              WholeFields& out) {
  h5::QuietErrors quiet;
  auto file = h5::own(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, "H5Fopen", path);
  const auto fileStep = readScalarAttribute<long long>(file.get(), "step", H5T_NATIVE_LLONG, path);
  if (fileStep != step) out.problems.push_back(fmt::format("{}: step {} not {}", path.string(), fileStep, step));
  std::array<long long, 3> first{0, 0, 0};
  if (piece) {
    first = readVectorAttribute(file.get(), "first", path);
    if (readVectorAttribute(file.get(), "grid_cells", path) != cells)
      out.problems.push_back(fmt::format("{}: grid_cells differ from the case", path.string()));
  }
  std::vector<hsize_t> dr, du, df;
  const auto rho = readDataset(file.get(), "density", path, dr);
  const auto u = readDataset(file.get(), "velocity", path, du);
  const auto flags = readDataset(file.get(), "flags", path, df);
  if (dr.size() != 3 || du.size() != 4 || du[3] != 3 || df != dr || du[0] != dr[0] || du[1] != dr[1] ||
      du[2] != dr[2]) {
    out.problems.push_back(fmt::format("{}: datasets of unexpected shapes", path.string()));
    return;
  }
  const long long count[3] = {static_cast<long long>(dr[2]), static_cast<long long>(dr[1]),
                              static_cast<long long>(dr[0])};
  for (int a = 0; a < 3; ++a)
    if (first[a] < 0 || first[a] + count[a] > cells[a]) {
      out.problems.push_back(fmt::format("{}: block outside the domain along axis {}", path.string(), a));
      return;
    }
  long long at = 0;
  for (long long z = 0; z < count[2]; ++z)
    for (long long y = 0; y < count[1]; ++y)
      for (long long x = 0; x < count[0]; ++x, ++at) {
        const long long g = ((first[2] + z) * cells[1] + first[1] + y) * cells[0] + first[0] + x;
        out.density[g] = rho[at];
        out.flags[g] = flags[at];
        for (int c = 0; c < 3; ++c) out.velocity[3 * g + c] = u[3 * at + c];
        ++out.covered[g];
      }
}

std::string readText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

long long occurrences(const std::string& text, const std::string& what) {
  long long n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

bool sameBits(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (a[k] != b[k]) return false;
  return true;
}

herr_t addAttributeName(hid_t, const char* name, const H5A_info_t*, void* names) {
  static_cast<std::vector<std::string>*>(names)->push_back(name);
  return 0;
}

// Everything of an HDF5 file a reader can see, by object: "attribute <name>" and "dataset <name>" of the root group,
// each described by its type, extents, storage layout and raw bytes as stored (no conversion). Two files with equal
// descriptions hold the same datasets, shapes, attributes and values bit for bit.
std::map<std::string, std::string> describeFile(const fs::path& path) {
  h5::QuietErrors quiet;
  std::map<std::string, std::string> out;
  auto file = h5::own(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, "H5Fopen", path);
  auto describe = [&](hid_t type, hid_t space) {
    std::string d = fmt::format("class {} size {} order {} dims", static_cast<int>(H5Tget_class(type)),
                                H5Tget_size(type), static_cast<int>(H5Tget_order(type)));
    const int rank = H5Sget_simple_extent_ndims(space);
    std::vector<hsize_t> dims(static_cast<std::size_t>(std::max(rank, 0)));
    if (rank > 0) H5Sget_simple_extent_dims(space, dims.data(), nullptr);
    for (auto n : dims) d += fmt::format(" {}", n);
    return d;
  };
  auto bytes = [](hid_t type, hid_t space) {
    return std::string(H5Tget_size(type) * static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)), '\0');
  };

  std::vector<std::string> attributes;
  hsize_t at = 0;
  h5::checkStatus(H5Aiterate2(file.get(), H5_INDEX_NAME, H5_ITER_INC, &at, addAttributeName, &attributes),
                  "H5Aiterate2", path);
  for (const auto& name : attributes) {
    auto a = h5::own(H5Aopen(file.get(), name.c_str(), H5P_DEFAULT), H5Aclose, "H5Aopen", path, name);
    auto type = h5::own(H5Aget_type(a.get()), H5Tclose, "H5Aget_type", path, name);
    auto space = h5::own(H5Aget_space(a.get()), H5Sclose, "H5Aget_space", path, name);
    std::string raw = bytes(type.get(), space.get());
    h5::checkStatus(H5Aread(a.get(), type.get(), raw.data()), "H5Aread", path, name);
    out["attribute " + name] = describe(type.get(), space.get()) + " values " + raw;
  }

  H5G_info_t info{};
  h5::checkStatus(H5Gget_info(file.get(), &info), "H5Gget_info", path);
  for (hsize_t k = 0; k < info.nlinks; ++k) {
    char name[256] = {};
    H5Lget_name_by_idx(file.get(), ".", H5_INDEX_NAME, H5_ITER_INC, k, name, sizeof name, H5P_DEFAULT);
    auto d = h5::own(H5Dopen2(file.get(), name, H5P_DEFAULT), H5Dclose, "H5Dopen2", path, name);
    auto type = h5::own(H5Dget_type(d.get()), H5Tclose, "H5Dget_type", path, name);
    auto space = h5::own(H5Dget_space(d.get()), H5Sclose, "H5Dget_space", path, name);
    auto create = h5::own(H5Dget_create_plist(d.get()), H5Pclose, "H5Dget_create_plist", path, name);
    std::string raw = bytes(type.get(), space.get());
    h5::checkStatus(H5Dread(d.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data()), "H5Dread", path, name);
    out[std::string("dataset ") + name] = describe(type.get(), space.get()) +
                                          fmt::format(" layout {}", static_cast<int>(H5Pget_layout(create.get()))) +
                                          " values " + raw;
  }
  return out;
}

// The objects whose descriptions differ between two files (empty when the files are equal as describeFile sees them).
std::vector<std::string> fileDifferences(const fs::path& a, const fs::path& b) {
  const auto da = describeFile(a), db = describeFile(b);
  std::vector<std::string> differ;
  for (const auto& [name, d] : da) {
    const auto other = db.find(name);
    if (other == db.end()) differ.push_back(fmt::format("{} only in {}", name, a.string()));
    else if (other->second != d) differ.push_back(fmt::format("{} differs", name));
  }
  for (const auto& [name, d] : db)
    if (!da.count(name)) differ.push_back(fmt::format("{} only in {}", name, b.string()));
  return differ;
}

long long temporaryFiles(const fs::path& dir) {
  long long n = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    n += e.path().filename().string().find(".tmp-") != std::string::npos;
  return n;
}

// Whether this build writes one file collectively; says so once when it does not (the test is then skipped).
bool haveParallelHdf5() {
  if (hopsim::io::CollectiveFieldSeriesWriter::available()) return true;
  if (mpi::isRoot()) std::printf("HDF5 of this build is serial: collective HDF5 test skipped\n");
  return false;
}

#if HOPSIM_WITH_VTK
// The whole image of a step read back by VTK's own readers: the .pvti (pieces) or the .vti (one rank).
bool vtkMatches(const fs::path& file, const std::vector<double>& rho, const std::vector<double>& u,
                const std::array<long long, 3>& cells, std::string& why) {
  vtkImageData* image = nullptr;
  vtkNew<vtkXMLPImageDataReader> preader;
  vtkNew<vtkXMLImageDataReader> reader;
  if (file.extension() == ".pvti") {
    preader->SetFileName(file.c_str());
    preader->Update();
    image = preader->GetOutput();
  } else {
    reader->SetFileName(file.c_str());
    reader->Update();
    image = reader->GetOutput();
  }
  int ext[6];
  image->GetExtent(ext);
  for (int a = 0; a < 3; ++a)
    if (ext[2 * a] != 0 || ext[2 * a + 1] != cells[a]) {
      why = fmt::format("{}: extent {} {} along axis {}", file.string(), ext[2 * a], ext[2 * a + 1], a);
      return false;
    }
  vtkDataArray* d = image->GetCellData()->GetArray("density");
  vtkDataArray* v = image->GetCellData()->GetArray("velocity");
  if (!d || !v || d->GetNumberOfTuples() != static_cast<vtkIdType>(rho.size()) || v->GetNumberOfComponents() != 3) {
    why = fmt::format("{}: arrays missing or of the wrong size", file.string());
    return false;
  }
  for (vtkIdType i = 0; i < d->GetNumberOfTuples(); ++i) {
    if (d->GetComponent(i, 0) != rho[i]) {
      why = fmt::format("{}: density of cell {} is {} not {}", file.string(), i, d->GetComponent(i, 0), rho[i]);
      return false;
    }
    for (int c = 0; c < 3; ++c)
      if (v->GetComponent(i, c) != u[3 * i + c]) {
        why = fmt::format("{}: velocity of cell {} differs", file.string(), i);
        return false;
      }
  }
  return true;
}
#endif

}  // namespace

TEST_CASE("a decomposed run writes one file per rank that reassembles to the one-rank fields bitwise",
          "[mpi][lbm][output]") {
  const int size = mpi::size();
  const bool split = size > 1;
  const char* formats = HOPSIM_WITH_VTK ? "hdf5, vtk" : "hdf5";
  for (const OutputCase& k : outputCases()) {
    INFO(k.name << " on " << size << " ranks");
    const fs::path dir = sharedScratch("output");
    // per-rank: the one-file-per-rank layout in every build, parallel HDF5 or not.
    const auto doc = hopsim::io::CaseDocument::fromString(caseText(k, formats, "per-rank"), "case.yaml");
    hopsim::RunOptions options;
    options.outputDir = dir.string();
    options.quiet = true;
    // Every rank runs the case; each writes its own block.
    const int status = hopsim::lbm::runCase(doc, options);
    CHECK(status == 0);
    mpi::barrier();

    if (mpi::isRoot()) {
      // Root-only checks use CHECK: a REQUIRE would leave the other ranks waiting in the next collective.
      const lbm::LbmCase c = hopsim::io::parseLbmCase(doc);
      const auto cells = c.cells;
      const long long n = cells[0] * cells[1] * cells[2];
      lbm::LbmSimulation ref(c, hopsim::Backend::Cpu);  // one rank (Comm::self)
      std::vector<double> refFlags;
      ref.flagField(refFlags);
      const std::string xmf = readText(dir / "fields.xmf");
      long long outputs = 0;
      for (long long step = 0; step <= k.steps; step += k.every, ++outputs) {
        INFO("step " << step);
        ref.advance(step - ref.step());
        std::vector<double> refRho, refU;
        ref.fields(refRho, refU);

        WholeFields whole{std::vector<double>(n, -1), std::vector<double>(3 * n, -1), std::vector<double>(n, -1),
                          std::vector<int>(n, 0), {}};
        try {
          if (split) {
            // No whole-domain file: nothing was gathered.
            CHECK_FALSE(fs::exists(dir / hopsim::io::stepFileName("fields", step, ".h5")));
            for (int r = 0; r < size; ++r)
              addBlock(dir / hopsim::io::pieceFileName("fields", step, r, ".h5"), cells, step, true, whole);
          } else {
            addBlock(dir / hopsim::io::stepFileName("fields", step, ".h5"), cells, step, false, whole);
          }
        } catch (const std::exception& e) {
          whole.problems.push_back(e.what());
        }
        for (const auto& p : whole.problems) UNSCOPED_INFO(p);
        CHECK(whole.problems.empty());
        long long badCover = 0;
        for (int cover : whole.covered) badCover += cover != 1;
        CHECK(badCover == 0);  // the blocks tile the domain
        CHECK(sameBits(whole.density, refRho));
        CHECK(sameBits(whole.velocity, refU));
        CHECK(sameBits(whole.flags, refFlags));

        // The series names every piece of the step.
        for (int r = 0; r < (split ? size : 0); ++r)
          CHECK(xmf.find(hopsim::io::pieceFileName("fields", step, r, ".h5") + ":/velocity") != std::string::npos);
#if HOPSIM_WITH_VTK
        std::string why;
        const fs::path vtkFile = dir / hopsim::io::stepFileName("fields", step, split ? ".pvti" : ".vti");
        const bool vtkOk = vtkMatches(vtkFile, refRho, refU, cells, why);
        UNSCOPED_INFO(why);
        CHECK(vtkOk);
#endif
      }
      CHECK(occurrences(xmf, "CollectionType=\"Spatial\"") == (split ? outputs : 0));
      CHECK(occurrences(xmf, "<Time ") == outputs);
      CHECK(occurrences(xmf, ":/density<") == outputs * size);
#if HOPSIM_WITH_VTK
      const std::string pvd = readText(dir / "fields.pvd");
      CHECK(occurrences(pvd, split ? ".pvti\"" : ".vti\"") == outputs);
#endif
      // view.py, written by rank 0, opens the XDMF series first, which ParaView reads as one grid however many
      // ranks wrote it.
      std::vector<std::string> series{"fields.xmf"};
      if (HOPSIM_WITH_VTK) series.push_back("fields.pvd");
      CHECK(readText(dir / "view.py") == hopsim::io::viewScript(c, series, dir));
      long long leftovers = 0;
      for (const auto& e : fs::recursive_directory_iterator(dir))
        leftovers += e.path().filename().string().find(".tmp-") != std::string::npos;
      CHECK(leftovers == 0);
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
    mpi::barrier();
  }
}

TEST_CASE("with parallel HDF5 a decomposed run writes the one-rank run's file per step and series",
          "[mpi][lbm][output]") {
  if (!haveParallelHdf5()) return;
  const int size = mpi::size();
  // auto picks the collective file in a build with parallel HDF5, as collective does.
  for (const char* layout : {"auto", "collective"})
    for (const OutputCase& k : outputCases()) {
      INFO(k.name << " on " << size << " ranks, output.hdf5: " << layout);
      const fs::path dir = sharedScratch("collective");
      const auto doc = hopsim::io::CaseDocument::fromString(caseText(k, "hdf5", layout), "case.yaml");
      hopsim::RunOptions options;
      options.outputDir = (dir / "run").string();
      options.quiet = true;
      CHECK(hopsim::lbm::runCase(doc, options) == 0);
      mpi::barrier();

      if (mpi::isRoot()) {
        // The one-rank run's files: its fields (Comm::self) through the writer a one-rank run uses.
        const lbm::LbmCase c = hopsim::io::parseLbmCase(doc);
        lbm::LbmSimulation ref(c, hopsim::Backend::Cpu);
        hopsim::io::GridGeometry grid;
        grid.cells = c.cells;
        grid.dimensions = c.dimensions;
        hopsim::io::FieldSeriesWriter one(dir / "one", "fields", grid, c.precision != lbm::Precision::Double);
        std::vector<double> flags;
        ref.flagField(flags);
        for (long long step = 0; step <= k.steps; step += k.every) {
          INFO("step " << step);
          ref.advance(step - ref.step());
          std::vector<double> rho, u;
          ref.fields(rho, u);
          one.write(step, static_cast<double>(step), {{"density", 1, rho.data()}, {"velocity", 3, u.data()},
                                                      {"flags", 1, flags.data()}});
          const fs::path written = dir / "run" / hopsim::io::stepFileName("fields", step, ".h5");
          // Root-only: CHECK, not REQUIRE, which would leave the other ranks waiting in the next collective.
          CHECK_FALSE(fs::exists(dir / "run" / hopsim::io::stepFileName("fields", step, "")));  // no per-rank folder
          std::vector<std::string> differ;
          try {
            differ = fileDifferences(written, one.stepPath(step));
          } catch (const std::exception& e) {
            differ.push_back(e.what());
          }
          for (const auto& d : differ) UNSCOPED_INFO(d);
          CHECK(differ.empty());
        }
        // The series names one file per step, exactly as the one-rank run's does.
        CHECK(readText(dir / "run" / "fields.xmf") == readText(one.seriesPath()));
        CHECK(temporaryFiles(dir) == 0);
        std::error_code ec;
        fs::remove_all(dir, ec);
      }
      mpi::barrier();
    }
}

// The writer alone, on data that depends on the cell and component only: blocks cut along every axis the process
// grid cuts, single precision (HDF5 converts on the way, collectively as on one rank), against the whole grid
// written by one process.
TEST_CASE("a collectively written step file equals the whole grid written by one process", "[mpi][output]") {
  if (!haveParallelHdf5()) return;
  const mpi::Comm comm = mpi::Comm::world();
  hopsim::io::GridGeometry grid;
  grid.cells = {11, 7, 5};
  grid.origin = {0.5, -1, 2};
  grid.spacing = 0.25;
  int dims[3] = {0, 0, 0};
  comm.createDims(dims);
  std::vector<hopsim::io::GridBlock> blocks;
  for (int r = 0; r < comm.size(); ++r) {
    // Rank r at (x fastest) position p of the process grid; uneven cuts where the cells do not divide.
    const int p[3] = {r % dims[0], (r / dims[0]) % dims[1], r / (dims[0] * dims[1])};
    hopsim::io::GridBlock b;
    for (int a = 0; a < 3; ++a) {
      b.first[a] = grid.cells[a] * p[a] / dims[a];
      b.count[a] = grid.cells[a] * (p[a] + 1) / dims[a] - b.first[a];
    }
    blocks.push_back(b);
  }
  auto value = [](long long x, long long y, long long z, int c) {
    return 1.0 / 3.0 + static_cast<double>(x + 100 * y + 10000 * z) + 0.1 * c;
  };
  auto fill = [&](const hopsim::io::GridBlock& b, std::vector<double>& s, std::vector<double>& v) {
    s.clear();
    v.clear();
    for (long long z = b.first[2]; z < b.first[2] + b.count[2]; ++z)
      for (long long y = b.first[1]; y < b.first[1] + b.count[1]; ++y)
        for (long long x = b.first[0]; x < b.first[0] + b.count[0]; ++x) {
          s.push_back(value(x, y, z, 0));
          for (int c = 0; c < 3; ++c) v.push_back(value(x, y, z, c));
        }
  };
  const fs::path dir = sharedScratch("collective_writer");
  std::vector<double> s, v;
  fill(blocks[static_cast<std::size_t>(comm.rank())], s, v);
  hopsim::io::CollectiveFieldSeriesWriter shared(dir / "shared", "f", grid, blocks, true, comm);
  for (long long step : {0LL, 7LL})
    shared.write(step, 0.5 * static_cast<double>(step), {{"s", 1, s.data()}, {"v", 3, v.data()}});
  mpi::barrier();
  if (comm.isRoot()) {
    hopsim::io::FieldSeriesWriter one(dir / "one", "f", grid, true);
    std::vector<double> ws, wv;
    fill({{0, 0, 0}, grid.cells}, ws, wv);
    for (long long step : {0LL, 7LL}) {
      one.write(step, 0.5 * static_cast<double>(step), {{"s", 1, ws.data()}, {"v", 3, wv.data()}});
      std::vector<std::string> differ;
      try {  // an exception on rank 0 alone would leave the other ranks waiting in the barrier below
        differ = fileDifferences(shared.stepPath(step), one.stepPath(step));
      } catch (const std::exception& e) {
        differ.push_back(e.what());
      }
      for (const auto& d : differ) UNSCOPED_INFO(d);
      CHECK(differ.empty());
    }
    CHECK(readText(shared.seriesPath()) == readText(one.seriesPath()));
    CHECK(temporaryFiles(dir) == 0);
  }
  mpi::barrier();
  // Fields that one rank gets wrong fail every rank, and no file of that step appears.
  const bool bad = comm.rank() == comm.size() - 1;
  std::string error;
  try {
    shared.write(9, 4.5, {{"s", 1, s.data()}, {"v", 3, bad ? nullptr : v.data()}});
  } catch (const std::exception& e) {
    error = e.what();
  }
  INFO(error);
  CHECK_FALSE(error.empty());
  CHECK(error.find(bad ? "has no data" : "could not write") != std::string::npos);
  CHECK_FALSE(fs::exists(shared.stepPath(9)));
  mpi::barrier();
  if (comm.isRoot()) {
    CHECK(temporaryFiles(dir) == 0);
    CHECK(readText(shared.seriesPath()).find("f_000000009") == std::string::npos);
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  mpi::barrier();
}
