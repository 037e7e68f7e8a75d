// Validation of `solver: lbm` cases: each value is checked where it is read, so each error points at that value.
#include "io/LbmCaseParser.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <array>
#include <climits>
#include <cmath>
#include <filesystem>
#include <map>
#include <string_view>

#include "core/lbm/Relaxation.h"
#include "io/Checkpoint.h"
#include "io/DeviceSpecParser.h"
#include "io/FieldOutput.h"
#include "io/StlReader.h"

namespace hopsim::io {

using lbm::BoundaryType;
using lbm::LbmCase;
using lbm::Vec3;

namespace {

constexpr double kMachWarning = 0.1;
// units.mach when a case in SI gives neither it nor units.lattice_velocity. LBM's compressibility error grows as Ma^2:
// the Schaefer-Turek cylinder's drag (D = 40 cells) came out 2.6% high at an inflow peak of Ma 0.13 and 1.0% high at
// Ma 0.065. Ma 0.05 for U keeps a parabolic inlet's peak (1.5 U) at Ma 0.075, an error below a per cent, while dt,
// proportional to Ma, keeps the step count within a factor 2 of the largest usable Mach number.
constexpr double kDefaultMach = 0.05;
// What the tau warning's suggested resolution or Mach number aims at: clear of the warning, not just at it.
constexpr double kTauTarget = 0.52;
constexpr double kMachError = 0.3;
// Below this tau the non-hydrodynamic modes are barely damped and BGK/TRT runs blow up at the first sharp feature.
constexpr double kTauWarning = 0.51;
// Obstacle ids share the one-byte cell flag with fluid and the boundary kinds.
constexpr std::size_t kMaxObstacles = 253;
// Keeps cell counts and the total far from overflowing any index type a backend might use.
constexpr long long kMaxCellsPerAxis = 1LL << 24;
constexpr long long kMaxCells = 1LL << 40;

constexpr std::array<const char*, 3> kAxis{"x", "y", "z"};

// What later sections need to know about the earlier ones.
struct Shape {
  int dims = 2;
  std::string lattice;
  std::array<long long, 3> cells{1, 1, 1};
  std::filesystem::path caseDir;  // files the case names (STL) are relative to it
  lbm::UnitSystem units;  // lattice units (the identity) unless the case has a units section
};

// What the units section says about the viscosity, which readFluid needs: a case in SI gives it once, in units or
// in fluid.
struct UnitsSection {
  std::optional<CaseNode> node;         // the units map, when given
  std::optional<double> viscosity;      // m^2/s, from units.viscosity or units.reynolds
  std::optional<CaseNode> viscosityAt;  // that key
};

// "[nx, ny, ...]" of the first `count` entries of domain.cells, for messages.
std::string cellsList(const CaseNode& cells, int count) {
  std::string out = "[";
  for (int a = 0; a < count; ++a) out += fmt::format("{}{}", a ? ", " : "", cells[a].integer());
  return out + (count < static_cast<int>(cells.size()) ? ", ...]" : "]");
}

std::string axesList(int dims) { return dims == 2 ? "x, y" : "x, y, z"; }
std::string facesList(int dims) { return dims == 2 ? "x-, x+, y-, y+" : "x-, x+, y-, y+, z-, z+"; }

double norm(const Vec3& v) { return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

// A vector with one number per axis of the lattice; the message says which lattice when the length is wrong,
// because a 2D vector left in a case switched to 3D is the usual way to get here.
Vec3 readVector(const CaseNode& n, const Shape& s) {
  const std::size_t count = n.size();
  if (count != static_cast<std::size_t>(s.dims))
    n.fail(fmt::format("'{}' has {} number{} but {} is a {}D lattice: give {} ({})", n.path(), count,
                       count == 1 ? "" : "s", s.lattice, s.dims, s.dims, axesList(s.dims)));
  Vec3 v{};
  for (int a = 0; a < s.dims; ++a) v[a] = n[a].number();
  return v;
}

// A dimensional vector: SI in a case with units (converted to lattice units here), lattice units otherwise.
Vec3 readVector(const CaseNode& n, const Shape& s, lbm::Quantity q) {
  Vec3 v = readVector(n, s);
  for (int a = 0; a < s.dims; ++a) v[a] = s.units.toLattice(q, v[a]);
  return v;
}

// " m/s" after a value in a case with units, "" in lattice units: messages quote values in the case's own units.
std::string unitSuffix(const Shape& s, lbm::Quantity q) {
  return s.units.isPhysical() ? std::string(" ") + s.units.unit(q) : std::string();
}

// A whole number in [min, INT_MAX]; `meaning` explains the lower limit.
int boundedInt(const CaseNode& n, long long min, const std::string& meaning) {
  const long long v = n.integer();
  if (v < min) n.fail(fmt::format("'{}' = {} must be at least {}{}", n.path(), v, min, meaning));
  if (v > INT_MAX) n.fail(fmt::format("'{}' = {} is too large; at most {}", n.path(), v, INT_MAX));
  return static_cast<int>(v);
}

std::optional<CaseNode> findPath(const CaseNode& root, std::initializer_list<std::string_view> keys) {
  std::optional<CaseNode> n = root;
  for (const auto key : keys) {
    if (!n || !n->isMap()) return std::nullopt;
    n = n->find(key);
  }
  return n;
}

void readSolver(const CaseNode& root) {
  const CaseNode solver = root.at("solver");
  const std::string s = solver.string();
  if (s == "lbm") return;
  std::string hint;
  if (s == "md")
    hint = "; molecular dynamics cases are read by the md solver";
  else if (closestMatch(s, {"lbm"}) == "lbm")
    hint = " (did you mean 'lbm'?)";
  solver.fail(fmt::format("solver = '{}' is not a lattice Boltzmann case; allowed here: lbm{}", s, hint));
}

void readLattice(const CaseNode& root, LbmCase& c, Shape& s) {
  const CaseNode node = root.at("lattice");
  std::string name = node.string();
  std::string upper = name;
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char ch) { return std::toupper(ch); });
  if (upper != name && (upper == "D2Q9" || upper == "D3Q19" || upper == "D3Q27"))
    node.fail(fmt::format("lattice = '{}': lattice names are upper case; write '{}'", name, upper));
  name = node.choice({"D2Q9", "D3Q19", "D3Q27"});
  c.lattice = name == "D2Q9" ? lbm::LatticeKind::D2Q9 : name == "D3Q19" ? lbm::LatticeKind::D3Q19 : lbm::LatticeKind::D3Q27;
  c.dimensions = name == "D2Q9" ? 2 : 3;
  s.dims = c.dimensions;
  s.lattice = name;
}

void readPrecision(const CaseNode& root, LbmCase& c) {
  c.precision = lbm::Precision::Single;
  const auto node = root.find("precision");
  if (!node) return;
  const std::string p = node->choice({"single", "double", "half"});
  if (p == "double") c.precision = lbm::Precision::Double;
  if (p == "half") c.precision = lbm::Precision::Half;
}

void readCollision(const CaseNode& root, LbmCase& c) {
  const auto node = root.find("collision");
  if (!node) return;
  node->checkKeys({"model", "magic", "les"});
  if (const auto m = node->find("model")) {
    const std::string model = m->choice({"bgk", "trt", "regularized"});
    c.collision = model == "trt"           ? lbm::CollisionModel::TRT
                  : model == "regularized" ? lbm::CollisionModel::Regularized
                                           : lbm::CollisionModel::BGK;
  }
  if (const auto magic = node->find("magic")) {
    if (c.collision != lbm::CollisionModel::TRT)
      magic->fail(fmt::format("collision.magic is the TRT magic parameter and needs collision.model: trt (the model "
                              "here is {})", lbm::toString(c.collision)));
    c.trtMagic = magic->positive();
  }
  // les: {model: smagorinsky, cs: 0.1} (README, "Lattice Boltzmann": turbulent flows).
  if (const auto les = node->find("les")) {
    les->checkKeys({"model", "cs"});
    les->at("model").choice({"smagorinsky"});
    c.smagorinsky = true;
    if (const auto cs = les->find("cs")) {
      const double v = cs->number();
      if (!(v >= 0 && v <= 0.5))
        cs->fail(fmt::format("collision.les.cs = {}: the Smagorinsky constant is >= 0 and at most 0.5 (usual values "
                             "0.1-0.2; 0 runs the LES code with no eddy viscosity)", v));
      c.smagorinskyCs = v;
    }
  }
}

// units: the case in SI (README, "Physical units"): L, U, rho_ref, cells per L, the Mach number of U (or the lattice
// velocity) and the viscosity (or the Reynolds number). Read before every dimensional value, which it converts.
UnitsSection readUnits(const CaseNode& root, LbmCase& c, Shape& s) {
  UnitsSection u;
  u.node = root.find("units");
  if (!u.node) return u;
  const CaseNode& n = *u.node;
  n.checkKeys({"length", "velocity", "density", "resolution", "mach", "lattice_velocity", "viscosity", "reynolds"});
  lbm::UnitScales scales;
  scales.length = n.at("length").positive();
  scales.velocity = n.at("velocity").positive();
  scales.density = n.at("density").positive();
  scales.resolution = n.at("resolution").positive();
  const auto mach = n.find("mach");
  const auto latticeVelocity = n.find("lattice_velocity");
  if (mach && latticeVelocity)
    latticeVelocity->fail("give units.mach or units.lattice_velocity, not both (lattice velocity = Ma / sqrt(3))");
  scales.mach = kDefaultMach;
  if (mach) scales.mach = mach->positive();
  if (latticeVelocity) scales.mach = latticeVelocity->positive() / lbm::kLatticeSoundSpeed;
  if (scales.mach > kMachError)
    (mach ? *mach : *latticeVelocity)
        .fail(fmt::format("the lattice Mach number of units.velocity is {:.3g}, above {}, where lattice Boltzmann is "
                          "neither accurate nor stable; give units.mach below {} (default {})",
                          scales.mach, kMachError, kMachWarning, kDefaultMach));
  const auto nu = n.find("viscosity");
  const auto re = n.find("reynolds");
  if (nu && re) re->fail("give units.viscosity or units.reynolds, not both (Re = U L / nu with units.velocity and "
                         "units.length)");
  if (nu) u.viscosity = nu->positive();
  if (re) u.viscosity = scales.velocity * scales.length / re->positive();
  u.viscosityAt = nu ? nu : re;
  c.units = lbm::UnitSystem::physical(scales, s.dims);
  s.units = c.units;
  return u;
}

// domain.size[a] in metres as a whole number of cells of dx; an error names the sizes next to it that fit.
long long cellsFromSize(const CaseNode& n, int axis, const Shape& s) {
  const double size = n.positive();
  const double dx = s.units.dx();
  const double ratio = size / dx;
  const double whole = std::round(ratio);
  if (whole >= 1 && std::abs(ratio - whole) <= 1e-6) return static_cast<long long>(whole);
  const double below = std::max(1.0, std::floor(ratio));
  const double above = std::max(below + 1, std::ceil(ratio));
  n.fail(fmt::format("'{}' = {} m is {:.6g} cells of dx = {:.6g} m (units.length / units.resolution), not a whole "
                     "number along {}; sizes that fit: {:.6g} m ({} cells) or {:.6g} m ({} cells), or change "
                     "units.resolution",
                     n.path(), size, ratio, dx, kAxis[axis], below * dx, below, above * dx, above));
}

void readDomain(const CaseNode& root, LbmCase& c, Shape& s) {
  const CaseNode domain = root.at("domain");
  domain.checkKeys({"cells", "size", "periodic"});
  // A case in SI gives the domain in metres; cells in such a case (or metres without units) mixes the two.
  const bool si = s.units.isPhysical();
  if (si && domain.find("cells"))
    domain.find("cells")->fail(fmt::format("domain.cells is in lattice units, but this case has a units section: give "
                                           "domain.size in metres (cells = size / dx, dx = {:.6g} m)",
                                           s.units.dx()));
  if (!si && domain.find("size"))
    domain.find("size")->fail("domain.size is in metres and needs a units section (README, \"Physical units\"); "
                              "without one give domain.cells");
  const CaseNode cells = domain.at(si ? "size" : "cells");
  const std::size_t count = cells.size();
  if (count != static_cast<std::size_t>(s.dims))
    cells.fail(fmt::format("'{}' has {} number{} but {} is a {}D lattice: give {} ({} along {})", cells.path(), count,
                           count == 1 ? "" : "s", s.lattice, s.dims, s.dims, si ? "metres" : "cells",
                           axesList(s.dims)));
  long long total = 1;
  for (int a = 0; a < s.dims; ++a) {
    const CaseNode n = cells[a];
    const long long v = si ? cellsFromSize(n, a, s) : n.integer();
    if (v < 1) n.fail(fmt::format("'{}' = {} must be at least 1 (cells along {})", n.path(), v, kAxis[a]));
    if (v > kMaxCellsPerAxis)
      n.fail(fmt::format("'{}' = {} is too large; at most {} cells along an axis", n.path(), v, kMaxCellsPerAxis));
    c.cells[a] = v;
    // Compared before multiplying: three axes of up to 2^24 cells overflow a 64-bit product.
    if (total > kMaxCells / v)
      cells.fail(fmt::format("the domain {} has more than {} cells; that cannot be run",
                             si ? fmt::format("of {} x ... cells", total) : cellsList(cells, a + 1), kMaxCells));
    total *= v;
  }
  c.cells[2] = s.dims == 2 ? 1 : c.cells[2];
  s.cells = c.cells;

  // A 2D case is one cell thick and wraps in z, so the 3D kernels need no special case for it.
  c.periodic = {false, false, s.dims == 2};
  const auto periodic = domain.find("periodic");
  if (!periodic) return;
  for (std::size_t i = 0; i < periodic->size(); ++i) {
    const CaseNode n = (*periodic)[i];
    if (s.dims == 2 && n.string() == "z")
      n.fail(fmt::format("'{}' = z, but {} is a 2D lattice: periodic axes are x and y (z wraps already)", n.path(),
                         s.lattice));
    const std::string axisName = n.choice({"x", "y", "z"});
    const int axis = axisName[0] - 'x';
    if (c.periodic[axis])
      n.fail(fmt::format("'domain.periodic' lists {} twice; give each axis at most once", axisName));
    c.periodic[axis] = true;
  }
}

void readFluid(const CaseNode& root, LbmCase& c) {
  const CaseNode fluid = root.at("fluid");
  fluid.checkKeys({"viscosity", "tau"});
  const auto nu = fluid.find("viscosity");
  const auto tau = fluid.find("tau");
  if (nu && tau) tau->fail("give either fluid.viscosity or fluid.tau, not both (tau = 3 nu + 1/2)");
  if (!nu && !tau) fluid.fail("'fluid' needs viscosity or tau (lattice units; tau = 3 nu + 1/2)");
  const CaseNode& given = nu ? *nu : *tau;
  if (nu) {
    const double v = nu->number();
    if (!(v > 0)) nu->fail(fmt::format("fluid.viscosity = {} must be greater than 0 (lattice units; tau = 3 nu + 1/2)", v));
    c.viscosity = v;
    c.tau = lbm::tauFromViscosity(v);
  } else {
    const double t = tau->number();
    if (!(t > 0.5)) tau->fail(fmt::format("fluid.tau = {} must be greater than 0.5 (tau = 3 nu + 1/2; nu > 0)", t));
    c.tau = t;
    c.viscosity = lbm::viscosityFromTau(t);
  }
  // Not with LES: its eddy viscosity raises tau where the flow shears, which is what keeps it stable as tau -> 1/2
  // (docs/validation.md, the stability map: to Re 10^6).
  if (c.tau < kTauWarning && !c.smagorinsky)
    given.warn(fmt::format("tau = {:.5g} (viscosity {:.3g}) is below {}: the collision is close to its stability "
                           "limit; raise the viscosity, or refine the grid and lower the velocity",
                           c.tau, c.viscosity, kTauWarning));
}

// The warning for a case in SI whose tau is close to 1/2: tau - 1/2 = 3 nu dt / dx^2 grows in proportion to
// units.resolution and units.mach, so it names the resolution, or the Mach number, that lifts tau to kTauTarget.
std::string tauFixForUnits(const LbmCase& c) {
  const lbm::UnitScales& u = c.units.scales();
  const double k = (kTauTarget - 0.5) / (c.tau - 0.5);
  const double mach = u.mach * k;
  const std::string resolution =
      fmt::format("raise units.resolution from {:.4g} to {:.4g}", u.resolution, std::ceil(u.resolution * k));
  // A Mach number past the warning trades the stability problem for a compressibility error: not offered.
  if (mach > kMachWarning)
    return fmt::format("{} (units.mach would have to reach {:.3g}, above {})", resolution, mach, kMachWarning);
  return fmt::format("{}, or units.mach from {:.3g} to {:.3g}", resolution, u.mach, mach);
}

// fluid in a case with units: optional, and only the viscosity, in m^2/s, given once in units or here.
void readFluidWithUnits(const CaseNode& root, LbmCase& c, const Shape& s, const UnitsSection& units) {
  std::optional<CaseNode> nu;
  if (const auto fluid = root.find("fluid")) {
    fluid->checkKeys({"viscosity", "tau"});
    if (const auto tau = fluid->find("tau"))
      tau->fail("fluid.tau is in lattice units, but this case has a units section: tau follows from the viscosity, "
                "units.resolution and units.mach (tau = 3 nu dt / dx^2 + 1/2); give the viscosity in m^2/s as "
                "units.viscosity, units.reynolds or fluid.viscosity");
    nu = fluid->find("viscosity");
  }
  if (nu && units.viscosityAt)
    nu->fail(fmt::format("the viscosity is given twice, as fluid.viscosity and as {}; give one",
                         units.viscosityAt->path()));
  if (!nu && !units.viscosityAt)
    units.node->fail("the case has units but no viscosity: give units.viscosity (m^2/s), units.reynolds (with "
                     "units.velocity and units.length) or fluid.viscosity (m^2/s)");
  const double si = nu ? nu->positive() : *units.viscosity;
  c.viscosity = s.units.toLattice(lbm::Quantity::Viscosity, si);
  c.tau = lbm::tauFromViscosity(c.viscosity);
  if (c.tau < kTauWarning && !c.smagorinsky)  // as in readFluid()
    (nu ? *nu : *units.viscosityAt)
        .warn(fmt::format("tau = {:.5g} (lattice viscosity {:.3g} = nu dt / dx^2) is below {}: the collision is close "
                          "to its stability limit; {}",
                          c.tau, c.viscosity, kTauWarning, tauFixForUnits(c)));
}

lbm::FaceBoundary readBoundary(const CaseNode& entry, int face, const Shape& s) {
  const int axis = face / 2;
  const char* name = lbm::faceName(face);
  lbm::FaceBoundary b;
  const CaseNode typeNode = entry.at("type");
  if (typeNode.string() == "periodic")
    typeNode.fail(fmt::format("periodic is not a boundary type: list {} in domain.periodic and remove boundaries.{}",
                              kAxis[axis], name));
  const std::string type = typeNode.choice({"wall", "moving_wall", "velocity_inlet", "pressure_outlet"});
  if (type == "wall") {
    entry.checkKeys({"type"});
    b.type = BoundaryType::Wall;
  } else if (type == "moving_wall") {
    entry.checkKeys({"type", "velocity"});
    b.type = BoundaryType::MovingWall;
    const CaseNode v = entry.at("velocity");
    b.velocity = readVector(v, s, lbm::Quantity::Velocity);
    if (b.velocity[axis] != 0)
      v[axis].fail(fmt::format("a moving wall slides in its own plane: the {} component of the velocity of face {} "
                               "must be 0, found {}",
                               kAxis[axis], name, v[axis].number()));
  } else if (type == "velocity_inlet") {
    entry.checkKeys({"type", "velocity", "profile"});
    b.type = BoundaryType::VelocityInlet;
    if (const auto p = entry.find("profile"))
      b.profile = p->choice({"uniform", "parabolic"}) == "parabolic" ? lbm::InletProfile::Parabolic
                                                                      : lbm::InletProfile::Uniform;
    const CaseNode v = entry.at("velocity");
    b.velocity = readVector(v, s, lbm::Quantity::Velocity);
    const double inward = (face % 2 == 0 ? 1.0 : -1.0) * b.velocity[axis];
    if (!(inward > 0))
      v.warn(fmt::format("the velocity of inlet {} does not point into the domain ({} component {}); an inlet on {} "
                         "needs a {} {} component",
                         name, kAxis[axis], v[axis].number(), name, face % 2 == 0 ? "positive" : "negative",
                         kAxis[axis]));
  } else {
    entry.checkKeys({"type", "density", "pressure"});
    b.type = BoundaryType::PressureOutlet;
    // A case in SI sets the outlet's pressure in Pa relative to the reference (p = 0: the reference density);
    // lattice-unit cases set its lattice density.
    const bool si = s.units.isPhysical();
    const auto d = entry.find("density");
    const auto p = entry.find("pressure");
    if (si && d)
      d->fail(fmt::format("boundaries.{}.density is in lattice units, but this case has a units section: give "
                          "pressure in Pa relative to the reference (0 = units.density)",
                          name));
    if (!si && p)
      p->fail(fmt::format("boundaries.{}.pressure is in Pa and needs a units section (README, \"Physical units\"); "
                          "without one give density (lattice units)",
                          name));
    if (d) b.density = d->positive();
    if (p) {
      b.density = s.units.densityFromPressure(p->number());
      if (!(b.density > 0))
        p->fail(fmt::format("boundaries.{}.pressure = {} Pa is below -{:.6g} Pa, where the lattice density would be "
                            "0 or less (p = c_s^2 (rho - rho_ref))",
                            name, p->number(), -s.units.pressureFromDensity(0.0)));
    }
  }
  return b;
}

void readBoundaries(const CaseNode& root, LbmCase& c, const Shape& s) {
  const auto boundaries = root.find("boundaries");
  std::array<bool, 6> given{};
  if (boundaries) {
    boundaries->checkKeys({"x-", "x+", "y-", "y+", "z-", "z+"});
    for (const std::string& key : boundaries->keys()) {
      const CaseNode entry = boundaries->at(key);
      const int face = 2 * (key[0] - 'x') + (key[1] == '+' ? 1 : 0);
      const int axis = face / 2;
      if (axis >= s.dims)
        entry.fail(fmt::format("face {} exists only in 3D cases; {} is 2D, with faces {}", key, s.lattice,
                               facesList(s.dims)));
      if (c.periodic[axis])
        entry.fail(fmt::format("boundaries.{} is given but {} is periodic (domain.periodic); remove the entry or take "
                               "{} out of domain.periodic",
                               key, kAxis[axis], kAxis[axis]));
      c.faces[face] = readBoundary(entry, face, s);
      given[face] = true;
    }
  }
  for (int face = 0; face < 2 * s.dims; ++face) {
    const int axis = face / 2;
    if (c.periodic[axis] || given[face]) continue;
    (boundaries ? *boundaries : root)
        .fail(fmt::format("face {} is not periodic and has no boundary: add boundaries.{} (type wall, moving_wall, "
                          "velocity_inlet or pressure_outlet) or list {} in domain.periodic",
                          lbm::faceName(face), lbm::faceName(face), kAxis[axis]));
  }
}

bool validName(const std::string& n) {
  return !n.empty() && std::all_of(n.begin(), n.end(), [](unsigned char ch) {
    return std::isalnum(ch) || ch == '_' || ch == '-' || ch == '.';
  });
}

std::string cellsText(const Shape& s) {
  return s.dims == 2 ? fmt::format("{} x {}", s.cells[0], s.cells[1])
                     : fmt::format("{} x {} x {}", s.cells[0], s.cells[1], s.cells[2]);
}

// Whether one obstacle contains the centre of every cell (the solver's inside test): then nothing is left to flow.
// Each shape is convex, so it contains every centre exactly when it contains the corners of the box of centres.
bool coversEveryCell(const lbm::Obstacle& o, const Shape& s) {
  if (o.shape == lbm::ShapeKind::Mesh) return false;  // not convex: the solver counts the fluid cells it leaves
  for (int corner = 0; corner < (1 << s.dims); ++corner) {
    Vec3 p{0.5, 0.5, 0.5};
    for (int a = 0; a < s.dims; ++a) p[a] = (corner >> a) & 1 ? static_cast<double>(s.cells[a]) - 0.5 : 0.5;
    double r2 = 0;
    for (int a = 0; a < s.dims; ++a) {
      if (o.shape == lbm::ShapeKind::Box) {
        if (p[a] < o.min[a] || p[a] > o.max[a]) return false;
      } else if (!(o.shape == lbm::ShapeKind::Cylinder && a == o.axis)) {
        r2 += (p[a] - o.center[a]) * (p[a] - o.center[a]);
      }
    }
    if (o.shape != lbm::ShapeKind::Box && r2 > o.radius * o.radius) return false;
  }
  return true;
}

// shape: stl. The file (relative to the case file) is read, checked to be a closed surface, placed by scale, rotate
// (degrees about x, then y, then z) and translate, in the case's units, and indexed for the wall distances.
template <class CheckInside>
void readMesh(const CaseNode& node, lbm::Obstacle& o, const Shape& s, const CheckInside& checkInside) {
  const CaseNode fileNode = node.at("file");
  o.file = fileNode.string();
  if (o.file.empty()) fileNode.fail("obstacle file is empty; give the path of an STL file");
  const std::filesystem::path path = std::filesystem::path(o.file).is_absolute() ? std::filesystem::path(o.file)
                                                                                 : s.caseDir / o.file;
  geometry::TriangleMesh mesh;
  try {
    mesh = readStl(path.string());
  } catch (const StlError& e) {
    fileNode.fail(e.what());
  }
  if (const std::string open = geometry::checkClosed(mesh); !open.empty())
    fileNode.fail(fmt::format("{}: {}; an obstacle must be a closed surface (every edge shared by two triangles of "
                              "opposite orientation)",
                              path.string(), open));
  double scale = 1;
  Vec3 rotate{}, translate{};
  if (const auto n = node.find("scale")) scale = n->positive();
  if (const auto n = node.find("rotate")) rotate = readVector(*n, s);
  if (const auto n = node.find("translate")) translate = readVector(*n, s);
  // Placed in the case's units, then into cells (the identity for a case in lattice units).
  const double cell = s.units.toLattice(lbm::Quantity::Length, 1.0);
  mesh = geometry::transform(geometry::transform(mesh, scale, rotate, translate), cell, {0, 0, 0}, {0, 0, 0});
  const geometry::Box3 box = geometry::boundingBox(mesh);
  for (int a = 0; a < 3; ++a) checkInside(a, box.min[a], box.max[a], fileNode);
  o.mesh = std::make_shared<const geometry::MeshIndex>(std::move(mesh));
}

lbm::Obstacle readObstacle(const CaseNode& node, std::size_t index, const Shape& s) {
  lbm::Obstacle o;
  const CaseNode shapeNode = node.at("shape");
  const std::string shape = shapeNode.choice({"circle", "sphere", "cylinder", "box", "stl"});
  if (shape == "stl" && s.dims == 2)
    shapeNode.fail(fmt::format("shape 'stl' is a 3D surface and {} is a 2D lattice; use 'circle' or 'box'", s.lattice));
  if (shape == "circle" && s.dims == 3)
    shapeNode.fail(fmt::format("shape 'circle' is 2D and {} is a 3D lattice; use 'cylinder' (with axis) or 'sphere'",
                               s.lattice));
  if ((shape == "sphere" || shape == "cylinder") && s.dims == 2)
    shapeNode.fail(fmt::format("shape '{}' is 3D and {} is a 2D lattice; use 'circle' or 'box'", shape, s.lattice));

  if (shape == "box")
    node.checkKeys({"name", "shape", "min", "max", "boundary"});
  else if (shape == "stl")
    node.checkKeys({"name", "shape", "file", "scale", "rotate", "translate", "boundary"});
  else if (shape == "cylinder")
    node.checkKeys({"name", "shape", "center", "radius", "axis", "boundary"});
  else
    node.checkKeys({"name", "shape", "center", "radius", "boundary"});
  if (const auto b = node.find("boundary")) {
    const std::string kind = b->choice({"staircase", "interpolated", "quadratic"});
    o.boundary = kind == "interpolated" ? lbm::ObstacleBoundary::Interpolated
                 : kind == "quadratic"  ? lbm::ObstacleBoundary::Quadratic
                                        : lbm::ObstacleBoundary::Staircase;
  }

  o.name = fmt::format("obstacle{}", index);
  if (const auto n = node.find("name")) {
    o.name = n->string();
    if (!validName(o.name))
      n->fail(fmt::format("obstacle name '{}' may use only letters, digits, '_', '-' and '.' (it labels rows of "
                          "forces.csv)",
                          o.name));
  }

  // Each axis's extent against [0, n]; a cylinder is unbounded along its own axis. Quoted in the case's units.
  auto checkInside = [&](int axis, double lo, double hi, const CaseNode& at) {
    if (lo >= 0 && hi <= static_cast<double>(s.cells[axis])) return;
    const auto length = [&](double v) { return s.units.toPhysical(lbm::Quantity::Length, v); };
    at.fail(fmt::format("obstacle '{}' spans {} = {:.6g} .. {:.6g}{}, outside the domain {} = 0 .. {:.6g}; an obstacle "
                        "must lie inside the domain",
                        o.name, kAxis[axis], length(lo), length(hi), unitSuffix(s, lbm::Quantity::Length), kAxis[axis],
                        length(static_cast<double>(s.cells[axis]))));
  };

  if (shape == "stl") {
    o.shape = lbm::ShapeKind::Mesh;
    readMesh(node, o, s, checkInside);
    return o;
  }

  if (shape == "box") {
    o.shape = lbm::ShapeKind::Box;
    const CaseNode minNode = node.at("min");
    const CaseNode maxNode = node.at("max");
    o.min = readVector(minNode, s, lbm::Quantity::Length);
    o.max = readVector(maxNode, s, lbm::Quantity::Length);
    for (int a = 0; a < s.dims; ++a) {
      if (!(o.min[a] < o.max[a]))
        maxNode[a].fail(fmt::format("box '{}': max {} = {} must be greater than min {} = {}", o.name, kAxis[a],
                                    maxNode[a].number(), kAxis[a], minNode[a].number()));
      checkInside(a, o.min[a], o.max[a], o.min[a] < 0 ? minNode[a] : maxNode[a]);
    }
    if (s.dims == 2) o.max[2] = 1;  // the 2D slab is [0, 1) in z
    return o;
  }

  o.shape = shape == "circle" ? lbm::ShapeKind::Circle : shape == "sphere" ? lbm::ShapeKind::Sphere
                                                                            : lbm::ShapeKind::Cylinder;
  const CaseNode centerNode = node.at("center");
  o.center = readVector(centerNode, s, lbm::Quantity::Length);
  o.radius = s.units.toLattice(lbm::Quantity::Length, node.at("radius").positive());
  if (shape == "cylinder") {
    o.axis = 2;
    if (const auto a = node.find("axis")) o.axis = a->choice({"x", "y", "z"})[0] - 'x';
  }
  for (int a = 0; a < s.dims; ++a) {
    if (shape == "cylinder" && a == o.axis) continue;
    checkInside(a, o.center[a] - o.radius, o.center[a] + o.radius, centerNode[a]);
  }
  return o;
}

void readObstacles(const CaseNode& root, LbmCase& c, const Shape& s) {
  const auto list = root.find("obstacles");
  if (!list) return;
  const std::size_t count = list->size();
  if (count > kMaxObstacles)
    list->fail(fmt::format("'obstacles' has {} entries; at most {} are allowed (each obstacle gets an id in the "
                           "one-byte cell flag)",
                           count, kMaxObstacles));
  std::map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < count; ++i) {
    const CaseNode node = (*list)[i];
    c.obstacles.push_back(readObstacle(node, i, s));
    if (coversEveryCell(c.obstacles.back(), s))
      node.fail(fmt::format("obstacle '{}' covers every cell of the domain {}: no fluid is left to simulate; make it "
                            "smaller",
                            c.obstacles.back().name, cellsText(s)));
    const auto [it, fresh] = seen.emplace(c.obstacles.back().name, i);
    if (fresh) continue;
    // Default names are unique, so at least one of the two was written out: point at that one.
    const auto named = node.find("name") ? node.find("name") : (*list)[it->second].find("name");
    named->fail(fmt::format("obstacle name '{}' is used by obstacles[{}] and obstacles[{}]; names must be unique "
                            "(they label rows of forces.csv)",
                            it->first, it->second, i));
  }
}

void readInitial(const CaseNode& root, LbmCase& c, const Shape& s) {
  const auto init = root.find("initial");
  if (!init) return;
  init->checkKeys({"density", "velocity", "taylor_green"});
  if (const auto tg = init->find("taylor_green")) {
    for (const char* key : {"density", "velocity"})
      if (const auto other = init->find(key))
        other->fail(fmt::format("initial.{} cannot be combined with initial.taylor_green, which sets the whole "
                                "initial field",
                                key));
    tg->checkKeys({"u0", "form"});
    c.initial.taylorGreenU0 = s.units.toLattice(lbm::Quantity::Velocity, tg->at("u0").positive());
    for (int a = 0; a < s.dims; ++a)
      if (!c.periodic[a])
        tg->fail(fmt::format("the Taylor-Green vortex needs every axis periodic (domain.periodic: [{}]); {} is not",
                             axesList(s.dims), kAxis[a]));
    const auto form = tg->find("form");
    const bool threeD = form ? form->choice({"2d", "3d"}) == "3d" : s.dims == 3;
    c.initial.taylorGreenForm = threeD ? lbm::TaylorGreenForm::ThreeD : lbm::TaylorGreenForm::TwoD;
    if (threeD && s.dims == 2)
      form->fail(fmt::format("the 3-D Taylor-Green vortex needs a 3-D lattice; {} is 2-D (give form: 2d, or a "
                             "lattice D3Q19 or D3Q27)",
                             s.lattice));
    // Its pressure balances the vortex only where the three wave numbers are equal.
    if (threeD && (s.cells[0] != s.cells[1] || s.cells[0] != s.cells[2]))
      (form ? *form : *tg)
          .fail(fmt::format("the 3-D Taylor-Green vortex needs a cubic box (domain.cells equal); it is {} (make the "
                            "three equal, or give form: 2d for the 2-D vortex extruded along z)",
                            cellsText(s)));
    return;
  }
  if (const auto d = init->find("density")) c.initial.density = s.units.toLattice(lbm::Quantity::Density, d->positive());
  if (const auto v = init->find("velocity")) c.initial.velocity = readVector(*v, s, lbm::Quantity::Velocity);
}

// A duration in seconds as a whole number of time steps (the nearest), for a case with units; `alternative` is the
// key that gives it in steps, for the messages.
long long stepsFromTime(const CaseNode& n, const Shape& s, const std::string& alternative) {
  if (!s.units.isPhysical())
    n.fail(fmt::format("'{}' is in seconds and needs a units section (README, \"Physical units\"); without one give "
                       "{} in steps",
                       n.path(), alternative));
  const double t = n.positive();
  const double steps = std::round(t / s.units.dt());
  if (steps < 1)
    n.fail(fmt::format("'{}' = {} s is less than half a time step (dt = {:.6g} s); give at least dt, or {} in steps",
                       n.path(), t, s.units.dt(), alternative));
  if (steps > static_cast<double>(INT_MAX))
    n.fail(fmt::format("'{}' = {} s is {:.4g} time steps of {:.6g} s; at most {} steps", n.path(), t, steps,
                       s.units.dt(), INT_MAX));
  return static_cast<long long>(steps);
}

// Of two keys that say the same thing in steps and in seconds, the one to read: the one given, or where the file
// gives one and a --set the other, the --set (`--set run.steps=20` shortens a run the file gives in seconds).
// Nullopt when neither is given; an error when both come from the file, or both from --set.
std::optional<CaseNode> stepsOrTime(const CaseNode& parent, std::string_view stepsKey, std::string_view timeKey) {
  const auto steps = parent.find(stepsKey);
  const auto time = parent.find(timeKey);
  if (!steps || !time) return steps ? steps : time;
  const bool stepsSet = !steps->location().override.empty(), timeSet = !time->location().override.empty();
  if (stepsSet == timeSet)
    time->fail(fmt::format("give {} (steps) or {} (seconds), not both", steps->path(), time->path()));
  return stepsSet ? steps : time;
}

// An interval in steps: `every` or, in a case with units, `every_time` in seconds (rounded to the nearest whole
// step); nullopt when the map has neither.
std::optional<int> readEvery(const CaseNode& parent, const Shape& s, long long min, const std::string& meaning) {
  const auto given = stepsOrTime(parent, "every", "every_time");
  if (!given) return std::nullopt;
  if (given->path().ends_with("every_time"))
    return static_cast<int>(stepsFromTime(*given, s, parent.path() + ".every"));
  return boundedInt(*given, min, meaning);
}

void readRun(const CaseNode& root, LbmCase& c, const Shape& s) {
  const CaseNode run = root.at("run");
  run.checkKeys({"steps", "time"});
  if (const auto given = stepsOrTime(run, "steps", "time"); given && given->path() == "run.time") {
    c.steps = stepsFromTime(*given, s, "run.steps");
    return;
  }
  const CaseNode steps = run.at("steps");
  c.steps = steps.integer();
  if (c.steps < 1) steps.fail(fmt::format("run.steps = {} must be at least 1", c.steps));
}

// "out/<case file stem>", or "out/case" when the document has no usable file name (e.g. read from a string).
std::string defaultOutputDir(const std::string& fileName) {
  const std::string stem = std::filesystem::path(fileName).stem().string();
  return "out/" + (validName(stem) ? stem : std::string("case"));
}

void readForces(const CaseNode& forces, LbmCase& c, const Shape& s) {
  if (c.obstacles.empty())
    forces.fail("output.forces needs at least one obstacle: forces are measured on the entries of 'obstacles'");
  forces.checkKeys({"every", "every_time", "reference"});
  auto& f = c.output.forces;
  const auto every = readEvery(forces, s, 1, " (omit output.forces for no forces.csv)");
  if (!every) forces.at("every");  // the missing-key error
  f.every = *every;
  const CaseNode ref = forces.at("reference");
  // Drag and lift coefficients divide by a length in 2D and an area in 3D; the wrong one is a units mistake.
  const char* sizeKey = s.dims == 2 ? "length" : "area";
  const char* otherKey = s.dims == 2 ? "area" : "length";
  if (const auto wrong = ref.find(otherKey))
    wrong->fail(fmt::format("{} cases give reference.{} (cd = 2 F / (rho U^2 {})), not reference.{}",
                            s.dims == 2 ? "2D" : "3D", sizeKey, s.dims == 2 ? "L" : "A", otherKey));
  ref.checkKeys({"velocity", sizeKey, "density"});
  // In a case with units these are m/s, m (m^2) and kg/m^3: the coefficients come out the same either way.
  const lbm::UnitSystem& u = s.units;
  f.refVelocity = u.toLattice(lbm::Quantity::Velocity, ref.at("velocity").positive());
  f.refLength = u.toLattice(s.dims == 2 ? lbm::Quantity::Length : lbm::Quantity::Area, ref.at(sizeKey).positive());
  if (const auto d = ref.find("density")) f.refDensity = u.toLattice(lbm::Quantity::Density, d->positive());
}

// output.compression: none (the default: contiguous datasets, written in one block), gzip (level 4, as h5py's), or a
// gzip level 0-9 (0 = none). Compressed datasets are chunked; readers such as ParaView decompress them unaided.
int readCompression(const CaseNode& n) {
  const std::string v = n.isScalar() ? n.string() : std::string();
  if (v == "none" || v == "off") return 0;
  if (v == "gzip") return 4;
  const bool digits = !v.empty() && std::all_of(v.begin(), v.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
  if (digits && v.size() <= 2 && std::stoi(v) <= 9) return std::stoi(v);
  n.fail(fmt::format("'output.compression' = {} is not a compression of the HDF5 fields; use none, gzip (level 4) "
                     "or a gzip level from 0 (none) to 9 (smallest, slowest)",
                     n.isScalar() ? v : std::string("a ") + (n.isMap() ? "map" : "list")));
}

void readOutput(const CaseNode& root, LbmCase& c, const Shape& s, const std::string& fileName) {
  c.output.dir = defaultOutputDir(fileName);
  const auto out = root.find("output");
  if (!out) return;
  out->checkKeys({"dir", "every", "every_time", "fields", "formats", "hdf5", "compression", "observables", "forces",
                  "checkpoint"});
  if (const auto dir = out->find("dir")) {
    c.output.dir = dir->string();
    if (c.output.dir.empty()) dir->fail("output.dir is empty; give a directory path");
  }
  if (const auto every = readEvery(*out, s, 0, " (0 writes only the final state)")) c.output.every = *every;
  if (const auto fields = out->find("fields")) {
    const bool si = s.units.isPhysical();
    if (fields->size() == 0)
      fields->fail(fmt::format("output.fields is empty; list at least one of density, velocity, {}flags",
                               si ? "pressure, " : ""));
    c.output.fields.clear();
    for (std::size_t i = 0; i < fields->size(); ++i) {
      const CaseNode n = (*fields)[i];
      // Pressure in Pa is a case with units' own: in lattice units it is c_s^2 (density - 1), the density field.
      if (!si && n.isScalar() && n.string() == "pressure")
        n.fail(fmt::format("'{}' = pressure is written by cases with a units section (in Pa); in lattice units it is "
                           "c_s^2 (density - 1): write density. allowed: density, velocity, flags",
                           n.path()));
      const std::string v = si ? n.choice({"density", "velocity", "pressure", "flags"})
                               : n.choice({"density", "velocity", "flags"});
      const auto field = v == "density"    ? lbm::FieldName::Density
                         : v == "velocity" ? lbm::FieldName::Velocity
                         : v == "pressure" ? lbm::FieldName::Pressure
                                           : lbm::FieldName::Flags;
      if (std::find(c.output.fields.begin(), c.output.fields.end(), field) != c.output.fields.end())
        n.fail(fmt::format("'output.fields' lists {} twice", v));
      c.output.fields.push_back(field);
    }
  }
  if (const auto formats = out->find("formats")) {
    c.output.formats.clear();
    for (std::size_t i = 0; i < formats->size(); ++i) {
      const CaseNode n = (*formats)[i];
      const std::string v = n.choice({"hdf5", "vtk"});
      if (v == "vtk" && !vtkAvailable()) n.fail(kVtkUnavailable);
      const auto format = v == "vtk" ? lbm::OutputFormat::Vtk : lbm::OutputFormat::Hdf5;
      if (std::find(c.output.formats.begin(), c.output.formats.end(), format) != c.output.formats.end())
        n.fail(fmt::format("'output.formats' lists {} twice", v));
      c.output.formats.push_back(format);
    }
  }
  if (const auto layout = out->find("hdf5")) {
    const std::string v = layout->choice({"auto", "collective", "per-rank"});
    if (v == "collective" && !HOPSIM_HDF5_PARALLEL)
      layout->fail("output.hdf5 = collective needs a build with parallel HDF5 (MPI on, VTK off, a parallel HDF5 "
                   "such as libhdf5-openmpi-dev installed); this build writes one file per rank (auto or per-rank)");
    c.output.hdf5 = v == "collective" ? lbm::Hdf5Layout::Collective
                    : v == "per-rank" ? lbm::Hdf5Layout::PerRank
                                      : lbm::Hdf5Layout::Auto;
  }
  if (const auto compression = out->find("compression")) c.output.compression = readCompression(*compression);
  if (const auto obs = out->find("observables")) {
    obs->checkKeys({"every", "every_time", "enstrophy"});
    const auto every = readEvery(*obs, s, 0, " (0 writes only the first and last step)");
    if (!every) obs->at("every");  // the missing-key error
    c.output.observablesEvery = *every;
    if (const auto enstrophy = obs->find("enstrophy")) c.output.enstrophy = enstrophy->boolean();
  }
  if (const auto forces = out->find("forces")) readForces(*forces, c, s);
  if (const auto checkpoint = out->find("checkpoint")) c.output.checkpoint = parseCheckpointSpec(*checkpoint);
}

}  // namespace

double latticeMach(const LbmCase& c) {
  double speed = 0;
  for (int face = 0; face < 2 * c.dimensions; ++face) {
    const auto type = c.faces[face].type;
    if (type == BoundaryType::MovingWall || type == BoundaryType::VelocityInlet)
      speed = std::max(speed, norm(c.faces[face].velocity));
  }
  if (c.initial.taylorGreenU0)
    speed = std::max(speed, std::abs(*c.initial.taylorGreenU0));
  else
    speed = std::max(speed, norm(c.initial.velocity));
  return speed * std::sqrt(3.0);
}

void checkLatticeMach(const CaseNode& root, const LbmCase& c) {
  // Find which input sets the largest speed, to point the message at it.
  double speed = 0;
  std::optional<CaseNode> where;
  auto consider = [&](double v, std::optional<CaseNode> node) {
    if (v > speed) {
      speed = v;
      where = node ? node : std::optional<CaseNode>(root);
    }
  };
  for (int face = 0; face < 2 * c.dimensions; ++face) {
    const auto type = c.faces[face].type;
    if (type == BoundaryType::MovingWall || type == BoundaryType::VelocityInlet)
      consider(norm(c.faces[face].velocity), findPath(root, {"boundaries", lbm::faceName(face), "velocity"}));
  }
  if (c.initial.taylorGreenU0)
    consider(std::abs(*c.initial.taylorGreenU0), findPath(root, {"initial", "taylor_green", "u0"}));
  else
    consider(norm(c.initial.velocity), findPath(root, {"initial", "velocity"}));
  const double mach = speed * std::sqrt(3.0);
  if (c.units.isPhysical() && c.units.scales().mach > kMachWarning && (!where || mach <= kMachWarning)) {
    // No imposed speed is that fast (a flow driven by a body force), but U, the flow's own scale, is.
    const auto at = findPath(root, {"units", "mach"}) ? findPath(root, {"units", "mach"})
                                                      : findPath(root, {"units", "lattice_velocity"});
    (at ? *at : root)
        .warn(fmt::format("units.mach = {:.3g} (the lattice Mach number of units.velocity) is above {}: the "
                          "compressibility error grows as Ma^2 (about {:.2g}% at U); lower it to {} or less and raise "
                          "units.resolution in proportion to keep tau",
                          c.units.scales().mach, kMachWarning,
                          100 * lbm::UnitSystem::compressibilityError(c.units.scales().mach), kMachWarning));
  }
  if (!where || mach <= kMachWarning) return;
  if (c.units.isPhysical()) {
    // The case's speeds are in m/s: the lattice Mach number follows from units.mach, and lowering it is the fix
    // (tau - 1/2 falls with it; a finer grid brings it back).
    const lbm::UnitScales& u = c.units.scales();
    const double limit = mach > kMachError ? kMachError : kMachWarning;
    const double lower = std::floor(u.mach * kMachWarning / mach * 1000) / 1000;
    const double tau = 0.5 + (c.tau - 0.5) * lower / u.mach;
    const std::string fix =
        tau < kTauWarning
            ? fmt::format("lower units.mach from {:.3g} to {:.3g} and raise units.resolution from {:.4g} to {:.4g} to "
                          "keep tau above {}",
                          u.mach, lower, u.resolution, std::ceil(u.resolution * (kTauTarget - 0.5) / (tau - 0.5)),
                          kTauWarning)
            : fmt::format("lower units.mach from {:.3g} to {:.3g} (tau then {:.4g}, the time step {:.3g} times as long)",
                          u.mach, lower, tau, lower / u.mach);
    const std::string what = fmt::format(
        "lattice Mach number {:.3g} (|u| = {:.4g} m/s here, {:.3g} times units.velocity, whose Mach number is "
        "units.mach = {:.3g}) is above {}",
        mach, c.units.toPhysical(lbm::Quantity::Velocity, speed), mach / u.mach, u.mach, limit);
    if (mach > kMachError)
      where->fail(fmt::format("{}, where lattice Boltzmann is neither accurate nor stable; {}", what, fix));
    where->warn(fmt::format("{}: the compressibility error grows as Ma^2 (about {:.2g}% here); {}", what,
                            100 * lbm::UnitSystem::compressibilityError(mach), fix));
    return;
  }
  if (mach > kMachError)
    where->fail(fmt::format("lattice Mach number {:.3g} (|u| = {:.4g} here; Ma = |u| sqrt(3)) is above {}, where "
                            "lattice Boltzmann is neither accurate nor stable; keep |u| below {:.3g} (Ma 0.1) and "
                            "lower the viscosity with it to keep the Reynolds number",
                            mach, speed, kMachError, kMachWarning / std::sqrt(3.0)));
  where->warn(fmt::format("lattice Mach number {:.3g} (|u| = {:.4g} here; Ma = |u| sqrt(3)) is above {}: "
                          "compressibility errors grow as Ma^2; keep |u| below {:.3g} and lower the viscosity with it "
                          "to keep the Reynolds number",
                          mach, speed, kMachWarning, kMachWarning / std::sqrt(3.0)));
}

LbmCase parseLbmCase(const CaseDocument& doc) {
  const CaseNode root = doc.root();
  readSolver(root);  // first: an md case handed to this parser should hear that, not about its unknown keys
  root.checkKeys({"solver", "lattice", "precision", "collision", "units", "domain", "fluid", "body_force",
                  "boundaries", "obstacles", "initial", "run", "output", "device"});
  LbmCase c;
  Shape s;
  c.sourceFile = doc.fileName();
  s.caseDir = std::filesystem::path(doc.fileName()).parent_path();
  readLattice(root, c, s);
  c.device = parseDeviceSpec(root);  // before precision: half precision depends on the backend
  if (s.dims == 2 && c.device.ranks[2] > 1)
    findPath(root, {"device", "ranks"})->fail(fmt::format("device.ranks splits z into {} parts, but {} is a 2D "
                                                          "lattice, one cell thick: give [px, py]",
                                                          c.device.ranks[2], s.lattice));
  readPrecision(root, c);
  readCollision(root, c);
  const UnitsSection units = readUnits(root, c, s);  // before every dimensional value
  readDomain(root, c, s);
  if (c.units.isPhysical())
    readFluidWithUnits(root, c, s, units);
  else
    readFluid(root, c);
  // An acceleration (m/s^2) in a case with units: the force density per unit of density.
  if (const auto g = root.find("body_force")) c.bodyForce = readVector(*g, s, lbm::Quantity::Acceleration);
  readBoundaries(root, c, s);
  readObstacles(root, c, s);
  readInitial(root, c, s);
  readRun(root, c, s);
  readOutput(root, c, s, doc.fileName());
  checkLatticeMach(root, c);
  return c;
}

}  // namespace hopsim::io
