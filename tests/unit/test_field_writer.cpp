// Field series writers (HDF5 + XDMF, VTK) and run.json: values read back, series files, failure leaves nothing.
#include <fmt/format.h>
#include <hdf5.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "CatchCompat.h"
#include "ScratchDir.h"
#include "io/AtomicFile.h"
#include "io/FieldOutput.h"
#include "io/FieldWriter.h"
#include "solvers/common/RunInfo.h"
#include "io/vtk/VtkFieldWriter.h"
#include "kernels/common/DeviceInfo.h"

#if HOPSIM_WITH_VTK
#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkFieldData.h>
#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkObject.h>
#include <vtkXMLImageDataReader.h>
#endif

namespace fs = std::filesystem;
using hopsim::io::FieldView;
using hopsim::io::GridGeometry;

namespace {

// Values that differ in every cell, component and step, and are exact in single precision.
struct TestFields {
  GridGeometry grid;
  std::vector<double> density, velocity;

  TestFields(GridGeometry g, int stepIndex) : grid(g) {
    const auto [nx, ny, nz] = grid.cells;
    for (long long k = 0; k < nz; ++k)
      for (long long j = 0; j < ny; ++j)
        for (long long i = 0; i < nx; ++i) {
          const double cell = static_cast<double>(i + 10 * j + 100 * k);
          density.push_back(cell + 0.25 + 1000 * stepIndex);
          for (int c = 0; c < 3; ++c) velocity.push_back(-(cell + 0.5 * c) - 2000 * stepIndex);
        }
  }
  std::vector<FieldView> views() const { return {{"density", 1, density.data()}, {"velocity", 3, velocity.data()}}; }
};

std::string readText(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::size_t countOf(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

// Tags open and close in order: enough to catch a truncated or mis-nested series file.
bool wellFormedXml(const std::string& text) {
  std::vector<std::string> open;
  std::size_t pos = 0;
  while ((pos = text.find('<', pos)) != std::string::npos) {
    const auto end = text.find('>', pos);
    if (end == std::string::npos) return false;
    const std::string tag = text.substr(pos + 1, end - pos - 1);
    pos = end + 1;
    if (tag.empty() || tag[0] == '?' || tag[0] == '!') continue;
    if (tag.back() == '/') continue;
    if (tag[0] == '/') {
      if (open.empty() || open.back() != tag.substr(1)) return false;
      open.pop_back();
    } else {
      open.push_back(tag.substr(0, tag.find_first_of(" \t\n")));
    }
  }
  return open.empty();
}

bool temporariesLeft(const fs::path& dir) {
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(".tmp") != std::string::npos) return true;
  return false;
}

struct H5Dataset {
  std::vector<hsize_t> dims;
  std::size_t typeSize = 0;
  std::vector<double> values;
};

// Reads with the plain C API, independently of the writer's helpers.
H5Dataset readDataset(const fs::path& file, const char* name) {
  H5Dataset out;
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);
  const hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  if (d >= 0) {
    const hid_t s = H5Dget_space(d);
    const int rank = H5Sget_simple_extent_ndims(s);
    out.dims.resize(rank > 0 ? rank : 0);
    H5Sget_simple_extent_dims(s, out.dims.data(), nullptr);
    const hid_t t = H5Dget_type(d);
    out.typeSize = H5Tget_size(t);
    H5Tclose(t);
    out.values.resize(static_cast<std::size_t>(H5Sget_simple_extent_npoints(s)));
    if (H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.values.data()) < 0) out.values.clear();
    H5Sclose(s);
    H5Dclose(d);
  }
  H5Fclose(f);
  return out;
}

template <typename T>
T readRootAttribute(const fs::path& file, const char* name, hid_t memType) {
  T value{};
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);
  const hid_t a = H5Aopen(f, name, H5P_DEFAULT);
  CHECK(a >= 0);
  if (a >= 0) {
    CHECK(H5Aread(a, memType, &value) >= 0);
    H5Aclose(a);
  }
  H5Fclose(f);
  return value;
}

void checkValues(const std::vector<double>& actual, const std::vector<double>& expected, const std::string& what) {
  REQUIRE(actual.size() == expected.size());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (actual[i] != expected[i] && bad++ < 5) {
      INFO(what << " value " << i);
      CHECK(actual[i] == expected[i]);
    }
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE("HDF5 field series round-trips every value and lists each step in the XDMF file", "[unit][writers]") {
  for (const bool single : {false, true}) {
    ScratchDir dir(single ? "fields3d_single" : "fields3d_double");
    GridGeometry grid{{5, 4, 3}, 3, {1.0, -2.0, 0.5}, 0.5};
    hopsim::io::FieldSeriesWriter writer(dir.path(), "fields", grid, single);
    const TestFields first(grid, 0), second(grid, 1);
    writer.write(0, 0.0, first.views());
    writer.write(10, 0.125, second.views());

    for (const auto& [step, time, data] : {std::tuple{0LL, 0.0, &first}, std::tuple{10LL, 0.125, &second}}) {
      const fs::path file = dir.path() / fmt::format("fields_{:09d}.h5", step);
      INFO(file.string());
      REQUIRE(fs::is_regular_file(file));
      const auto rho = readDataset(file, "density");
      CHECK(rho.dims == std::vector<hsize_t>{3, 4, 5});
      CHECK(rho.typeSize == (single ? 4u : 8u));
      checkValues(rho.values, data->density, "density");
      const auto u = readDataset(file, "velocity");
      CHECK(u.dims == std::vector<hsize_t>{3, 4, 5, 3});
      checkValues(u.values, data->velocity, "velocity");
      CHECK(readRootAttribute<long long>(file, "step", H5T_NATIVE_LLONG) == step);
      CHECK(readRootAttribute<double>(file, "time", H5T_NATIVE_DOUBLE) == time);
    }

    const std::string xmf = readText(dir.path() / "fields.xmf");
    INFO(xmf);
    CHECK(wellFormedXml(xmf));
    CHECK(countOf(xmf, "CollectionType=\"Temporal\"") == 1);
    CHECK(countOf(xmf, "<Time Value=") == 2);
    CHECK(countOf(xmf, "<Time Value=\"0.125\"/>") == 1);
    CHECK(countOf(xmf, "TopologyType=\"3DCoRectMesh\" Dimensions=\"4 5 6\"") == 2);
    CHECK(countOf(xmf, "GeometryType=\"ORIGIN_DXDYDZ\"") == 2);
    CHECK(countOf(xmf, ">0.5 -2 1</DataItem>") == 2);  // origin, z y x
    CHECK(countOf(xmf, "Center=\"Cell\"") == 4);
    CHECK(countOf(xmf, "fields_000000000.h5:/density") == 1);
    CHECK(countOf(xmf, "fields_000000010.h5:/velocity") == 1);
    CHECK(countOf(xmf, "Dimensions=\"3 4 5 3\"") == 2);
    CHECK(countOf(xmf, fmt::format("Precision=\"{}\" Format=\"HDF\"", single ? 4 : 8)) == 4);
    CHECK_FALSE(temporariesLeft(dir.path()));

    // The same step again replaces its entry instead of listing it twice (in another series, so the one above
    // stays as written for a look in ParaView).
    hopsim::io::FieldSeriesWriter again(dir.path(), "again", grid, single);
    again.write(10, 0.125, second.views());
    again.write(10, 0.125, first.views());
    CHECK(countOf(readText(dir.path() / "again.xmf"), "<Time Value=") == 1);
    checkValues(readDataset(dir.path() / "again_000000010.h5", "density").values, first.density, "rewritten");
  }
}

TEST_CASE("a 2D grid is written as one cell layer of the 3D mesh", "[unit][writers]") {
  ScratchDir dir("fields2d");
  GridGeometry grid{{6, 4, 1}, 2, {0, 0, 0}, 1.0};
  hopsim::io::FieldSeriesWriter writer(dir.path(), "fields", grid, false);
  const TestFields f(grid, 0);
  writer.write(0, 0.0, f.views());
  writer.write(5, 5.0, TestFields(grid, 1).views());
  const auto rho = readDataset(dir.path() / "fields_000000000.h5", "density");
  CHECK(rho.dims == std::vector<hsize_t>{1, 4, 6});
  checkValues(rho.values, f.density, "density");
  const std::string xmf = readText(dir.path() / "fields.xmf");
  CHECK(countOf(xmf, "Dimensions=\"2 5 7\"") == 2);
  CHECK(countOf(xmf, "Dimensions=\"1 4 6 3\"") == 2);
}

TEST_CASE("a failed field write throws and leaves nothing under a final name", "[unit][writers]") {
  ScratchDir dir("fields_fail");
  GridGeometry grid{{5, 4, 3}, 3, {0, 0, 0}, 1.0};
  const TestFields f(grid, 0);

  SECTION("output directory below a regular file") {
    fs::create_directories(dir.path());
    std::ofstream(dir.path() / "plain") << "x";
    hopsim::io::FieldSeriesWriter writer(dir.path() / "plain" / "out", "fields", grid, false);
    CHECK_THROWS_AS(writer.write(0, 0.0, f.views()), std::runtime_error);
    CHECK_FALSE(fs::exists(dir.path() / "plain" / "out"));
  }
  SECTION("HDF5 cannot create the file: the error names the call and the file") {
    hopsim::io::FieldSeriesWriter writer(dir.path(), "fields", grid, false);
    writer.write(0, 0.0, f.views());
    const fs::path finalPath = dir.path() / "fields_000000001.h5";
    fs::create_directories(hopsim::io::temporaryPathFor(finalPath));  // blocks the temporary file
    try {
      writer.write(1, 1.0, f.views());
      FAIL("no exception");
    } catch (const std::runtime_error& e) {
      INFO(e.what());
      CHECK(std::string(e.what()).find("H5Fcreate") != std::string::npos);
      CHECK(std::string(e.what()).find("fields_000000001.h5") != std::string::npos);
    }
    CHECK_FALSE(fs::exists(finalPath));
    CHECK(countOf(readText(dir.path() / "fields.xmf"), "<Time Value=") == 1);
  }
  SECTION("the final name cannot be replaced: the temporary file is removed") {
    hopsim::io::FieldSeriesWriter writer(dir.path(), "fields", grid, false);
    fs::create_directories(dir.path() / "fields_000000002.h5" / "occupied");
    CHECK_THROWS_AS(writer.write(2, 2.0, f.views()), std::runtime_error);
    CHECK_FALSE(temporariesLeft(dir.path()));
    CHECK_FALSE(fs::exists(dir.path() / "fields.xmf"));
  }
  SECTION("bad fields are refused before any file is made") {
    hopsim::io::FieldSeriesWriter writer(dir.path(), "fields", grid, false);
    std::vector<FieldView> bad = {{"density", 2, f.density.data()}};
    CHECK_THROWS_AS(writer.write(0, 0.0, bad), std::invalid_argument);
    bad = {{"a<b", 1, f.density.data()}};
    CHECK_THROWS_AS(writer.write(0, 0.0, bad), std::invalid_argument);
    bad = {{"density", 1, f.density.data()}, {"density", 1, f.density.data()}};
    CHECK_THROWS_AS(writer.write(0, 0.0, bad), std::invalid_argument);
    CHECK_FALSE(fs::exists(dir.path()));
  }
  CHECK_THROWS_AS(hopsim::io::FieldSeriesWriter(dir.path(), "fields", GridGeometry{{4, 4, 2}, 2, {}, 1.0}, false),
                  std::invalid_argument);
}

TEST_CASE("the field writers a case asks for write the series the writers made by hand write", "[unit][writers]") {
  namespace lbm = hopsim::lbm;
  ScratchDir dir("field_writers");
  const GridGeometry grid{{5, 4, 1}, 2, {0, 0, 0}, 1.0};
  const TestFields first(grid, 0), second(grid, 1);
  lbm::OutputSpec output;
  output.formats = {lbm::OutputFormat::Hdf5};
  if (hopsim::io::vtkAvailable()) output.formats.push_back(lbm::OutputFormat::Vtk);
  const auto self = hopsim::mpi::Comm::self();
  auto writers = hopsim::io::makeFieldWriters(output, dir.path() / "made", "fields", grid, true, {}, self);
  REQUIRE(writers.size() == output.formats.size());
  for (const auto& w : writers) {
    w->write(0, 0.0, first.views());
    w->write(5, 5.0, second.views());
    w->finish();
  }
  hopsim::io::FieldSeriesWriter hdf5(dir.path() / "by_hand", "fields", grid, true);
  hdf5.write(0, 0.0, first.views());
  hdf5.write(5, 5.0, second.views());
  CHECK(readText(dir.path() / "made" / "fields.xmf") == readText(hdf5.seriesPath()));
  CHECK(fs::is_regular_file(dir.path() / "made" / "fields_000000005.h5"));
  if (hopsim::io::vtkAvailable()) {
    CHECK(countOf(readText(dir.path() / "made" / "fields.pvd"), "<DataSet ") == 2);
    CHECK(fs::is_regular_file(dir.path() / "made" / "fields_000000005.vti"));
  } else {
    output.formats = {lbm::OutputFormat::Vtk};
    CHECK_THROWS_AS(hopsim::io::makeFieldWriters(output, dir.path(), "fields", grid, true, {}, self),
                    std::runtime_error);
  }
}

#if HOPSIM_WITH_VTK
namespace {

vtkSmartPointer<vtkImageData> readVti(const fs::path& file) {
  vtkNew<vtkXMLImageDataReader> reader;
  reader->SetFileName(file.c_str());
  reader->Update();
  return vtkSmartPointer<vtkImageData>(reader->GetOutput());
}

std::vector<double> arrayValues(vtkDataArray* a) {
  std::vector<double> v;
  if (!a) return v;
  for (vtkIdType t = 0; t < a->GetNumberOfTuples(); ++t)
    for (int c = 0; c < a->GetNumberOfComponents(); ++c) v.push_back(a->GetComponent(t, c));
  return v;
}

}  // namespace

TEST_CASE("VTK image series round-trips every value and lists each step in the .pvd file", "[unit][writers]") {
  for (const bool single : {false, true}) {
    ScratchDir dir(single ? "vtk3d_single" : "vtk3d_double");
    GridGeometry grid{{5, 4, 3}, 3, {1.0, -2.0, 0.5}, 0.5};
    hopsim::io::VtkSeriesWriter writer(dir.path(), "fields", grid, single);
    const TestFields first(grid, 0), second(grid, 1);
    writer.write(0, 0.0, first.views());
    writer.write(10, 0.125, second.views());

    for (const auto& [step, time, data] : {std::tuple{0LL, 0.0, &first}, std::tuple{10LL, 0.125, &second}}) {
      const fs::path file = dir.path() / fmt::format("fields_{:09d}.vti", step);
      INFO(file.string());
      REQUIRE(fs::is_regular_file(file));
      CHECK(readText(file).find("compressor=\"vtkZLibDataCompressor\"") != std::string::npos);
      auto image = readVti(file);
      REQUIRE(image);
      int dims[3];
      image->GetDimensions(dims);
      CHECK(dims[0] == 6);
      CHECK(dims[1] == 5);
      CHECK(dims[2] == 4);
      double origin[3], spacing[3];
      image->GetOrigin(origin);
      image->GetSpacing(spacing);
      CHECK(origin[1] == -2.0);
      CHECK(spacing[2] == 0.5);
      CHECK(image->GetNumberOfCells() == 60);
      auto* rho = image->GetCellData()->GetArray("density");
      auto* u = image->GetCellData()->GetArray("velocity");
      REQUIRE(rho);
      REQUIRE(u);
      CHECK(rho->GetDataTypeSize() == (single ? 4 : 8));
      CHECK(u->GetNumberOfComponents() == 3);
      checkValues(arrayValues(rho), data->density, "density");
      checkValues(arrayValues(u), data->velocity, "velocity");
      auto* t = image->GetFieldData()->GetArray("TimeValue");
      REQUIRE(t);
      CHECK(t->GetComponent(0, 0) == time);
    }
    const std::string pvd = readText(dir.path() / "fields.pvd");
    INFO(pvd);
    CHECK(wellFormedXml(pvd));
    CHECK(countOf(pvd, "<DataSet ") == 2);
    CHECK(countOf(pvd, "timestep=\"0.125\" group=\"\" part=\"0\" file=\"fields_000000010.vti\"") == 1);
    CHECK(countOf(pvd, "file=\"fields_000000000.vti\"") == 1);
    CHECK_FALSE(temporariesLeft(dir.path()));
  }
}

TEST_CASE("a 2D grid is one cell layer in the VTK series too", "[unit][writers]") {
  ScratchDir dir("vtk2d");
  GridGeometry grid{{6, 4, 1}, 2, {0, 0, 0}, 1.0};
  hopsim::io::VtkSeriesWriter writer(dir.path(), "fields", grid, false);
  const TestFields f(grid, 0);
  writer.write(0, 0.0, f.views());
  writer.write(5, 5.0, TestFields(grid, 1).views());
  auto image = readVti(dir.path() / "fields_000000000.vti");
  CHECK(image->GetNumberOfCells() == 24);
  checkValues(arrayValues(image->GetCellData()->GetArray("density")), f.density, "density");
}

TEST_CASE("a failed VTK write throws and leaves nothing under a final name", "[unit][writers]") {
  ScratchDir dir("vtk_fail");
  GridGeometry grid{{5, 4, 3}, 3, {0, 0, 0}, 1.0};
  const TestFields f(grid, 0);
  SECTION("output directory below a regular file") {
    fs::create_directories(dir.path());
    std::ofstream(dir.path() / "plain") << "x";
    hopsim::io::VtkSeriesWriter writer(dir.path() / "plain" / "out", "fields", grid, false);
    CHECK_THROWS_AS(writer.write(0, 0.0, f.views()), std::runtime_error);
  }
  SECTION("VTK cannot open the temporary file") {
    hopsim::io::VtkSeriesWriter writer(dir.path(), "fields", grid, false);
    const fs::path finalPath = dir.path() / "fields_000000001.vti";
    fs::create_directories(hopsim::io::temporaryPathFor(finalPath));
    const int warnings = vtkObject::GetGlobalWarningDisplay();
    vtkObject::GlobalWarningDisplayOff();  // the failure is expected; keep VTK's own report out of the test log
    CHECK_THROWS_AS(writer.write(1, 1.0, f.views()), std::runtime_error);
    vtkObject::SetGlobalWarningDisplay(warnings);
    CHECK_FALSE(fs::exists(finalPath));
    CHECK_FALSE(fs::exists(dir.path() / "fields.pvd"));
  }
}
#endif

TEST_CASE("run.json holds build, host and device descriptions as valid JSON", "[unit][writers]") {
  ScratchDir dir("runjson");
  nlohmann::json doc;
  doc["build"] = hopsim::buildInfo();
  doc["host"] = hopsim::hostInfo();
  doc["devices"] = hopsim::devicesInfo();
  doc["case"] = {{"solver", "lbm"}, {"note", std::string("bad utf-8: \xff")}};
  const fs::path path = dir.path() / "sub" / "run.json";
  hopsim::writeRunJson(path, doc);
  CHECK_FALSE(temporariesLeft(path.parent_path()));

  std::ifstream in(path);
  const auto back = nlohmann::json::parse(in);  // throws on invalid JSON
  const auto& build = back.at("build");
  CHECK(build.at("version") == HOPSIM_VERSION);
  CHECK(build.at("with_cuda") == static_cast<bool>(HOPSIM_WITH_CUDA));
  CHECK(build.at("with_mpi") == static_cast<bool>(HOPSIM_WITH_MPI));
  CHECK(build.at("with_vtk") == static_cast<bool>(HOPSIM_WITH_VTK));
  CHECK(build.at("hdf5_parallel") == static_cast<bool>(HOPSIM_HDF5_PARALLEL));
  CHECK_FALSE(build.at("compiler").get<std::string>().empty());
  const auto& host = back.at("host");
  CHECK_FALSE(host.at("hostname").get<std::string>().empty());
  CHECK_FALSE(host.at("cpu_model").get<std::string>().empty());
  CHECK(host.at("hardware_threads").get<int>() >= 1);
  CHECK(host.at("openmp_max_threads").get<int>() >= 1);
  const std::string date = host.at("date_utc");
  CHECK(date.size() == 20);
  CHECK(date[4] == '-');
  CHECK(date[10] == 'T');
  CHECK(date.back() == 'Z');
  REQUIRE(back.at("devices").is_array());
  CHECK(back.at("devices").size() == hopsim::cudaDevices().size());
  CHECK(back.at("case").at("solver") == "lbm");
}
