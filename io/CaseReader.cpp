// Located YAML access for case files: type checks, did-you-mean for unknown keys, command-line overrides.
#include "io/CaseReader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

namespace hopsim::io {

struct CaseState {
  std::string file;
  YAML::Node root;
  // Nodes that came from --set, with the text the user typed; their subtrees are located there.
  std::vector<std::pair<YAML::Node, std::string>> overrides;
  std::vector<std::string> warnings;
};

std::string SourceLocation::str() const {
  if (!override.empty()) return fmt::format("{}: command line '{}'", file, override);
  if (line <= 0) return file;
  return fmt::format("{}:{}:{}", file, line, column);
}

CaseError::CaseError(SourceLocation where, const std::string& message)
    : InputError(where.str() + ": " + message), where_(std::move(where)), message_(message) {}

namespace {

// Edit distance where swapping two neighbouring letters counts as one edit (optimal string alignment).
std::size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

std::string joinQuoted(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    out += items[i];
  }
  return out;
}

std::string scalarText(const YAML::Node& n) { return n.IsScalar() ? n.Scalar() : std::string(); }

const char* kindName(const YAML::Node& n) {
  if (!n || n.IsNull()) return "nothing";
  if (n.IsMap()) return "a map";
  if (n.IsSequence()) return "a list";
  return "a scalar";
}

nlohmann::json toJsonNode(const YAML::Node& n) {
  if (!n || n.IsNull()) return nullptr;
  if (n.IsSequence()) {
    auto arr = nlohmann::json::array();
    for (const auto& item : n) arr.push_back(toJsonNode(item));
    return arr;
  }
  if (n.IsMap()) {
    auto obj = nlohmann::json::object();
    for (const auto& kv : n) obj[kv.first.Scalar()] = toJsonNode(kv.second);
    return obj;
  }
  const std::string& s = n.Scalar();
  if (n.Tag() != "!") {  // unquoted: numbers and booleans keep their type
    long long i;
    double d;
    bool b;
    if (YAML::convert<long long>::decode(n, i)) return i;
    if (YAML::convert<double>::decode(n, d) && std::isfinite(d)) return d;
    if (YAML::convert<bool>::decode(n, b)) return b;
  }
  return s;
}

// The most values a case file may hold. A case is settings (the largest lists: 253 obstacles, a few dozen keys
// each), so this leaves room to spare; what is larger is data, which goes in data files (system.read: LAMMPS data,
// H5MD). The parser holds every value as a node of a few hundred bytes: a million of them took 4.5 GB before the case
// was refused, and the limit is checked before it parses.
constexpr std::size_t kMaxCaseValues = 200'000;

// Throws when the text holds more than kMaxCaseValues values, at the line where the count passes it. Counted from
// the separators that start a value (',', ':', '[', '{' and a block sequence's '-') outside comments: an upper bound
// (a quoted string's commas count too), which is all the limit needs.
void checkValueCount(const std::string& text, const std::string& name) {
  std::size_t values = 0;
  int line = 1, column = 1;
  bool comment = false, lineStart = true;
  char previous = '\n';
  for (const char c : text) {
    if (c == '\n') {
      ++line;
      column = 1;
      comment = false;
      lineStart = true;
      previous = c;
      continue;
    }
    if (!comment && c == '#' && (previous == ' ' || previous == '\t' || previous == '\n')) comment = true;
    if (!comment) {
      if (c == ',' || c == ':' || c == '[' || c == '{' || (lineStart && c == '-')) ++values;
      if (values > kMaxCaseValues)
        throw CaseError(SourceLocation{name, line, column},
                        fmt::format("the case file holds more than {} values; a case is settings, not data: atoms "
                                    "come from data files (system.read: lammps_data or h5md), and an LBM case has at "
                                    "most 253 obstacles",
                                    kMaxCaseValues));
    }
    if (c != ' ' && c != '\t') lineStart = false;
    previous = c;
    ++column;
  }
}

// Checks that a text is something a YAML parser should see: not empty, no NUL bytes, valid UTF-8, not more values
// than a case holds.
void checkText(const std::string& text, const std::string& name) {
  SourceLocation where{name};
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw CaseError(where, "the case file is empty; a case needs at least a 'solver' key (lbm or md)");
  if (text.find('\0') != std::string::npos)
    throw CaseError(where, "this is a binary file, not a YAML case file");
  // UTF-8 validity: reject stray continuation bytes and truncated sequences.
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    int extra = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xE ? 2 : (c >> 3) == 0x1E ? 3 : -1;
    if (extra < 0 || i + extra >= text.size() + (extra == 0 ? 1 : 0))
      throw CaseError(where, "this file is not UTF-8 text; a case file must be a YAML text file");
    for (int k = 1; k <= extra; ++k)
      if ((static_cast<unsigned char>(text[i + k]) >> 6) != 0x2)
        throw CaseError(where, "this file is not UTF-8 text; a case file must be a YAML text file");
    i += extra + 1;
  }
  checkValueCount(text, name);
}

std::vector<std::string> splitPath(const std::string& path) {
  std::vector<std::string> parts;
  std::stringstream ss(path);
  std::string part;
  while (std::getline(ss, part, '.')) parts.push_back(part);
  return parts;
}

}  // namespace

std::string closestMatch(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t bestDist = std::numeric_limits<std::size_t>::max();
  for (const auto& c : candidates) {
    const std::size_t d = editDistance(word, c);
    if (d < bestDist) {
      bestDist = d;
      best = c;
    }
  }
  const std::size_t limit = std::max<std::size_t>(1, std::max(word.size(), best.size()) / 3);
  return bestDist <= limit ? best : std::string();
}

CaseNode::CaseNode(std::shared_ptr<CaseState> state, YAML::Node node, std::string path, std::string origin,
                   YAML::Mark mark)
    : state_(std::move(state)), node_(std::move(node)), path_(std::move(path)), origin_(std::move(origin)),
      mark_(mark) {}

CaseNode& CaseNode::operator=(const CaseNode& other) {
  if (this == &other) return *this;
  state_ = other.state_;
  node_.reset(other.node_);
  path_ = other.path_;
  origin_ = other.origin_;
  mark_ = other.mark_;
  return *this;
}

CaseNode CaseNode::child(const YAML::Node& n, std::string path, YAML::Mark mark) const {
  std::string origin = origin_;
  if (origin.empty())
    for (const auto& [node, text] : state_->overrides)
      if (node.is(n)) origin = text;
  return CaseNode(state_, n, std::move(path), std::move(origin), mark);
}

SourceLocation CaseNode::location() const {
  SourceLocation loc{state_->file};
  if (!origin_.empty()) {
    loc.override = origin_;
  } else if (!mark_.is_null()) {
    loc.line = mark_.line + 1;
    loc.column = mark_.column + 1;
  }
  return loc;
}

std::string CaseNode::describe() const { return path_.empty() ? "the top level" : "'" + path_ + "'"; }

void CaseNode::fail(const std::string& message) const { throw CaseError(location(), message); }

void CaseNode::warn(const std::string& message) const {
  state_->warnings.push_back(location().str() + ": warning: " + message);
}

bool CaseNode::has(std::string_view key) const { return find(key).has_value(); }

std::optional<CaseNode> CaseNode::find(std::string_view key) const {
  if (!node_.IsMap()) fail(fmt::format("{} must be a map of keys, found {}", describe(), kindName(node_)));
  for (const auto& kv : node_) {
    if (kv.first.IsScalar() && kv.first.Scalar() == key) {
      if (!kv.second || kv.second.IsNull()) return std::nullopt;
      const std::string childPath = path_.empty() ? std::string(key) : path_ + "." + std::string(key);
      YAML::Mark m = kv.second.Mark();
      if (m.is_null()) m = kv.first.Mark();
      return child(kv.second, childPath, m);
    }
  }
  return std::nullopt;
}

CaseNode CaseNode::at(std::string_view key) const {
  if (auto c = find(key)) return *c;
  // "key:" with nothing after it is present but empty; calling it missing would send the user looking elsewhere.
  for (const auto& kv : node_)
    if (kv.first.IsScalar() && kv.first.Scalar() == key) {
      const std::string childPath = path_.empty() ? std::string(key) : path_ + "." + std::string(key);
      child(kv.first, childPath, kv.first.Mark()).fail(fmt::format("'{}' has no value; it is required", childPath));
    }
  fail(fmt::format("missing required key '{}' in {}", key, describe()));
}

std::vector<std::string> CaseNode::keys() const {
  std::vector<std::string> out;
  if (!node_.IsMap()) return out;
  for (const auto& kv : node_) out.push_back(scalarText(kv.first));
  return out;
}

void CaseNode::checkKeys(std::initializer_list<std::string_view> allowed) const {
  checkKeys(std::vector<std::string>(allowed.begin(), allowed.end()));
}

void CaseNode::checkKeys(const std::vector<std::string>& allowed) const {
  if (!node_.IsMap()) fail(fmt::format("{} must be a map of keys, found {}", describe(), kindName(node_)));
  std::set<std::string> seen;
  for (const auto& kv : node_) {
    const std::string key = scalarText(kv.first);
    CaseNode keyNode = child(kv.first, path_, kv.first.Mark());
    if (!seen.insert(key).second) keyNode.fail(fmt::format("duplicate key '{}' in {}", key, describe()));
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      const std::string guess = closestMatch(key, allowed);
      keyNode.fail(fmt::format("unknown key '{}' in {}{}; allowed keys: {}", key, describe(),
                               guess.empty() ? "" : " (did you mean '" + guess + "'?)", joinQuoted(allowed)));
    }
  }
}

std::size_t CaseNode::size() const {
  if (!node_.IsSequence()) fail(fmt::format("{} must be a list, found {}", describe(), kindName(node_)));
  return node_.size();
}

CaseNode CaseNode::operator[](std::size_t i) const {
  if (i >= size()) fail(fmt::format("{} has no element {}", describe(), i));
  const YAML::Node n = node_[i];
  YAML::Mark m = n.Mark();
  if (m.is_null()) m = mark_;
  return child(n, fmt::format("{}[{}]", path_, i), m);
}

namespace {
// A quoted scalar is a string in YAML; yaml-cpp would still convert "100" to a number, hiding a type error.
bool isQuoted(const YAML::Node& n) { return n.IsScalar() && n.Tag() == "!"; }

std::string foundText(const YAML::Node& n) {
  if (isQuoted(n)) return "the quoted string \"" + n.Scalar() + "\" (a quoted value is text; remove the quotes)";
  return n.IsScalar() ? "'" + n.Scalar() + "'" : kindName(n);
}
}  // namespace

double CaseNode::number() const {
  double v = 0;
  if (!node_.IsScalar() || isQuoted(node_) || !YAML::convert<double>::decode(node_, v))
    fail(fmt::format("{} must be a number, found {}", describe(), foundText(node_)));
  if (!std::isfinite(v)) fail(fmt::format("{} must be a finite number, found '{}'", describe(), node_.Scalar()));
  return v;
}

double CaseNode::number(double min, double max) const {
  const double v = number();
  if (v < min || v > max) fail(fmt::format("{} = {} is out of range; allowed: {} to {}", describe(), v, min, max));
  return v;
}

double CaseNode::positive() const {
  const double v = number();
  if (!(v > 0)) fail(fmt::format("{} = {} must be greater than zero", describe(), v));
  return v;
}

long long CaseNode::integer() const {
  long long v = 0;
  if (!node_.IsScalar() || isQuoted(node_) || !YAML::convert<long long>::decode(node_, v))
    fail(fmt::format("{} must be a whole number, found {}", describe(), foundText(node_)));
  return v;
}

long long CaseNode::integer(long long min, long long max) const {
  const long long v = integer();
  if (v < min || v > max) fail(fmt::format("{} = {} is out of range; allowed: {} to {}", describe(), v, min, max));
  return v;
}

bool CaseNode::boolean() const {
  bool v = false;
  if (!node_.IsScalar() || isQuoted(node_) || !YAML::convert<bool>::decode(node_, v))
    fail(fmt::format("{} must be true or false, found {}", describe(), foundText(node_)));
  return v;
}

std::string CaseNode::string() const {
  if (!node_.IsScalar()) fail(fmt::format("{} must be a single value, found {}", describe(), kindName(node_)));
  return node_.Scalar();
}

std::string CaseNode::choice(std::initializer_list<std::string_view> allowed) const {
  const std::string v = string();
  std::vector<std::string> options(allowed.begin(), allowed.end());
  if (std::find(options.begin(), options.end(), v) != options.end()) return v;
  const std::string guess = closestMatch(v, options);
  fail(fmt::format("{} = '{}' is not allowed{}; allowed: {}", describe(), v,
                   guess.empty() ? "" : " (did you mean '" + guess + "'?)", joinQuoted(options)));
}

std::vector<double> CaseNode::numbers(std::size_t minCount, std::size_t maxCount) const {
  const std::size_t n = size();
  if (n < minCount || n > maxCount) {
    if (minCount == maxCount) fail(fmt::format("{} must have {} numbers, found {}", describe(), minCount, n));
    fail(fmt::format("{} must have {} to {} numbers, found {}", describe(), minCount, maxCount, n));
  }
  std::vector<double> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back((*this)[i].number());
  return out;
}

std::vector<long long> CaseNode::integers(std::size_t minCount, std::size_t maxCount) const {
  const std::size_t n = size();
  if (n < minCount || n > maxCount) {
    if (minCount == maxCount) fail(fmt::format("{} must have {} whole numbers, found {}", describe(), minCount, n));
    fail(fmt::format("{} must have {} to {} whole numbers, found {}", describe(), minCount, maxCount, n));
  }
  std::vector<long long> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back((*this)[i].integer());
  return out;
}

std::vector<std::string> CaseNode::strings() const {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < size(); ++i) out.push_back((*this)[i].string());
  return out;
}

namespace {

void applyOverride(CaseState& state, const std::string& text) {
  const SourceLocation where{state.file, 0, 0, "--set " + text};
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw CaseError(where, "an override must look like key.path=value, e.g. run.steps=100");
  const auto parts = splitPath(text.substr(0, eq));
  YAML::Node value;
  try {
    value = YAML::Load(text.substr(eq + 1));
  } catch (const YAML::Exception& e) {
    throw CaseError(where, "the value is not valid YAML: " + e.msg);
  }
  // Walk down, creating maps where the path is new; m always refers into the live tree.
  YAML::Node m = state.root;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    if (parts[i].empty()) throw CaseError(where, "empty key in the override path");
    if (!m.IsMap() && !m.IsNull()) throw CaseError(where, "'" + parts[i] + "' is inside a value that is not a map");
    YAML::Node next = m[parts[i]];
    if (!next.IsDefined() || next.IsNull()) {
      m[parts[i]] = YAML::Node(YAML::NodeType::Map);
      next = m[parts[i]];
    }
    m.reset(next);
  }
  if (!m.IsMap() && !m.IsNull()) throw CaseError(where, "the parent of '" + parts.back() + "' is not a map");
  m[parts.back()] = value;
  state.overrides.emplace_back(m[parts.back()], "--set " + text);
}

std::shared_ptr<CaseState> parse(const std::string& text, const std::string& name,
                                 const std::vector<std::string>& overrides) {
  checkText(text, name);
  auto state = std::make_shared<CaseState>();
  state->file = name;
  try {
    state->root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    SourceLocation where{name};
    if (!e.mark.is_null()) {
      where.line = e.mark.line + 1;
      where.column = e.mark.column + 1;
    }
    throw CaseError(where, "YAML syntax error: " + e.msg);
  }
  if (!state->root || state->root.IsNull())
    throw CaseError(SourceLocation{name}, "the case file has no content (only comments?); a case needs at least a "
                                          "'solver' key (lbm or md)");
  if (!state->root.IsMap())
    throw CaseError(SourceLocation{name, 1, 1}, "a case file must be a map of keys (solver: ..., ...)");
  for (const auto& o : overrides) applyOverride(*state, o);
  return state;
}

}  // namespace

CaseDocument CaseDocument::load(const std::string& path, const std::vector<std::string>& overrides) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw CaseError(SourceLocation{path}, "this is a directory; give the path of a YAML case file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CaseError(SourceLocation{path}, "cannot open the case file (does it exist and is it readable?)");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw CaseError(SourceLocation{path}, "cannot read the case file (is it a directory?)");
  CaseDocument doc;
  doc.state_ = parse(ss.str(), path, overrides);
  return doc;
}

CaseDocument CaseDocument::fromString(const std::string& text, const std::string& name,
                                      const std::vector<std::string>& overrides) {
  CaseDocument doc;
  doc.state_ = parse(text, name, overrides);
  return doc;
}

CaseNode CaseDocument::root() const { return CaseNode(state_, state_->root, "", "", state_->root.Mark()); }
const std::string& CaseDocument::fileName() const { return state_->file; }
const std::vector<std::string>& CaseDocument::warnings() const { return state_->warnings; }
nlohmann::json CaseDocument::toJson() const { return toJsonNode(state_->root); }

}  // namespace hopsim::io
