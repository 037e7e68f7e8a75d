// CaseReader: located errors, did-you-mean and overrides.
#include "CatchCompat.h"
#include "io/CaseReader.h"

using hopsim::io::CaseDocument;
using hopsim::io::CaseError;

TEST_CASE("unknown key is located and gets a suggestion", "[unit]") {
  auto doc = CaseDocument::fromString("solver: lbm\nrun:\n  stpes: 10\n", "case.yaml");
  try {
    doc.root().at("run").checkKeys({"steps"});
    FAIL("no error");
  } catch (const CaseError& e) {
    CHECK(e.where().line == 3);
    CHECK(e.where().column == 3);
    CHECK(std::string(e.what()).find("did you mean 'steps'") != std::string::npos);
  }
}

TEST_CASE("overrides replace values and are located on the command line", "[unit]") {
  auto doc = CaseDocument::fromString("solver: lbm\nrun: {steps: 10}\n", "case.yaml", {"run.steps=abc", "a.b=3"});
  CHECK(doc.root().at("a").at("b").integer() == 3);
  try {
    doc.root().at("run").at("steps").integer();
    FAIL("no error");
  } catch (const CaseError& e) {
    CHECK(e.where().override == "--set run.steps=abc");
  }
}
