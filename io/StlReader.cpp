// STL reading and writing. Sizes are checked against the file before anything is allocated for them: a header
// that claims four billion triangles in a 200-byte file is an error, not a 300 GB allocation.
#include "io/StlReader.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string_view>
#include <system_error>
#include <vector>

#include "io/AtomicFile.h"

namespace hopsim::io {
namespace {

using geometry::Triangle;
using geometry::TriangleMesh;
using geometry::Vec3;

constexpr std::uint64_t kHeaderBytes = 84;
constexpr std::uint64_t kTriangleBytes = 50;
const char* const kFormatHint =
    "an STL file is either text ('solid name', facets, 'endsolid name') or binary (an 80-byte header, a 4-byte "
    "triangle count n and 50 bytes per triangle, 84 + 50 n bytes in all)";

std::uint32_t readU32(const unsigned char* b) {
  return std::uint32_t{b[0]} | std::uint32_t{b[1]} << 8 | std::uint32_t{b[2]} << 16 | std::uint32_t{b[3]} << 24;
}

void writeU32(char* out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

bool sameWord(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// Some editors put one in front of a text file.
constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

// Text starting with "solid": the start of the file holds no control characters other than white space (binary
// triangles are full of zero bytes).
bool looksLikeAscii(std::string_view head) {
  std::size_t i = head.starts_with(kUtf8Bom) ? kUtf8Bom.size() : 0;
  while (i < head.size() && std::isspace(static_cast<unsigned char>(head[i]))) ++i;
  if (!sameWord(head.substr(i, 5), "solid")) return false;
  return std::none_of(head.begin(), head.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return (c < 0x20 && !std::isspace(c)) || c == 0x7f;
  });
}

TriangleMesh readBinary(const std::string& path, std::ifstream& in, std::uint64_t count) {
  TriangleMesh mesh;
  mesh.triangles.resize(static_cast<std::size_t>(count));
  constexpr std::size_t kChunk = 4096;
  std::vector<unsigned char> buffer(kChunk * kTriangleBytes);
  in.seekg(static_cast<std::streamoff>(kHeaderBytes));
  for (std::size_t first = 0; first < count; first += kChunk) {
    const std::size_t n = std::min<std::size_t>(kChunk, static_cast<std::size_t>(count) - first);
    if (!in.read(reinterpret_cast<char*>(buffer.data()), static_cast<std::streamsize>(n * kTriangleBytes)))
      throw StlError(fmt::format("{}: reading triangle {} failed (the file changed while being read?)", path, first));
    for (std::size_t i = 0; i < n; ++i) {
      const unsigned char* record = buffer.data() + i * kTriangleBytes + 12;  // after the normal
      Triangle& t = mesh.triangles[first + i];
      for (int v = 0; v < 3; ++v)
        for (int a = 0; a < 3; ++a) {
          const float x = std::bit_cast<float>(readU32(record + 4 * (3 * v + a)));
          if (!std::isfinite(x))
            throw StlError(fmt::format("{}: triangle {} (at byte {}) has a non-finite coordinate in vertex {}; "
                                       "coordinates must be finite numbers",
                                       path, first + i, kHeaderBytes + (first + i) * kTriangleBytes, v + 1));
          t[v][a] = x;
        }
    }
  }
  return mesh;
}

// Whitespace-separated words with their line numbers.
class Words {
 public:
  Words(const std::string& path, std::string_view text) : path_(path), text_(text) {
    if (text_.starts_with(kUtf8Bom)) pos_ = kUtf8Bom.size();
  }

  // The next word, or an empty view at the end of the text.
  std::string_view next() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) {
      if (text_[pos_] == '\n') ++line_;
      ++pos_;
    }
    const std::size_t begin = pos_;
    while (pos_ < text_.size() && !std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    return text_.substr(begin, pos_ - begin);
  }
  // Skips what is left of the current line (a solid's name).
  void skipLine() {
    while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
  }
  std::size_t line() const { return line_; }

  [[noreturn]] void fail(const std::string& what) const {
    throw StlError(fmt::format("{}:{}: {}", path_, line_, what));
  }

 private:
  const std::string& path_;
  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t line_ = 1;
};

std::string shown(std::string_view word) {
  if (word.size() > 40) return fmt::format("'{}...'", word.substr(0, 40));
  return fmt::format("'{}'", word);
}

class AsciiParser {
 public:
  AsciiParser(const std::string& path, std::string_view text) : words_(path, text) {}

  TriangleMesh parse() {
    expect("solid", "an ASCII STL file starts with 'solid'");
    words_.skipLine();
    while (true) {
      const std::string_view w = words_.next();
      if (w.empty()) words_.fail("the file ends before 'endsolid'; expected 'facet' or 'endsolid' (truncated file?)");
      if (sameWord(w, "facet")) {
        readFacet();
      } else if (sameWord(w, "endsolid")) {
        words_.skipLine();
        const std::string_view after = words_.next();
        if (after.empty()) break;
        if (!sameWord(after, "solid"))
          words_.fail(fmt::format("found {} after 'endsolid'; expected the end of the file or another 'solid'",
                                  shown(after)));
        words_.skipLine();
      } else {
        words_.fail(fmt::format("found {} after {}; expected 'facet' or 'endsolid'", shown(w), where()));
      }
    }
    return std::move(mesh_);
  }

 private:
  std::string where() const {
    return mesh_.triangles.empty() ? std::string("'solid'") : fmt::format("facet {}", mesh_.triangles.size());
  }

  void expect(std::string_view keyword, const std::string& why) {
    const std::string_view w = words_.next();
    if (sameWord(w, keyword)) return;
    if (w.empty()) words_.fail(fmt::format("the file ends here; expected '{}' ({}; truncated file?)", keyword, why));
    words_.fail(fmt::format("found {}; expected '{}' ({})", shown(w), keyword, why));
  }

  double number(const std::string& what, bool mustBeFinite) {
    std::string_view w = words_.next();
    if (w.empty()) words_.fail(fmt::format("the file ends here; expected {} (truncated file?)", what));
    std::string_view digits = w;
    if (digits.size() > 1 && digits[0] == '+') digits.remove_prefix(1);
    double x = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), x);
    if (ec == std::errc::result_out_of_range) {
      if (mustBeFinite) words_.fail(fmt::format("{} is too large for a double; expected {}", shown(w), what));
      return 0;
    }
    if (ec != std::errc() || end != digits.data() + digits.size())
      words_.fail(fmt::format("{} is not a number; expected {}", shown(w), what));
    if (mustBeFinite && !std::isfinite(x))
      words_.fail(
          fmt::format("{} is not a finite number; expected {}, and coordinates must be finite", shown(w), what));
    return x;
  }

  void readFacet() {
    const std::size_t index = mesh_.triangles.size();
    const std::string facet = fmt::format("facet {}", index + 1);
    expect("normal", fmt::format("{} starts 'facet normal nx ny nz'", facet));
    for (const char* axis : {"x", "y", "z"})
      number(fmt::format("the normal's {} component of {}", axis, facet), false);
    expect("outer", fmt::format("the normal of {} is followed by 'outer loop'", facet));
    expect("loop", fmt::format("the normal of {} is followed by 'outer loop'", facet));
    Triangle t;
    for (int v = 0; v < 3; ++v) {
      expect("vertex", fmt::format("{} has 3 vertices, 'vertex x y z' each; this is vertex {}", facet, v + 1));
      for (int a = 0; a < 3; ++a)
        t[v][a] = number(fmt::format("the {} coordinate of vertex {} of {}", "xyz"[a], v + 1, facet), true);
    }
    expect("endloop", fmt::format("{} has 3 vertices, then 'endloop'", facet));
    expect("endfacet", fmt::format("'endloop' of {} is followed by 'endfacet'", facet));
    mesh_.triangles.push_back(t);
  }

  Words words_;
  TriangleMesh mesh_;
};

void checkWritable(const std::string& path, const TriangleMesh& mesh, bool binary) {
  for (std::size_t i = 0; i < mesh.triangles.size(); ++i)
    for (const Vec3& p : mesh.triangles[i])
      for (double x : p)
        if (!std::isfinite(x) || (binary && !std::isfinite(static_cast<float>(x))))
          throw StlError(fmt::format("{}: triangle {} has a coordinate {} that {} STL cannot store", path, i, x,
                                     binary ? "binary" : "ASCII"));
  if (binary && mesh.triangles.size() > std::numeric_limits<std::uint32_t>::max())
    throw StlError(fmt::format("{}: {} triangles are more than binary STL can count (2^32 - 1)", path,
                               mesh.triangles.size()));
}

Vec3 unitNormal(const Triangle& t) {
  const Vec3 e1{t[1][0] - t[0][0], t[1][1] - t[0][1], t[1][2] - t[0][2]};
  const Vec3 e2{t[2][0] - t[0][0], t[2][1] - t[0][1], t[2][2] - t[0][2]};
  Vec3 n{e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
  const double length = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  if (length > 0 && std::isfinite(length))
    for (double& x : n) x /= length;
  else
    n = {0, 0, 0};
  return n;
}

}  // namespace

TriangleMesh readStl(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status))
    throw StlError(fmt::format("{}: cannot open the STL file: {}", path,
                               ec ? ec.message() : std::string("No such file or directory")));
  if (std::filesystem::is_directory(status)) throw StlError(fmt::format("{}: is a folder, not an STL file", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw StlError(fmt::format("{}: cannot open the STL file: {}", path, std::strerror(errno)));
  in.seekg(0, std::ios::end);
  const std::streamoff end = in.tellg();
  if (end < 0) throw StlError(fmt::format("{}: cannot tell the file's size", path));
  const std::uint64_t size = static_cast<std::uint64_t>(end);
  if (size == 0) throw StlError(fmt::format("{}: the file is empty; {}", path, kFormatHint));
  in.seekg(0);

  std::string head(static_cast<std::size_t>(std::min<std::uint64_t>(size, 512)), '\0');
  if (!in.read(head.data(), static_cast<std::streamsize>(head.size())))
    throw StlError(fmt::format("{}: reading the start of the file failed", path));
  const bool ascii = looksLikeAscii(head);
  if (size >= kHeaderBytes) {
    const std::uint64_t count = readU32(reinterpret_cast<const unsigned char*>(head.data()) + 80);
    if (size == kHeaderBytes + kTriangleBytes * count) return readBinary(path, in, count);
    if (!ascii)
      throw StlError(fmt::format("{}: not a binary STL file: its header says {} triangles, which take 84 + 50 x {} = "
                                 "{} bytes, but the file has {} bytes (truncated, or not an STL file); nor is it "
                                 "ASCII STL, which starts with 'solid' and holds only text",
                                 path, count, count, kHeaderBytes + kTriangleBytes * count, size));
  } else if (!ascii) {
    throw StlError(fmt::format("{}: {} bytes are too few for a binary STL file (84 at least) and the file does not "
                               "start with 'solid' as ASCII STL does; {}",
                               path, size, kFormatHint));
  }

  std::string text(static_cast<std::size_t>(size), '\0');
  in.seekg(0);
  if (!in.read(text.data(), static_cast<std::streamsize>(size)))
    throw StlError(fmt::format("{}: reading the file failed", path));
  return AsciiParser(path, text).parse();
}

void writeStl(const std::string& path, const TriangleMesh& mesh, bool binary) {
  checkWritable(path, mesh, binary);
  writeFileVia(path, [&](const std::filesystem::path& tmp) {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) throw StlError(fmt::format("{}: cannot write {}", path, tmp.string()));
    if (binary) {
      // Not starting with "solid": readers that go by the first word would take the file for text.
      std::string header = "binary STL written by hopsim";
      header.resize(80, ' ');
      char count[4];
      writeU32(count, static_cast<std::uint32_t>(mesh.triangles.size()));
      out.write(header.data(), 80);
      out.write(count, 4);
      std::vector<char> record(kTriangleBytes, '\0');
      auto put = [&](int slot, double x) {
        writeU32(record.data() + 4 * slot, std::bit_cast<std::uint32_t>(static_cast<float>(x)));
      };
      for (const Triangle& t : mesh.triangles) {
        const Vec3 n = unitNormal(t);
        for (int a = 0; a < 3; ++a) put(a, n[a]);
        for (int v = 0; v < 3; ++v)
          for (int a = 0; a < 3; ++a) put(3 + 3 * v + a, t[v][a]);
        out.write(record.data(), static_cast<std::streamsize>(record.size()));
      }
    } else {
      fmt::memory_buffer text;
      fmt::format_to(std::back_inserter(text), "solid hopsim\n");
      for (const Triangle& t : mesh.triangles) {
        const Vec3 n = unitNormal(t);
        fmt::format_to(std::back_inserter(text), "  facet normal {} {} {}\n    outer loop\n", n[0], n[1], n[2]);
        for (const Vec3& p : t) fmt::format_to(std::back_inserter(text), "      vertex {} {} {}\n", p[0], p[1], p[2]);
        fmt::format_to(std::back_inserter(text), "    endloop\n  endfacet\n");
        if (text.size() > (1u << 20)) {
          out.write(text.data(), static_cast<std::streamsize>(text.size()));
          text.clear();
        }
      }
      fmt::format_to(std::back_inserter(text), "endsolid hopsim\n");
      out.write(text.data(), static_cast<std::streamsize>(text.size()));
    }
    out.flush();
    if (!out) throw StlError(fmt::format("{}: writing {} failed (disk full?)", path, tmp.string()));
  });
}

}  // namespace hopsim::io
