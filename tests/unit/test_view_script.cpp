// view.py: the case's facts filled into the embedded template, the slice a 3-D view shows, the file whole.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "CatchCompat.h"
#include "ScratchDir.h"
#include "io/ViewScript.h"

namespace {

namespace lbm = hopsim::lbm;
namespace io = hopsim::io;

const std::string kBegin = "CASE = json.loads(r'''\n";
const std::string kEnd = "''')\n";

// The facts a script holds; `rest` gets the text around them.
nlohmann::json factsOf(const std::string& script, std::string* rest = nullptr) {
  const std::size_t begin = script.find(kBegin);
  REQUIRE(begin != std::string::npos);
  const std::size_t from = begin + kBegin.size();
  const std::size_t end = script.find(kEnd, from);
  REQUIRE(end != std::string::npos);
  if (rest) *rest = script.substr(0, from) + script.substr(end);
  return nlohmann::json::parse(script.substr(from, end - from));
}

lbm::LbmCase box3d() {
  lbm::LbmCase c;
  c.sourceFile = "inputs/lbm/cavity3d.yaml";
  c.dimensions = 3;
  c.cells = {40, 30, 20};
  c.periodic = {false, false, false};
  for (auto& f : c.faces) f.type = lbm::BoundaryType::Wall;
  return c;
}

}  // namespace

TEST_CASE("view.py holds the case's dimensions, cells, fields and series, and the template around them", "[unit]") {
  ScratchDir dir("view_script");
  lbm::LbmCase c = box3d();
  c.output.fields = {lbm::FieldName::Density, lbm::FieldName::Flags};
  const std::string script = io::viewScript(c, {"fields.xmf", "fields.pvd"}, dir.path());
  std::string rest;
  const nlohmann::json facts = factsOf(script, &rest);
  CHECK(facts["case"] == "cavity3d.yaml");
  CHECK(facts["dimensions"] == 3);
  CHECK(facts["cells"] == nlohmann::json::array({40, 30, 20}));
  CHECK(facts["fields"] == nlohmann::json::array({"density", "flags"}));
  CHECK(facts["series"] == nlohmann::json::array({"fields.xmf", "fields.pvd"}));
  CHECK(facts["written_in"] == std::filesystem::absolute(dir.path()).lexically_normal().string());
  // Everything but the facts is the template's: the facts of another case leave the same text around them.
  lbm::LbmCase other;
  other.sourceFile = "b.yaml";
  std::string otherRest;
  factsOf(io::viewScript(other, {"fields.pvd"}, "elsewhere"), &otherRest);
  CHECK(rest == otherRest);
  CHECK(rest.find("def main(argv):") != std::string::npos);
  CHECK(rest.find("--png") != std::string::npos);
}

TEST_CASE("view.py's facts survive a case name that would end the Python string they sit in", "[unit]") {
  lbm::LbmCase c;
  c.sourceFile = "/cases/it's '''odd''' \\ \"quoted\" \xc3\xa9.yaml";
  const std::string script = io::viewScript(c, {"fields.xmf"}, "out");
  const std::size_t from = script.find(kBegin) + kBegin.size();
  const std::string block = script.substr(from, script.find(kEnd, from) - from);
  CHECK(block.find('\'') == std::string::npos);  // no ''' ends the r'''...''' string early
  int nonAscii = 0;
  for (const unsigned char ch : block) nonAscii += ch >= 0x80;
  CHECK(nonAscii == 0);  // ASCII: the file's encoding cannot matter
  CHECK(factsOf(script)["case"] == "it's '''odd''' \\ \"quoted\" \xc3\xa9.yaml");
}

TEST_CASE("a 3-D view's slice contains the flow and a moving wall's motion", "[unit]") {
  lbm::LbmCase c;
  CHECK(io::sliceNormal(c) == 'z');  // 2-D: the plane itself

  c = box3d();
  CHECK(io::sliceNormal(c) == 'z');  // nothing moves: z, the usual choice

  // The lid-driven cavity: lid z+ moving along x. The vortex turns in x-z.
  c.faces[5].type = lbm::BoundaryType::MovingWall;
  c.faces[5].velocity = {0.05, 0, 0};
  CHECK(io::sliceNormal(c) == 'y');

  // A duct driven by a body force along x: any plane along x; z first.
  c = box3d();
  c.bodyForce = {1e-6, 0, 0};
  CHECK(io::sliceNormal(c) == 'z');

  // Inflow through z-: the flow runs along z, so the slice stands upright, normal to y.
  c = box3d();
  c.faces[4].type = lbm::BoundaryType::VelocityInlet;
  c.faces[4].velocity = {0, 0, 0.05};
  CHECK(io::sliceNormal(c) == 'y');

  // The faster of two drivers decides the flow direction.
  c = box3d();
  c.faces[0].type = lbm::BoundaryType::VelocityInlet;
  c.faces[0].velocity = {0.01, 0, 0};
  c.faces[3].type = lbm::BoundaryType::MovingWall;
  c.faces[3].velocity = {0, 0, 0.08};  // y+ moving along z: flow z, y excluded
  CHECK(io::sliceNormal(c) == 'x');
}

TEST_CASE("writeViewScript writes view.py whole, replacing an older one, and leaves no temporary file", "[unit]") {
  ScratchDir dir("view_script_write");
  std::filesystem::create_directories(dir.path());
  {
    std::ofstream old(dir.path() / "view.py");
    old << "an older script\n";
  }
  const lbm::LbmCase c = box3d();
  io::writeViewScript(c, {"fields.xmf"}, dir.path());
  std::ifstream in(dir.path() / io::kViewScriptName);
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str() == io::viewScript(c, {"fields.xmf"}, dir.path()));
  int files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++files;
  CHECK(files == 1);
}
