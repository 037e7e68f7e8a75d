// MD start files (LAMMPS data, H5MD): counts and shapes that the file cannot back are refused before allocating.
#include <hdf5.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "CatchCompat.h"
#include "ScratchDir.h"
#include "io/CaseReader.h"
#include "io/md/H5mdReader.h"
#include "io/md/LammpsDataReader.h"
#include "io/md/MdCaseParser.h"

using hopsim::io::CaseError;
using hopsim::io::md::readH5mdFrame;
using hopsim::io::md::readLammpsData;

namespace {

// A minimal H5MD start file with `n` atoms in one frame: positions (with velocities when asked), ids of the given
// count, box edges. Datasets whose data is empty are created but left unwritten.
struct H5mdSpec {
  hsize_t atoms = 4;
  hsize_t ids = 4;
  bool writePositions = true;
  std::vector<double> positions;   // 3 x atoms values; a lattice when empty
  std::vector<double> velocities;  // none when empty
};

void writeDataset(hid_t file, const std::string& path, const std::vector<hsize_t>& dims, hid_t type, const void* data,
                  bool chunked = false) {
  const hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  if (chunked) {
    std::vector<hsize_t> chunk(dims);
    for (auto& c : chunk) c = std::min<hsize_t>(c, 1024);
    H5Pset_chunk(dcpl, static_cast<int>(chunk.size()), chunk.data());
  }
  const hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
  const hid_t ds = H5Dcreate2(file, path.c_str(), type, space, lcpl, dcpl, H5P_DEFAULT);
  REQUIRE(ds >= 0);
  if (data) H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
  H5Dclose(ds), H5Sclose(space), H5Pclose(dcpl), H5Pclose(lcpl);
}

void writeH5md(const std::filesystem::path& path, const H5mdSpec& spec) {
  const hid_t f = H5Fcreate(path.string().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  REQUIRE(f >= 0);
  std::vector<double> pos = spec.positions;
  if (pos.empty() && spec.writePositions)
    for (hsize_t i = 0; i < spec.atoms; ++i) pos.insert(pos.end(), {1.0 + i, 2.0, 3.0});
  writeDataset(f, "particles/all/position/value", {1, spec.atoms, 3}, H5T_NATIVE_DOUBLE,
               spec.writePositions ? pos.data() : nullptr, !spec.writePositions);
  if (!spec.velocities.empty())
    writeDataset(f, "particles/all/velocity/value", {1, spec.atoms, 3}, H5T_NATIVE_DOUBLE, spec.velocities.data());
  std::vector<long long> ids(spec.ids);
  for (hsize_t i = 0; i < spec.ids; ++i) ids[i] = static_cast<long long>(i) + 1;
  writeDataset(f, "particles/all/id/value", {1, spec.ids}, H5T_NATIVE_LLONG, ids.data());
  const double edges[3] = {10, 10, 10};
  writeDataset(f, "particles/all/box/edges/value", {1, 3}, H5T_NATIVE_DOUBLE, edges);
  H5Fclose(f);
}

// The message readH5mdFrame throws, or "" when it reads the file.
std::string h5mdError(const std::filesystem::path& path) {
  try {
    readH5mdFrame(path.string());
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("LAMMPS data: an atom count the file cannot hold is refused at the header line", "[unit][md]") {
  ScratchDir dir("lammps_count");
  std::filesystem::create_directories(dir.path());
  const auto data = dir.path() / "huge.data";
  std::ofstream(data) << "title\n\n50000000 atoms\n1 atom types\n0 10 xlo xhi\n0 10 ylo yhi\n0 10 zlo zhi\n\n"
                         "Atoms # atomic\n\n1 1 1.0 1.0 1.0\n2 1 2.0 2.0 2.0\n";
  try {
    readLammpsData(data.string());
    FAIL("no error");
  } catch (const CaseError& e) {
    INFO(e.what());
    CHECK(e.where().line == 3);
    CHECK(e.where().column == 1);
    CHECK(e.message().find("the header says 50000000 atoms, but the 9 lines that follow cannot hold") == 0);
  }
}

TEST_CASE("H5MD: datasets whose shapes disagree with the positions are refused", "[unit][md]") {
  ScratchDir dir("h5md_shapes");
  std::filesystem::create_directories(dir.path());
  const auto file = dir.path() / "start.h5";

  SECTION("a consistent file reads") {
    writeH5md(file, {});
    const auto frame = readH5mdFrame(file.string());
    REQUIRE(frame.state.size() == 4);
    CHECK(frame.state.x[3] == 4.0);
    CHECK(frame.state.id[3] == 4);
  }
  SECTION("fewer ids than atoms") {
    H5mdSpec spec;
    spec.ids = 2;
    writeH5md(file, spec);
    CHECK(h5mdError(file).find(":/particles/all/id/value: expected a (frames x N) = (1 x 4) dataset") !=
          std::string::npos);
  }
  SECTION("a shape of 50 million atoms with no positions stored") {
    H5mdSpec spec;
    spec.atoms = 50'000'000;
    spec.ids = 1;
    spec.writePositions = false;
    writeH5md(file, spec);
    CHECK(h5mdError(file).find(":/particles/all/position/value: the shape claims 50000000 atoms per frame, but the "
                               "file stores only 0 bytes") != std::string::npos);
  }
}

TEST_CASE("H5MD: NaN or infinite positions and velocities are refused, naming the atom", "[unit][md]") {
  ScratchDir dir("h5md_finite");
  std::filesystem::create_directories(dir.path());
  const auto file = dir.path() / "start.h5";
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();

  SECTION("a NaN position") {
    H5mdSpec spec;
    spec.positions = {1, 2, 3, 4, 5, 6, 7, nan, 9, 1, 1, 1};
    writeH5md(file, spec);
    CHECK(h5mdError(file).find(":/particles/all/position/value: frame 0, atom id 3 (row 2): y = nan is not a finite "
                               "number") != std::string::npos);
  }
  SECTION("an infinite velocity") {
    H5mdSpec spec;
    spec.velocities = {0, 0, 0, 0, 0, -inf, 0, 0, 0, 0, 0, 0};
    writeH5md(file, spec);
    CHECK(h5mdError(file).find(":/particles/all/velocity/value: frame 0, atom id 2 (row 1): vz = -inf is not a "
                               "finite number") != std::string::npos);
  }
  SECTION("the case parser locates it at the h5md key") {
    H5mdSpec spec;
    spec.positions = {nan, 2, 3, 4, 5, 6, 7, 8, 9, 1, 1, 1};
    writeH5md(file, spec);
    const std::string y = "solver: md\nsystem:\n  read: {h5md: " + file.string() +
                          "}\npotential: {type: lj, cutoff: 2.5}\nintegrator: {type: nve, dt: 0.005}\nrun: {steps: 1}\n";
    try {
      hopsim::io::md::parseMdCase(hopsim::io::CaseDocument::fromString(y, "case.yaml"));
      FAIL("no error");
    } catch (const CaseError& e) {
      INFO(e.what());
      CHECK(e.where().line == 3);
      CHECK(e.where().column == 16);
      CHECK(e.message().find("cannot restart from this H5MD file: ") == 0);
      CHECK(e.message().find("frame 0, atom id 1 (row 0): x = nan is not a finite number") != std::string::npos);
    }
  }
}
