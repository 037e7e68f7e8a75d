// LBM cases written as YAML text in a test: an edited copy, the parsed case, and the checks that an error or a
// warning comes at a given line and column with a given phrase. Shared by the parser and units tests.
#pragma once

#include <string>
#include <vector>

#include "CatchCompat.h"
#include "io/CaseReader.h"
#include "io/LbmCaseParser.h"

namespace hopsim::testing {

// `base` with its first `from` replaced by `to` (`from` must occur).
inline std::string edited(const std::string& base, const std::string& from, const std::string& to) {
  const auto at = base.find(from);
  REQUIRE(at != std::string::npos);
  std::string out = base;
  out.replace(at, from.size(), to);
  return out;
}

// The case `text` parsed as "case.yaml"; its warnings into `warnings` when given.
inline lbm::LbmCase parseCaseText(const std::string& text, std::vector<std::string>* warnings = nullptr) {
  const auto doc = io::CaseDocument::fromString(text, "case.yaml");
  auto c = io::parseLbmCase(doc);
  if (warnings) *warnings = doc.warnings();
  return c;
}

// The first error of `text` must be at line:column and contain `phrase`.
inline void expectError(const std::string& text, int line, int column, const std::string& phrase) {
  INFO("case:\n" << text);
  try {
    parseCaseText(text);
    FAIL("no error; expected '" << phrase << "' at " << line << ":" << column);
  } catch (const io::CaseError& e) {
    INFO("error: " << e.what());
    CHECK(e.where().line == line);
    CHECK(e.where().column == column);
    CHECK(e.message().find(phrase) != std::string::npos);
  }
}

// `text` parses, with exactly one warning, at line:column and containing `phrase`.
inline void expectWarning(const std::string& text, int line, int column, const std::string& phrase) {
  INFO("case:\n" << text);
  std::vector<std::string> warnings;
  parseCaseText(text, &warnings);
  REQUIRE(warnings.size() == 1);
  INFO("warning: " << warnings[0]);
  CHECK(warnings[0].find("case.yaml:" + std::to_string(line) + ":" + std::to_string(column) + ": warning:") == 0);
  CHECK(warnings[0].find(phrase) != std::string::npos);
}

}  // namespace hopsim::testing
