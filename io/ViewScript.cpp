// Filling in and writing view.py (see ViewScript.h).
#include "io/ViewScript.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string_view>

#include "hopsim/ViewScriptTemplate.h"  // kViewScriptTemplate: io/ViewScript.py, embedded by CMake
#include "io/AtomicFile.h"

namespace hopsim::io {
namespace {

// The case block of the template: the JSON between these two markers is replaced.
constexpr std::string_view kCaseBegin = "CASE = json.loads(r'''\n";
constexpr std::string_view kCaseEnd = "''')\n";

const char* fieldName(lbm::FieldName f) {
  switch (f) {
    case lbm::FieldName::Density: return "density";
    case lbm::FieldName::Velocity: return "velocity";
    case lbm::FieldName::Flags: return "flags";
    case lbm::FieldName::Pressure: return "pressure";
  }
  return "?";
}

// The axis of the largest component of v, or -1 when v is zero.
int mainAxis(const lbm::Vec3& v) {
  int axis = -1;
  double largest = 0;
  for (int a = 0; a < 3; ++a)
    if (std::abs(v[a]) > largest) {
      largest = std::abs(v[a]);
      axis = a;
    }
  return axis;
}

}  // namespace

char sliceNormal(const lbm::LbmCase& c) {
  if (c.dimensions == 2) return 'z';
  // What drives the flow: the fastest imposed velocity (moving walls, inlets), else the body force, else the
  // initial velocity.
  int flow = -1;
  double fastest = 0;
  bool keep[3] = {true, true, true};  // axes the slice may be normal to
  for (int f = 0; f < 6; ++f) {
    const lbm::FaceBoundary& b = c.faces[f];
    if (b.type != lbm::BoundaryType::MovingWall && b.type != lbm::BoundaryType::VelocityInlet) continue;
    if (b.type == lbm::BoundaryType::MovingWall) keep[f / 2] = false;
    const int a = mainAxis(b.velocity);
    if (a >= 0 && std::abs(b.velocity[a]) > fastest) {
      fastest = std::abs(b.velocity[a]);
      flow = a;
    }
  }
  if (flow < 0) flow = mainAxis(c.bodyForce);
  if (flow < 0) flow = mainAxis(c.initial.velocity);
  if (flow >= 0) keep[flow] = false;
  for (const int a : {2, 1, 0})
    if (keep[a]) return "xyz"[a];
  // Moving walls on every axis but the flow's: no plane holds all motions; one along the flow at least.
  return flow == 2 ? 'y' : 'z';
}

std::string viewScript(const lbm::LbmCase& c, const std::vector<std::string>& series,
                       const std::filesystem::path& dir) {
  nlohmann::ordered_json facts;
  facts["case"] = std::filesystem::path(c.sourceFile).filename().string();
  facts["dimensions"] = c.dimensions;
  facts["cells"] = c.cells;
  facts["fields"] = nlohmann::json::array();
  for (const lbm::FieldName f : c.output.fields) facts["fields"].push_back(fieldName(f));
  facts["series"] = series;
  if (c.units.isPhysical()) {
    // Coordinates in metres: the box the script frames is cells x spacing; the colour bar names the units.
    facts["spacing"] = c.units.dx();
    facts["units"] = {{"velocity", c.units.unit(lbm::Quantity::Velocity)},
                      {"density", c.units.unit(lbm::Quantity::Density)},
                      {"pressure", c.units.unit(lbm::Quantity::Pressure)}};
  }
  facts["slice_normal"] = std::string(1, sliceNormal(c));
  // Where the script finds its series when it is run without __file__ (the ParaView application's --script).
  facts["written_in"] = std::filesystem::absolute(dir).lexically_normal().string();
  // ASCII only, and no ' : the text sits in a Python r'''...''' string, which a ''' would end; JSON reads \u0027.
  std::string json = facts.dump(2, ' ', true);
  for (std::size_t at = 0; (at = json.find('\'', at)) != std::string::npos;) json.replace(at, 1, "\\u0027");

  const std::string_view text = kViewScriptTemplate;
  const std::size_t begin = text.find(kCaseBegin);
  const std::size_t end = begin == std::string_view::npos ? begin : text.find(kCaseEnd, begin + kCaseBegin.size());
  if (end == std::string_view::npos)
    throw std::logic_error("io/ViewScript.py has no CASE = json.loads(r'''...''') block to fill in");
  std::string script(text.substr(0, begin + kCaseBegin.size()));
  script += json;
  script += '\n';
  script += text.substr(end);
  return script;
}

void writeViewScript(const lbm::LbmCase& c, const std::vector<std::string>& series,
                     const std::filesystem::path& dir) {
  writeFileAtomic(dir / kViewScriptName, viewScript(c, series, dir));
}

}  // namespace hopsim::io
