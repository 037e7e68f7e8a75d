// Located access to a YAML case file: every value knows its file:line:column, and every error names it.
#pragma once

#include <yaml-cpp/yaml.h>

#include <initializer_list>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/ExitCode.h"

namespace hopsim::io {

struct SourceLocation {
  SourceLocation(std::string f = {}, int l = 0, int c = 0, std::string o = {})
      : file(std::move(f)), line(l), column(c), override(std::move(o)) {}
  std::string file;
  int line = 0;          // 1-based; 0 when unknown
  int column = 0;        // 1-based
  std::string override;  // "--set key=value" when the value came from the command line
  std::string str() const;
};

// A problem in a case: what() is "file:line:col: message", the form compilers use.
class CaseError : public InputError {
 public:
  CaseError(SourceLocation where, const std::string& message);
  const SourceLocation& where() const { return where_; }
  const std::string& message() const { return message_; }

 private:
  SourceLocation where_;
  std::string message_;
};

// Closest candidate by edit distance, or empty when nothing is close enough to suggest.
std::string closestMatch(std::string_view word, const std::vector<std::string>& candidates);

struct CaseState;

class CaseNode {
 public:
  CaseNode(std::shared_ptr<CaseState> state, YAML::Node node, std::string path, std::string origin,
           YAML::Mark mark);
  CaseNode(const CaseNode&) = default;
  // Rebinds this handle; the default would use YAML::Node::operator=, which overwrites the node it refers to and
  // so edits the document (`std::optional<CaseNode> n = root; n = n->find("a");` would replace the root).
  CaseNode& operator=(const CaseNode& other);

  // Maps.
  bool has(std::string_view key) const;
  CaseNode at(std::string_view key) const;                      // missing key is an error
  std::optional<CaseNode> find(std::string_view key) const;     // absent or null: nullopt
  // Requires a map whose keys all come from `allowed` (unknown keys get a did-you-mean; duplicates are errors).
  void checkKeys(std::initializer_list<std::string_view> allowed) const;
  void checkKeys(const std::vector<std::string>& allowed) const;
  std::vector<std::string> keys() const;  // in file order

  // Sequences.
  std::size_t size() const;  // requires a sequence
  CaseNode operator[](std::size_t i) const;

  bool isMap() const { return node_.IsMap(); }
  bool isSequence() const { return node_.IsSequence(); }
  bool isScalar() const { return node_.IsScalar(); }
  bool isNull() const { return !node_ || node_.IsNull(); }

  // Scalars, with type checks.
  double number() const;                                    // finite
  double number(double min, double max) const;              // in [min, max]
  double positive() const;                                  // > 0
  long long integer() const;
  long long integer(long long min, long long max) const;
  bool boolean() const;
  std::string string() const;
  std::string choice(std::initializer_list<std::string_view> allowed) const;
  // A sequence of numbers with a length in [minCount, maxCount].
  std::vector<double> numbers(std::size_t minCount, std::size_t maxCount) const;
  std::vector<long long> integers(std::size_t minCount, std::size_t maxCount) const;
  std::vector<std::string> strings() const;

  [[noreturn]] void fail(const std::string& message) const;
  void warn(const std::string& message) const;
  SourceLocation location() const;
  const std::string& path() const { return path_; }  // e.g. "domain.cells[1]"
  const YAML::Node& yaml() const { return node_; }

 private:
  CaseNode child(const YAML::Node& n, std::string path, YAML::Mark mark) const;
  std::string describe() const;  // "'domain.cells'" or "the top level"

  std::shared_ptr<CaseState> state_;
  YAML::Node node_;
  std::string path_;
  std::string origin_;
  YAML::Mark mark_;
};

// A loaded case: the YAML tree after command-line overrides, plus the warnings found while reading it.
class CaseDocument {
 public:
  // Reads a file; missing, empty, binary and malformed files are CaseErrors.
  // Each override is "key.path=value" (value in YAML syntax, e.g. run.steps=100 or domain.cells=[64,64]).
  static CaseDocument load(const std::string& path, const std::vector<std::string>& overrides = {});
  static CaseDocument fromString(const std::string& text, const std::string& name = "<string>",
                                 const std::vector<std::string>& overrides = {});

  CaseNode root() const;
  const std::string& fileName() const;
  const std::vector<std::string>& warnings() const;
  nlohmann::json toJson() const;  // the effective case, for run.json

 private:
  std::shared_ptr<CaseState> state_;
};

}  // namespace hopsim::io
