// The pieces of the overlapped field output (issue 22): the writer thread's order and errors, single-precision
// fields written as they are, and output.compression (parsed with located errors, chunked and deflated files that
// read back the same values).
#include <hdf5.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "CatchCompat.h"
#include "ScratchDir.h"
#include "io/BackgroundWriter.h"
#include "io/CaseReader.h"
#include "io/FieldWriter.h"
#include "io/LbmCaseParser.h"

namespace fs = std::filesystem;
using hopsim::io::BackgroundWriter;
using hopsim::io::FieldView;
using hopsim::io::GridGeometry;

TEST_CASE("the background writer runs jobs in order and keeps the first error for the caller, once", "[unit]") {
  SECTION("in order, overlapping the caller") {
    BackgroundWriter w;
    REQUIRE(w.threaded());
    std::vector<int> order;
    std::atomic<bool> release{false};
    const auto first = w.submit([&] {
      while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      order.push_back(1);
    });
    const auto second = w.submit([&] { order.push_back(2); });
    CHECK_FALSE(w.done(first));  // submit() returned while the job waits
    release = true;
    w.wait(second);
    CHECK(w.done(first));
    CHECK(order == std::vector<int>{1, 2});
    CHECK(w.jobsRun() == 2);
    CHECK_FALSE(w.failed());
    CHECK_NOTHROW(w.rethrowOnce());
  }
  SECTION("an error skips the later jobs and is thrown once, on the caller's thread") {
    for (const bool inline_ : {false, true}) {
      BackgroundWriter w(inline_);
      CHECK(w.threaded() == !inline_);
      int ran = 0;
      w.submit([&] { ++ran; });
      w.submit([] { throw std::runtime_error("disk full"); });
      w.submit([&] { ++ran; });
      w.drain();
      CHECK(ran == 1);
      CHECK(w.failed());
      CHECK_THROWS_WITH(w.rethrowOnce(), "disk full");
      CHECK_NOTHROW(w.rethrowOnce());
    }
  }
  SECTION("destroyed with jobs queued: the one under way finishes, the others are dropped, no hang") {
    std::atomic<int> ran{0};
    {
      BackgroundWriter w;
      w.submit([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        ++ran;
      });
      for (int k = 0; k < 5; ++k) w.submit([&] { ++ran; });
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    CHECK(ran >= 1);
    CHECK(ran <= 6);
  }
}

namespace {

// The values of dataset `name` of an HDF5 file, as doubles, and whether it is chunked with the deflate filter.
struct Dataset {
  std::vector<double> values;
  bool deflated = false;
  bool single = false;
};

Dataset readDataset(const fs::path& file, const char* name) {
  Dataset out;
  const hid_t f = H5Fopen(file.string().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);
  const hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  REQUIRE(d >= 0);
  const hid_t space = H5Dget_space(d);
  out.values.resize(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
  REQUIRE(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.values.data()) >= 0);
  const hid_t type = H5Dget_type(d);
  out.single = H5Tget_size(type) == 4;
  const hid_t create = H5Dget_create_plist(d);
  out.deflated = false;
  const bool chunked = H5Pget_layout(create) == H5D_CHUNKED;
  for (int k = 0; k < H5Pget_nfilters(create); ++k) {
    unsigned flags = 0;
    std::size_t n = 0;
    const H5Z_filter_t filter = H5Pget_filter2(create, static_cast<unsigned>(k), &flags, &n, nullptr, 0, nullptr,
                                               nullptr);
    if (filter == H5Z_FILTER_DEFLATE) out.deflated = chunked;
  }
  H5Pclose(create);
  H5Tclose(type);
  H5Sclose(space);
  H5Dclose(d);
  H5Fclose(f);
  return out;
}

hopsim::lbm::LbmCase parse(const std::string& text) {
  return hopsim::io::parseLbmCase(hopsim::io::CaseDocument::fromString(text, "case.yaml"));
}

const std::string kCase =
    "solver: lbm\n"                                      // 1
    "lattice: D2Q9\n"                                    // 2
    "domain: {cells: [64, 32], periodic: [x]}\n"         // 3
    "fluid: {viscosity: 0.1}\n"                          // 4
    "boundaries:\n"                                      // 5
    "  y-: {type: wall}\n"                               // 6
    "  y+: {type: moving_wall, velocity: [0.05, 0]}\n"   // 7
    "run: {steps: 100}\n";                               // 8

}  // namespace

TEST_CASE("output.compression: none by default, gzip or a level; other values refused where they stand", "[unit]") {
  CHECK(parse(kCase).output.compression == 0);
  CHECK(parse(kCase + "output: {compression: none}\n").output.compression == 0);
  CHECK(parse(kCase + "output: {compression: gzip}\n").output.compression == 4);
  CHECK(parse(kCase + "output: {compression: 9}\n").output.compression == 9);
  CHECK(parse(kCase + "output: {compression: 0}\n").output.compression == 0);
  for (const std::string bad : {"zstd", "10", "-1", "[gzip]", "{gzip: 4}"}) {
    INFO("compression: " << bad);
    try {
      parse(kCase + "output: {compression: " + bad + "}\n");
      FAIL("no error");
    } catch (const hopsim::io::CaseError& e) {
      INFO(e.what());
      CHECK(e.where().line == 9);
      CHECK(e.where().column == 23);
      CHECK(e.message().find("'output.compression'") != std::string::npos);
      CHECK(e.message().find("none, gzip (level 4) or a gzip level from 0 (none) to 9") != std::string::npos);
    }
  }
}

TEST_CASE("single-precision fields are written as they are, compressed or not, with the same values", "[unit]") {
  ScratchDir dir("field_compression");
  const GridGeometry grid{{40, 30, 6}, 3, {0, 0, 0}, 1.0};
  const std::size_t n = static_cast<std::size_t>(grid.cellCount());
  std::vector<float> rho(n), u(3 * n);
  std::vector<double> rhoWide(n), uWide(3 * n);
  for (std::size_t c = 0; c < n; ++c) {
    rho[c] = 1.0f + 1e-3f * static_cast<float>(c % 97);
    rhoWide[c] = rho[c];
    for (int a = 0; a < 3; ++a) {
      u[3 * c + a] = 0.01f * static_cast<float>((c + a) % 13) - 0.05f;
      uWide[3 * c + a] = u[3 * c + a];
    }
  }
  const std::vector<FieldView> floats = {{"density", 1, nullptr, rho.data()}, {"velocity", 3, nullptr, u.data()}};
  const std::vector<FieldView> doubles = {{"density", 1, rhoWide.data()}, {"velocity", 3, uWide.data()}};
  hopsim::io::FieldSeriesWriter plain(dir.path() / "plain", "fields", grid, true);
  hopsim::io::FieldSeriesWriter widened(dir.path() / "widened", "fields", grid, true);
  hopsim::io::FieldSeriesWriter gzip(dir.path() / "gzip", "fields", grid, true, 4);
  plain.write(0, 0.0, floats);
  widened.write(0, 0.0, doubles);
  gzip.write(0, 0.0, floats);
  // Doubles converted by HDF5 and floats written as they are: the same file, byte for byte.
  const auto bytes = [](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  CHECK(bytes(plain.stepPath(0)) == bytes(widened.stepPath(0)));
  for (const char* name : {"density", "velocity"}) {
    const Dataset a = readDataset(plain.stepPath(0), name), b = readDataset(gzip.stepPath(0), name);
    CHECK(a.single);
    CHECK_FALSE(a.deflated);
    CHECK(b.deflated);
    CHECK((a.values == b.values));
  }
  CHECK(fs::file_size(gzip.stepPath(0)) < fs::file_size(plain.stepPath(0)));
  CHECK_THROWS_AS(hopsim::io::FieldSeriesWriter(dir.path(), "fields", grid, true, 10), std::invalid_argument);
}
