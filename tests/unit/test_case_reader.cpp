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

TEST_CASE("a case file with more values than a case holds is refused before it is parsed, at the line", "[unit]") {
  // 300,000 obstacles, one per line; the first two lines hold a value each.
  std::string text = "solver: lbm\nobstacles:\n";
  for (int i = 0; i < 300000; ++i) text += "  - {name: c, shape: circle, center: [1, 2], radius: 1}\n";
  try {
    CaseDocument::fromString(text, "big.yaml");
    FAIL("no error");
  } catch (const CaseError& e) {
    // Each obstacle's line counts 11 ('-', '{', four ':', four ',' and '['): 2 + 11 x 18,182 passes 200,000.
    CHECK(e.where().file == "big.yaml");
    CHECK(e.where().line == 2 + 18182);
    CHECK(std::string(e.what()).find("holds more than 200000 values") != std::string::npos);
  }
  // Comments and the value count of an ordinary case: accepted.
  std::string commented = "solver: lbm  # a comment: with, separators [ { -\n";
  for (int i = 0; i < 100000; ++i) commented += "# , , , , : : : [ { -\n";
  CHECK(CaseDocument::fromString(commented, "c.yaml").root().at("solver").string() == "lbm");
}
