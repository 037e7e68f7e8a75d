// STL files: round trips through both formats, and the errors for files that are not STL or not whole.
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "CatchCompat.h"
#include "ScratchDir.h"
#include "core/geometry/TriangleMesh.h"
#include "io/StlReader.h"

using hopsim::geometry::TriangleMesh;
using hopsim::geometry::Vec3;
using hopsim::io::readStl;
using hopsim::io::writeStl;

namespace {

void writeBytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// The message readStl throws for the file, or "" when it reads.
std::string readError(const std::filesystem::path& path) {
  try {
    readStl(path.string());
  } catch (const hopsim::io::StlError& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// An 80-byte header, the count, and `records` 50-byte triangles of the given coordinates.
std::string binaryStl(const std::string& header, std::uint32_t count, int records, float coordinate) {
  std::string bytes = header;
  bytes.resize(80, ' ');
  for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<char>((count >> (8 * i)) & 0xff));
  for (int r = 0; r < records; ++r) {
    std::string record(50, '\0');
    for (int v = 0; v < 12; ++v) std::memcpy(record.data() + 4 * v, &coordinate, 4);  // little-endian hosts
    bytes += record;
  }
  return bytes;
}

const char* const kOneFacet =
    "solid one\n"
    "  facet normal 0 0 1\n"
    "    outer loop\n"
    "      vertex 0 0 0\n"
    "      vertex 1 0 0\n"
    "      vertex 0 1 0\n"
    "    endloop\n"
    "  endfacet\n"
    "endsolid one\n";

}  // namespace

TEST_CASE("STL round trips: binary exact for float coordinates, ASCII exact for doubles", "[unit][stl]") {
  ScratchDir dir("stl_round_trip");
  std::filesystem::create_directories(dir.path());
  // Coordinates a float holds exactly, for the binary file; the sphere's own doubles for the ASCII file.
  TriangleMesh mesh = hopsim::geometry::icosphere({1.25, -3.5, 1e3}, 7.5, 2);
  TriangleMesh floats = mesh;
  for (auto& t : floats.triangles)
    for (auto& p : t)
      for (double& x : p) x = static_cast<float>(x);

  const auto bin = dir.path() / "sphere_binary.stl";
  writeStl(bin.string(), floats, true);
  CHECK(std::filesystem::file_size(bin) == 84 + 50 * floats.triangles.size());
  CHECK(readStl(bin.string()).triangles == floats.triangles);

  const auto text = dir.path() / "sphere_ascii.stl";
  writeStl(text.string(), mesh, false);
  CHECK(readStl(text.string()).triangles == mesh.triangles);
  // Written whole: no temporary file is left beside them.
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path())) ++files;
  CHECK(files == 2);
}

TEST_CASE("STL: binary is told from ASCII by the file size, not the first word", "[unit][stl]") {
  ScratchDir dir("stl_detect");
  std::filesystem::create_directories(dir.path());
  const auto path = dir.path() / "solid_header.stl";
  writeBytes(path, binaryStl("solid exported by a CAD program", 2, 2, 0.5f));
  const TriangleMesh mesh = readStl(path.string());
  REQUIRE(mesh.triangles.size() == 2);
  CHECK(mesh.triangles[1][2] == Vec3{0.5, 0.5, 0.5});

  // Upper-case keywords, several solids, numbers with signs and exponents.
  const auto ascii = dir.path() / "two_solids.stl";
  writeBytes(ascii, std::string(kOneFacet) +
                        "SOLID two\nFACET NORMAL 0 0 -1\nOUTER LOOP\nVERTEX +1.5e+00 -2 0\nVERTEX 1 2E-1 3\n"
                        "VERTEX 0 0 .25\nENDLOOP\nENDFACET\nENDSOLID\n");
  writeBytes(dir.path() / "bom.stl", "\xEF\xBB\xBF" + std::string(kOneFacet));
  CHECK(readStl((dir.path() / "bom.stl").string()).triangles.size() == 1);
  const TriangleMesh two = readStl(ascii.string());
  REQUIRE(two.triangles.size() == 2);
  CHECK(two.triangles[1][0] == Vec3{1.5, -2, 0});
  CHECK(two.triangles[1][1] == Vec3{1, 0.2, 3});
  CHECK(two.triangles[1][2] == Vec3{0, 0, 0.25});
}

TEST_CASE("STL: malformed ASCII files are errors naming the file, the line and what was expected", "[unit][stl]") {
  ScratchDir dir("stl_ascii_errors");
  std::filesystem::create_directories(dir.path());
  const auto path = dir.path() / "bad.stl";
  const std::string good = kOneFacet;
  auto errorFor = [&](const std::string& text) {
    writeBytes(path, text);
    return readError(path);
  };
  const std::string prefix = path.string() + ":";

  SECTION("the text reads as it stands") { CHECK(errorFor(good).empty()); }

  SECTION("a missing vertex") {
    std::string text = good;
    text.erase(text.find("      vertex 0 1 0\n"), std::strlen("      vertex 0 1 0\n"));
    const std::string msg = errorFor(text);
    CHECK(msg.rfind(prefix + "6: found 'endloop'; expected 'vertex' (facet 1 has 3 vertices", 0) == 0);
  }

  SECTION("a bad number") {
    std::string text = good;
    text.replace(text.find("vertex 1 0 0"), 12, "vertex 1 0x 0");
    CHECK(errorFor(text).rfind(prefix + "5: '0x' is not a number; expected the y coordinate of vertex 2 of facet 1",
                               0) == 0);
  }

  SECTION("a truncated file") {
    const std::string text = good.substr(0, good.find("0 1 0"));
    CHECK(errorFor(text).rfind(prefix + "6: the file ends here; expected the x coordinate of vertex 3 of facet 1",
                               0) == 0);
    const std::string noEnd = good.substr(0, good.find("endsolid"));
    CHECK(errorFor(noEnd).rfind(prefix + "9: the file ends before 'endsolid'", 0) == 0);
  }

  SECTION("a stray word") {
    std::string text = good;
    text.replace(text.find("endfacet"), 8, "endfacets");
    CHECK(errorFor(text).rfind(prefix + "8: found 'endfacets'; expected 'endfacet'", 0) == 0);
    CHECK(errorFor(good + "facet\n").rfind(prefix + "10: found 'facet' after 'endsolid'", 0) == 0);
  }

  SECTION("non-finite coordinates") {
    for (const std::string bad : {"nan", "inf", "-inf", "1e999"}) {
      std::string text = good;
      text.replace(text.find("vertex 0 1 0") + 9, 1, bad);
      const std::string msg = errorFor(text);
      CHECK(msg.rfind(prefix + "6: '" + bad + "' is", 0) == 0);
      CHECK(contains(msg, "the y coordinate of vertex 3 of facet 1"));
    }
  }
}

TEST_CASE("STL: binary files whose size does not match their count, and empty files", "[unit][stl]") {
  ScratchDir dir("stl_binary_errors");
  std::filesystem::create_directories(dir.path());
  const auto path = dir.path() / "bad.stl";

  SECTION("a header claiming four billion triangles in a file of one") {
    // Read as the header says, this would be a 300 GB allocation: the error comes at once, from the size alone.
    writeBytes(path, binaryStl("lying header", std::numeric_limits<std::uint32_t>::max(), 1, 1.0f));
    const auto start = std::chrono::steady_clock::now();
    const std::string msg = readError(path);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(msg.rfind(path.string() + ": not a binary STL file: its header says 4294967295 triangles, which take 84 + "
                                    "50 x 4294967295 = 214748364834 bytes, but the file has 134 bytes",
                    0) == 0);
    CHECK(seconds < 1.0);
  }

  SECTION("a truncated binary file") {
    std::string bytes = binaryStl("cut short", 3, 3, 2.0f);
    bytes.resize(bytes.size() - 7);
    writeBytes(path, bytes);
    CHECK(contains(readError(path), "header says 3 triangles, which take 84 + 50 x 3 = 234 bytes, but the file has "
                                    "227 bytes"));
  }

  SECTION("a lying header that starts with 'solid' is not taken for text") {
    writeBytes(path, binaryStl("solid but binary", 1000, 2, 1.0f));
    CHECK(contains(readError(path), "header says 1000 triangles"));
  }

  SECTION("non-finite binary coordinates") {
    writeBytes(path, binaryStl("", 2, 2, std::numeric_limits<float>::infinity()));
    CHECK(readError(path).rfind(path.string() + ": triangle 0 (at byte 84) has a non-finite coordinate", 0) == 0);
  }

  SECTION("an empty file") {
    writeBytes(path, "");
    CHECK(readError(path).rfind(path.string() + ": the file is empty", 0) == 0);
  }

  SECTION("a short file that is neither") {
    writeBytes(path, "hello");
    CHECK(contains(readError(path), "5 bytes are too few for a binary STL file"));
  }

  SECTION("a missing file") {
    CHECK(readError(dir.path() / "missing.stl").rfind((dir.path() / "missing.stl").string() + ": cannot open", 0) ==
          0);
  }
}

TEST_CASE("STL: writing refuses what the format cannot hold", "[unit][stl]") {
  ScratchDir dir("stl_write_errors");
  std::filesystem::create_directories(dir.path());
  TriangleMesh mesh = hopsim::geometry::boxMesh({0, 0, 0}, {1, 1, 1});
  mesh.triangles[4][1][0] = 1e300;  // a double, beyond float
  const auto path = dir.path() / "box.stl";
  CHECK_THROWS_AS(writeStl(path.string(), mesh, true), hopsim::io::StlError);
  CHECK(!std::filesystem::exists(path));
  writeStl(path.string(), mesh, false);
  CHECK(readStl(path.string()).triangles == mesh.triangles);
}
