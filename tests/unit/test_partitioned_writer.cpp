// Field series of a grid split into blocks (one per MPI rank), written here from one process: each piece file holds
// its block's values, the XDMF series is a spatial collection of the blocks per step, the VTK .pvti joins .vti
// pieces whose extents are the blocks' places in the whole grid; bad block sets are refused.
#include <fmt/format.h>
#include <hdf5.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "CatchCompat.h"
#include "ScratchDir.h"
#include "io/FieldWriter.h"
#include "io/vtk/VtkFieldWriter.h"

#if HOPSIM_WITH_VTK
#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkXMLImageDataReader.h>
#include <vtkXMLPImageDataReader.h>
#endif

namespace fs = std::filesystem;
using hopsim::io::FieldView;
using hopsim::io::GridBlock;
using hopsim::io::GridGeometry;

namespace {

// The values of tests/unit/test_field_writer.cpp's TestFields over the whole grid, and any block's share of them.
struct Whole {
  std::array<long long, 3> cells;
  std::vector<double> density, velocity;

  Whole(std::array<long long, 3> n, int stepIndex) : cells(n) {
    for (long long k = 0; k < n[2]; ++k)
      for (long long j = 0; j < n[1]; ++j)
        for (long long i = 0; i < n[0]; ++i) {
          const double cell = static_cast<double>(i + 10 * j + 100 * k);
          density.push_back(cell + 0.25 + 1000 * stepIndex);
          for (int c = 0; c < 3; ++c) velocity.push_back(-(cell + 0.5 * c) - 2000 * stepIndex);
        }
  }
  // Density and velocity of the block's cells, x fastest.
  void block(const GridBlock& b, std::vector<double>& rho, std::vector<double>& u) const {
    rho.clear();
    u.clear();
    for (long long k = b.first[2]; k < b.first[2] + b.count[2]; ++k)
      for (long long j = b.first[1]; j < b.first[1] + b.count[1]; ++j)
        for (long long i = b.first[0]; i < b.first[0] + b.count[0]; ++i) {
          const long long g = (k * cells[1] + j) * cells[0] + i;
          rho.push_back(density[g]);
          for (int c = 0; c < 3; ++c) u.push_back(velocity[3 * g + c]);
        }
  }
};

// 5 x 4 x 3 cells in four blocks: x cut at 3, z at 2.
std::vector<GridBlock> fourBlocks() {
  return {{{0, 0, 0}, {3, 4, 2}}, {{3, 0, 0}, {2, 4, 2}}, {{0, 0, 2}, {3, 4, 1}}, {{3, 0, 2}, {2, 4, 1}}};
}

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

std::vector<double> readH5(const fs::path& file, const char* name, std::vector<hsize_t>& dims) {
  std::vector<double> v;
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);
  const hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  if (d >= 0) {
    const hid_t s = H5Dget_space(d);
    dims.assign(static_cast<std::size_t>(H5Sget_simple_extent_ndims(s)), 0);
    H5Sget_simple_extent_dims(s, dims.data(), nullptr);
    v.resize(static_cast<std::size_t>(H5Sget_simple_extent_npoints(s)));
    if (H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0) v.clear();
    H5Sclose(s);
    H5Dclose(d);
  }
  H5Fclose(f);
  return v;
}

std::array<long long, 3> readFirst(const fs::path& file) {
  std::array<long long, 3> v{-1, -1, -1};
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);
  const hid_t a = H5Aopen(f, "first", H5P_DEFAULT);
  if (a >= 0) {
    H5Aread(a, H5T_NATIVE_LLONG, v.data());
    H5Aclose(a);
  }
  H5Fclose(f);
  return v;
}

bool temporariesLeft(const fs::path& dir) {
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().filename().string().find(".tmp") != std::string::npos) return true;
  return false;
}

// Steps 0 (time 0) and 10 (time 0.125) of the two states, every block written as its piece, then committed.
template <class Writer>
void writeTwoSteps(Writer& writer, const std::vector<GridBlock>& blocks, const Whole& first, const Whole& second) {
  for (const auto& [step, time, whole] : {std::tuple{0LL, 0.0, &first}, std::tuple{10LL, 0.125, &second}}) {
    std::vector<FieldView> views;
    std::vector<double> rho, u;
    for (int p = 0; p < static_cast<int>(blocks.size()); ++p) {
      whole->block(blocks[p], rho, u);
      views = {{"density", 1, rho.data()}, {"velocity", 3, u.data()}};
      writer.writePiece(step, time, p, views);
    }
    writer.commitStep(step, time, views);
  }
}

}  // namespace

TEST_CASE("pieces of a split grid: HDF5 files per block joined by an XDMF spatial collection", "[unit][writers]") {
  for (const bool single : {false, true}) {
    ScratchDir dir(single ? "pieces3d_single" : "pieces3d_double");
    const GridGeometry grid{{5, 4, 3}, 3, {1.0, -2.0, 0.5}, 0.5};
    const auto blocks = fourBlocks();
    hopsim::io::PartitionedFieldSeriesWriter writer(dir.path(), "fields", grid, blocks, single);
    const Whole first(grid.cells, 0), second(grid.cells, 1);
    writeTwoSteps(writer, blocks, first, second);

    for (int p = 0; p < 4; ++p) {
      const fs::path file = dir.path() / fmt::format("fields_000000010/r{:05d}.h5", p);
      INFO(file.string());
      REQUIRE(fs::is_regular_file(file));
      CHECK(file == writer.piecePath(10, p));
      CHECK(readFirst(file) == blocks[p].first);
      std::vector<double> rho, u;
      second.block(blocks[p], rho, u);
      std::vector<hsize_t> dims;
      CHECK(readH5(file, "density", dims) == rho);
      CHECK(dims == std::vector<hsize_t>{static_cast<hsize_t>(blocks[p].count[2]),
                                         static_cast<hsize_t>(blocks[p].count[1]),
                                         static_cast<hsize_t>(blocks[p].count[0])});
      CHECK(readH5(file, "velocity", dims) == u);
      CHECK(dims.size() == 4);
    }

    const std::string xmf = readText(writer.seriesPath());
    INFO(xmf);
    CHECK(countOf(xmf, "CollectionType=\"Temporal\"") == 1);
    CHECK(countOf(xmf, "CollectionType=\"Spatial\"") == 2);
    CHECK(countOf(xmf, "<Time Value=") == 2);
    CHECK(countOf(xmf, "GridType=\"Uniform\"") == 8);
    // Block 3 starts at cell (3, 0, 2): origin (1 + 1.5, -2, 0.5 + 1), z y x; 2 x 4 x 1 cells, 3 x 5 x 2 points.
    CHECK(countOf(xmf, ">1.5 -2 2.5</DataItem>") == 2);
    CHECK(countOf(xmf, "TopologyType=\"3DCoRectMesh\" Dimensions=\"2 5 3\"") == 2);
    CHECK(countOf(xmf, "fields_000000010/r00003.h5:/velocity") == 1);
    CHECK(countOf(xmf, "Dimensions=\"1 4 2 3\"") == 2);
    CHECK_FALSE(temporariesLeft(dir.path()));
  }
}

TEST_CASE("blocks that do not tile the grid are refused", "[unit][writers]") {
  const GridGeometry grid{{5, 4, 3}, 3, {0, 0, 0}, 1.0};
  auto blocks = fourBlocks();
  CHECK_NOTHROW(hopsim::io::checkBlocks(grid, blocks));
  auto gap = blocks;
  gap.pop_back();
  CHECK_THROWS_AS(hopsim::io::checkBlocks(grid, gap), std::invalid_argument);
  auto overlap = blocks;
  overlap[1].first[0] = 2;
  overlap[1].count[0] = 3;
  CHECK_THROWS_AS(hopsim::io::checkBlocks(grid, overlap), std::invalid_argument);
  auto outside = blocks;
  outside[3].count[1] = 5;
  CHECK_THROWS_AS(hopsim::io::checkBlocks(grid, outside), std::invalid_argument);
  CHECK_THROWS_AS(hopsim::io::PartitionedFieldSeriesWriter(fs::temp_directory_path(), "fields", grid, gap, false),
                  std::invalid_argument);
  hopsim::io::PartitionedFieldSeriesWriter writer(fs::temp_directory_path(), "fields", grid, blocks, false);
  std::vector<double> v(200);
  CHECK_THROWS_AS(writer.writePiece(0, 0.0, 4, {{"density", 1, v.data()}}), std::invalid_argument);
  CHECK(hopsim::io::pieceFileName("fields", 7, 12, ".h5") == "fields_000000007/r00012.h5");
}

TEST_CASE("a split grid's write() runs one block per rank: on one rank, a grid of one block", "[unit][writers]") {
  ScratchDir dir("pieces_one_rank");
  const GridGeometry grid{{5, 4, 3}, 3, {0, 0, 0}, 1.0};
  const Whole whole(grid.cells, 0);
  const std::vector<FieldView> views = {{"density", 1, whole.density.data()}, {"velocity", 3, whole.velocity.data()}};
  hopsim::io::PartitionedFieldSeriesWriter one(dir.path(), "one", grid, {GridBlock{{0, 0, 0}, grid.cells}}, false);
  one.write(3, 3.0, views);
  CHECK(fs::is_regular_file(one.piecePath(3, 0)));
  CHECK(countOf(readText(one.seriesPath()), "CollectionType=\"Spatial\"") == 1);
  // Four blocks and one rank would list three pieces nobody wrote: refused before anything is written.
  hopsim::io::PartitionedFieldSeriesWriter four(dir.path(), "four", grid, fourBlocks(), false);
  CHECK_THROWS_AS(four.write(3, 3.0, views), std::invalid_argument);
  CHECK_FALSE(fs::exists(four.seriesPath()));
}

#if HOPSIM_WITH_VTK
TEST_CASE("pieces of a split grid: .vti pieces at their global extents joined by a .pvti per step", "[unit][writers]") {
  for (const bool single : {false, true}) {
    ScratchDir dir(single ? "vtkpieces3d_single" : "vtkpieces3d_double");
    const GridGeometry grid{{5, 4, 3}, 3, {1.0, -2.0, 0.5}, 0.5};
    const auto blocks = fourBlocks();
    hopsim::io::PartitionedVtkSeriesWriter writer(dir.path(), "fields", grid, blocks, single);
    const Whole first(grid.cells, 0), second(grid.cells, 1);
    writeTwoSteps(writer, blocks, first, second);

    // One piece on its own: its extent is its place in the whole grid.
    {
      vtkNew<vtkXMLImageDataReader> reader;
      reader->SetFileName(writer.piecePath(10, 3).c_str());
      reader->Update();
      int ext[6];
      reader->GetOutput()->GetExtent(ext);
      CHECK(std::vector<int>(ext, ext + 6) == std::vector<int>{3, 5, 0, 4, 2, 3});
    }
    // The .pvti: VTK's parallel reader assembles the whole grid.
    vtkNew<vtkXMLPImageDataReader> reader;
    reader->SetFileName(writer.stepPath(10).c_str());
    reader->Update();
    vtkImageData* image = reader->GetOutput();
    int dims[3];
    image->GetDimensions(dims);
    CHECK(std::vector<int>(dims, dims + 3) == std::vector<int>{6, 5, 4});
    double origin[3], spacing[3];
    image->GetOrigin(origin);
    image->GetSpacing(spacing);
    CHECK(origin[0] == 1.0);
    CHECK(origin[1] == -2.0);
    CHECK(origin[2] == 0.5);
    CHECK(spacing[0] == 0.5);
    vtkDataArray* rho = image->GetCellData()->GetArray("density");
    vtkDataArray* u = image->GetCellData()->GetArray("velocity");
    REQUIRE(rho);
    REQUIRE(u);
    CHECK(std::string(rho->GetClassName()) == (single ? "vtkFloatArray" : "vtkDoubleArray"));
    REQUIRE(rho->GetNumberOfTuples() == 60);
    std::size_t bad = 0;
    for (vtkIdType i = 0; i < 60; ++i) {
      bad += rho->GetComponent(i, 0) != second.density[i];
      for (int c = 0; c < 3; ++c) bad += u->GetComponent(i, c) != second.velocity[3 * i + c];
    }
    CHECK(bad == 0);

    const std::string pvd = readText(writer.seriesPath());
    CHECK(countOf(pvd, "file=\"fields_000000000.pvti\"") == 1);
    CHECK(countOf(pvd, "timestep=\"0.125\"") == 1);
    const std::string pvti = readText(writer.stepPath(10));
    INFO(pvti);
    CHECK(countOf(pvti, "WholeExtent=\"0 5 0 4 0 3\"") == 1);
    CHECK(countOf(pvti, "<Piece Extent=\"3 5 0 4 2 3\" Source=\"fields_000000010/r00003.vti\"/>") == 1);
    CHECK_FALSE(temporariesLeft(dir.path()));
  }
}
#endif
