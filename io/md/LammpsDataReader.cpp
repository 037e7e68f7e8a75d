// LAMMPS data file reader: header keywords, then Masses / Atoms / Velocities sections; coefficient sections skipped.
#include "io/md/LammpsDataReader.h"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "io/CaseReader.h"

namespace hopsim::io::md {

namespace {

struct Line {
  int number = 0;
  std::string text;     // comment removed
  std::string comment;  // after '#', trimmed
  std::vector<std::string> words;
  std::vector<int> columns;  // 1-based column of each word
};

Line splitLine(const std::string& raw, int number) {
  Line l;
  l.number = number;
  const auto hash = raw.find('#');
  l.text = raw.substr(0, hash);
  if (hash != std::string::npos) {
    l.comment = raw.substr(hash + 1);
    const auto b = l.comment.find_first_not_of(" \t\r");
    const auto e = l.comment.find_last_not_of(" \t\r");
    l.comment = b == std::string::npos ? "" : l.comment.substr(b, e - b + 1);
  }
  std::size_t i = 0;
  while (i < l.text.size()) {
    while (i < l.text.size() && std::isspace(static_cast<unsigned char>(l.text[i]))) ++i;
    if (i >= l.text.size()) break;
    const std::size_t start = i;
    while (i < l.text.size() && !std::isspace(static_cast<unsigned char>(l.text[i]))) ++i;
    l.words.push_back(l.text.substr(start, i - start));
    l.columns.push_back(static_cast<int>(start) + 1);
  }
  return l;
}

class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(int line, int column, const std::string& message) const {
    throw CaseError(SourceLocation{path_, line, column}, message);
  }
  [[noreturn]] void fail(const Line& l, std::size_t word, const std::string& message) const {
    fail(l.number, word < l.columns.size() ? l.columns[word] : 1, message);
  }

  double number(const Line& l, std::size_t w, const char* what) const {
    if (w >= l.words.size()) fail(l, l.words.size(), fmt::format("missing {}", what));
    const std::string& s = l.words[w];
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || s.empty() || !std::isfinite(v))
      fail(l, w, fmt::format("{} must be a finite number, found '{}'", what, s));
    return v;
  }
  long long integer(const Line& l, std::size_t w, const char* what) const {
    if (w >= l.words.size()) fail(l, l.words.size(), fmt::format("missing {}", what));
    const std::string& s = l.words[w];
    char* end = nullptr;
    const long long v = std::strtoll(s.c_str(), &end, 10);
    if (end != s.c_str() + s.size() || s.empty()) fail(l, w, fmt::format("{} must be a whole number, found '{}'", what, s));
    return v;
  }

  LammpsData read();

 private:
  std::string path_;
};

bool isSectionName(const std::string& text) {
  static const char* names[] = {"Atoms", "Velocities", "Masses", "Bonds", "Angles", "Dihedrals", "Impropers",
                                "Ellipsoids", "Lines", "Triangles", "Bodies"};
  for (const char* n : names)
    if (text == n) return true;
  return text.size() > 6 && text.compare(text.size() - 6, 6, "Coeffs") == 0;
}

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

LammpsData Reader::read() {
  std::ifstream in(path_, std::ios::binary);
  if (!in) throw CaseError(SourceLocation{path_}, "cannot open the LAMMPS data file (does it exist and is it readable?)");
  std::vector<Line> lines;
  std::string raw;
  int lineCount = 0;
  while (std::getline(in, raw)) {
    ++lineCount;
    if (raw.find('\0') != std::string::npos) fail(lineCount, 1, "this is a binary file, not a LAMMPS data file");
    lines.push_back(splitLine(raw, lineCount));
  }
  if (lines.empty()) throw CaseError(SourceLocation{path_}, "the LAMMPS data file is empty");

  LammpsData out;
  auto& s = out.state;
  long long natoms = -1, ntypes = -1;
  bool haveBox[3] = {false, false, false};
  std::size_t i = 1;  // the first line is a title, always skipped
  // Header: until the first section name.
  for (; i < lines.size(); ++i) {
    const Line& l = lines[i];
    if (l.words.empty()) continue;
    if (isSectionName(trimmed(l.text))) break;
    const auto& w = l.words;
    if (w.size() == 2 && w[1] == "atoms") {
      natoms = integer(l, 0, "the number of atoms");
      if (natoms < 1) fail(l, 0, "the number of atoms must be at least 1");
      // Each atom takes a line of the Atoms section: a count beyond the file's lines is a damaged or mistyped header,
      // refused here before per-atom arrays are sized by it.
      const std::size_t following = lines.size() - i - 1;
      if (static_cast<unsigned long long>(natoms) > following)
        fail(l, 0, fmt::format("the header says {} atoms, but the {} lines that follow cannot hold that many Atoms "
                               "lines (one per atom)",
                               natoms, following));
    } else if (w.size() == 3 && w[1] == "atom" && w[2] == "types") {
      ntypes = integer(l, 0, "the number of atom types");
      if (ntypes < 1) fail(l, 0, "the number of atom types must be at least 1");
    } else if (w.size() == 4 && (w[2] == "xlo" || w[2] == "ylo" || w[2] == "zlo")) {
      const int d = w[2][0] - 'x';
      const std::string hi = std::string(1, w[2][0]) + "hi";
      if (w[3] != hi) fail(l, 3, fmt::format("expected '{}' after '{}'", hi, w[2]));
      const double lo = number(l, 0, "the lower box bound"), up = number(l, 1, "the upper box bound");
      if (!(up > lo)) fail(l, 1, "the upper box bound must be greater than the lower one");
      s.box.lo[d] = lo;
      s.box.length[d] = up - lo;
      haveBox[d] = true;
    } else if (w.size() == 6 && w[3] == "xy" && w[4] == "xz" && w[5] == "yz") {
      for (std::size_t k = 0; k < 3; ++k)
        if (number(l, k, "a tilt factor") != 0)
          fail(l, k, "triclinic boxes are not supported: hopsim needs an orthogonal box (tilt factors 0)");
    } else if (w.size() >= 2 && (w[1] == "bonds" || w[1] == "angles" || w[1] == "dihedrals" || w[1] == "impropers" ||
                                 w[1] == "ellipsoids" || w[1] == "lines" || w[1] == "triangles" || w[1] == "bodies")) {
      if (integer(l, 0, "a count") != 0)
        fail(l, 1, fmt::format("'{}' are not supported: hopsim reads atom_style atomic only", w[1]));
    } else if (w.size() >= 3 && w[2] == "types") {
      // bond/angle/... types: harmless when there are none of those interactions.
    } else {
      fail(l, 0, fmt::format("unknown header line '{}'", trimmed(l.text)));
    }
  }
  if (natoms < 0) throw CaseError(SourceLocation{path_, 2, 1}, "the header does not give the number of atoms ('N atoms')");
  if (ntypes < 0) ntypes = 1;
  for (int d = 0; d < 3; ++d)
    if (!haveBox[d])
      throw CaseError(SourceLocation{path_, 2, 1},
                      fmt::format("the header does not give the box along {} ('{}lo {}hi')", "xyz"[d], "xyz"[d], "xyz"[d]));

  s.resize(static_cast<std::size_t>(natoms));
  std::unordered_map<long long, std::size_t> index;
  std::map<long long, double> masses;
  bool haveAtoms = false;
  while (i < lines.size()) {
    const Line& head = lines[i];
    const std::string name = trimmed(head.text);
    if (head.words.empty()) { ++i; continue; }
    if (!isSectionName(name)) fail(head, 0, fmt::format("expected a section name (Atoms, Velocities, Masses), found '{}'", name));
    if (name == "Atoms" && !head.comment.empty() && head.comment != "atomic")
      fail(head.number, static_cast<int>(head.text.size()) + 2,
           fmt::format("atom_style '{}' is not supported: hopsim reads atom_style atomic", head.comment));
    if ((name == "Atoms" && haveAtoms) || (name == "Velocities" && out.hasVelocities) || (name == "Masses" && out.hasMasses))
      fail(head, 0, fmt::format("a second '{}' section", name));
    ++i;
    // A section body: entries until the next section name; blank lines allowed around them.
    long long count = 0;
    for (; i < lines.size(); ++i) {
      const Line& l = lines[i];
      if (l.words.empty()) continue;
      if (isSectionName(trimmed(l.text))) break;
      ++count;
      if (name == "Masses") {
        const long long t = integer(l, 0, "the atom type");
        if (t < 1 || t > ntypes) fail(l, 0, fmt::format("atom type {} is outside 1..{}", t, ntypes));
        const double m = number(l, 1, "the mass");
        if (!(m > 0)) fail(l, 1, "a mass must be greater than zero");
        masses[t] = m;
      } else if (name == "Atoms") {
        if (l.words.size() != 5 && l.words.size() != 8)
          fail(l, 0, fmt::format("an atom_style atomic line has 5 or 8 values (id type x y z [ix iy iz]), found {}",
                                 l.words.size()));
        if (count > natoms) fail(l, 0, fmt::format("more atoms than the {} of the header", natoms));
        const long long id = integer(l, 0, "the atom id");
        if (id < 1) fail(l, 0, "atom ids must be positive");
        const long long t = integer(l, 1, "the atom type");
        if (t < 1 || t > ntypes) fail(l, 1, fmt::format("atom type {} is outside 1..{}", t, ntypes));
        const std::size_t k = static_cast<std::size_t>(count - 1);
        if (!index.emplace(id, k).second) fail(l, 0, fmt::format("atom id {} appears twice", id));
        double r[3];
        for (int d = 0; d < 3; ++d) {
          r[d] = number(l, 2 + d, "a coordinate") - s.box.lo[d];
          // Coordinates with image flags may sit outside the box: wrap them in.
          r[d] -= s.box.length[d] * std::floor(r[d] / s.box.length[d]);
          if (r[d] >= s.box.length[d]) r[d] = 0;
        }
        for (std::size_t w = 5; w < l.words.size(); ++w) integer(l, w, "an image flag");
        s.id[k] = id;
        s.x[k] = r[0], s.y[k] = r[1], s.z[k] = r[2];
        s.vx[k] = s.vy[k] = s.vz[k] = 0;
      } else if (name == "Velocities") {
        if (!haveAtoms) fail(head, 0, "the Velocities section must come after the Atoms section");
        if (l.words.size() != 4) fail(l, 0, fmt::format("a Velocities line has 4 values (id vx vy vz), found {}", l.words.size()));
        const long long id = integer(l, 0, "the atom id");
        const auto it = index.find(id);
        if (it == index.end()) fail(l, 0, fmt::format("velocity for atom id {}, which is not in the Atoms section", id));
        s.vx[it->second] = number(l, 1, "vx");
        s.vy[it->second] = number(l, 2, "vy");
        s.vz[it->second] = number(l, 3, "vz");
      }
    }
    if (name == "Atoms") {
      if (count != natoms) fail(head, 0, fmt::format("the Atoms section has {} atoms, the header says {}", count, natoms));
      haveAtoms = true;
    } else if (name == "Velocities") {
      if (count != natoms) fail(head, 0, fmt::format("the Velocities section has {} entries for {} atoms", count, natoms));
      out.hasVelocities = true;
    } else if (name == "Masses") {
      out.hasMasses = true;
    }
  }
  if (!haveAtoms) throw CaseError(SourceLocation{path_, lineCount, 1}, "the file has no Atoms section");
  if (out.hasMasses) {
    if (static_cast<long long>(masses.size()) != ntypes)
      throw CaseError(SourceLocation{path_}, fmt::format("the Masses section gives {} of {} atom types", masses.size(), ntypes));
    const double m0 = masses.begin()->second;
    for (const auto& [t, m] : masses)
      if (m != m0)
        throw CaseError(SourceLocation{path_},
                        fmt::format("atom types 1 and {} have different masses ({} and {}): hopsim simulates one species", t, m0, m));
    s.mass = m0;
  }
  return out;
}

}  // namespace

LammpsData readLammpsData(const std::string& path) { return Reader(path).read(); }

}  // namespace hopsim::io::md
