// MD case schema (DESIGN.md, "Case files: MD"): keys, types, ranges, the data files named, and the box-versus-cutoff
// check. The particles themselves are built by the solver (solvers/md/InitialState.h).
#include "io/md/MdCaseParser.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include "io/Checkpoint.h"
#include "io/DeviceSpecParser.h"
#include "io/md/H5mdReader.h"
#include "io/md/LammpsDataReader.h"

namespace hopsim::io::md {

using namespace hopsim::md;

namespace {

// Data files are named relative to the case file, so a case and its data travel together.
std::string resolveNextToCase(const CaseDocument& doc, const std::string& file) {
  std::filesystem::path p(file);
  if (p.is_absolute()) return file;
  const auto dir = std::filesystem::path(doc.fileName()).parent_path();
  const auto candidate = dir / p;
  if (std::filesystem::exists(candidate) || !std::filesystem::exists(p)) return candidate.string();
  return p.string();
}

std::uint64_t seedOf(const CaseNode& n) { return static_cast<std::uint64_t>(n.integer(0, (1LL << 62))); }

void parseSystem(const CaseDocument& doc, const CaseNode& root, MdCase& c) {
  const CaseNode sys = root.at("system");
  sys.checkKeys({"lattice", "read"});
  const auto lattice = sys.find("lattice");
  const auto read = sys.find("read");
  if (lattice.has_value() == read.has_value())
    sys.fail("'system' needs exactly one of 'lattice' (build an fcc crystal) or 'read' (a data file)");
  std::optional<double> caseMass;
  if (const auto m = root.find("mass")) caseMass = m->positive();
  if (lattice) {
    lattice->checkKeys({"type", "density", "cells"});
    lattice->at("type").choice({"fcc"});
    const double density = lattice->at("density").positive();
    const auto cellsNode = lattice->at("cells");
    const auto cells = cellsNode.integers(3, 3);
    for (int d = 0; d < 3; ++d)
      if (cells[d] < 1) cellsNode[d].fail("the number of unit cells must be at least 1 along each axis");
    // Four atoms per unit cell; the product is built step by step against the limit, since three axes of 2^21
    // cells already overflow a 64-bit product.
    constexpr long long kMaxUnitCells = (1LL << 31) / 4;
    long long unitCells = 1;
    for (int d = 0; d < 3; ++d) {
      if (unitCells > kMaxUnitCells / cells[d])
        cellsNode.fail(fmt::format("{} x {} x {} unit cells make more than 2^31 atoms (4 per cell); at most 2^31 "
                                   "atoms are supported",
                                   cells[0], cells[1], cells[2]));
      unitCells *= cells[d];
    }
    c.system.kind = MdSystem::Kind::FccLattice;
    c.system.lattice = {density, {cells[0], cells[1], cells[2]}, caseMass.value_or(1.0)};
    c.system.source = fmt::format("fcc lattice, density {}, {}x{}x{} cells", density, cells[0], cells[1], cells[2]);
    return;
  }
  read->checkKeys({"lammps_data", "h5md", "frame"});
  const auto lmp = read->find("lammps_data");
  const auto h5 = read->find("h5md");
  if (lmp.has_value() == h5.has_value()) read->fail("'system.read' needs exactly one of 'lammps_data' or 'h5md'");
  if (lmp) {
    if (read->find("frame")) read->at("frame").fail("'frame' applies to 'h5md' only");
    const std::string file = resolveNextToCase(doc, lmp->string());
    LammpsData data;
    try {
      data = readLammpsData(file);
    } catch (const CaseError& e) {
      // Keep the data file's own location, and say which key named it.
      lmp->fail(fmt::format("in the LAMMPS data file: {}", e.what()));
    }
    ParticleState& p = c.system.particles;
    c.system.kind = MdSystem::Kind::Particles;
    p = std::move(data.state);
    if (caseMass && data.hasMasses && *caseMass != p.mass)
      root.at("mass").fail(fmt::format("mass {} differs from the mass {} in the data file's Masses section; remove one",
                                       *caseMass, p.mass));
    if (caseMass) p.mass = *caseMass;
    c.system.source = fmt::format("LAMMPS data file {}{}", file, data.hasVelocities ? " (with velocities)" : "");
    c.velocity.create = false;
    return;
  }
  const std::string file = resolveNextToCase(doc, h5->string());
  long long frame = -1;
  if (const auto f = read->find("frame")) frame = f->integer();
  H5mdFrame fr;
  try {
    fr = readH5mdFrame(file, frame);
  } catch (const std::runtime_error& e) {
    h5->fail(fmt::format("cannot restart from this H5MD file: {}", e.what()));
  }
  ParticleState& p = c.system.particles;
  c.system.kind = MdSystem::Kind::Particles;
  p = std::move(fr.state);
  p.mass = caseMass.value_or(1.0);
  for (std::size_t i = 0; i < p.size(); ++i) {
    double* r[3] = {&p.x[i], &p.y[i], &p.z[i]};
    for (int d = 0; d < 3; ++d) {
      *r[d] -= p.box.length[d] * std::floor(*r[d] / p.box.length[d]);
      if (*r[d] >= p.box.length[d]) *r[d] = 0;
    }
  }
  c.system.source = fmt::format("H5MD file {}, frame {} of {} (step {})", file, fr.frame, fr.frames, p.step);
}

void parseIntegrator(const CaseNode& root, MdCase& c) {
  auto& in = c.integrator;
  const auto node = root.at("integrator");
  const std::string type = node.at("type").choice({"nve", "langevin", "nose_hoover"});
  if (type == "nve") {
    node.checkKeys({"type", "dt"});
    in.type = IntegratorType::Nve;
  } else if (type == "langevin") {
    node.checkKeys({"type", "dt", "temperature", "damping", "seed"});
    in.type = IntegratorType::Langevin;
    in.temperature = node.at("temperature").positive();
    in.damping = node.at("damping").positive();
    in.seed = seedOf(node.at("seed"));
  } else {
    node.checkKeys({"type", "dt", "temperature", "tau"});
    in.type = IntegratorType::NoseHoover;
    in.temperature = node.at("temperature").positive();
    in.tau = node.at("tau").positive();
  }
  const auto dtIn = node.find("dt");
  const auto dtTop = root.find("dt");
  if (dtIn && dtTop) dtTop->fail("'dt' is given both here and in 'integrator'; keep one");
  if (dtIn) in.dt = dtIn->positive();
  else if (dtTop) in.dt = dtTop->positive();
  else node.fail("missing required key 'dt' in 'integrator' (the time step, e.g. 0.005)");
  if (in.type == IntegratorType::NoseHoover && in.tau < in.dt)
    node.at("tau").fail(fmt::format("tau = {} is shorter than the time step {}; use at least ~100 dt", in.tau, in.dt));
}

}  // namespace

MdCase parseMdCase(const CaseDocument& doc) {
  const CaseNode root = doc.root();
  root.checkKeys({"solver", "precision", "system", "mass", "potential", "neighbor", "velocity", "integrator", "dt",
                  "run", "thermo", "output", "device"});
  root.at("solver").choice({"md"});
  MdCase c;
  if (const auto p = root.find("precision")) {
    const std::string v = p->choice({"single", "mixed", "double"});
    c.precision = v == "single" ? Precision::Single : v == "double" ? Precision::Double : Precision::Mixed;
  }

  const auto pot = root.at("potential");
  pot.checkKeys({"type", "epsilon", "sigma", "cutoff", "shift", "tail_correction"});
  pot.at("type").choice({"lj"});
  if (const auto n = pot.find("epsilon")) c.lj.epsilon = n->positive();
  if (const auto n = pot.find("sigma")) c.lj.sigma = n->positive();
  const auto cutNode = pot.at("cutoff");
  c.lj.cutoff = cutNode.positive();
  if (c.lj.cutoff < 0.5 * c.lj.sigma)
    cutNode.fail(fmt::format("cutoff {} is shorter than half of sigma ({}): no attraction is left", c.lj.cutoff, c.lj.sigma));
  if (const auto n = pot.find("shift")) c.lj.shift = n->boolean();
  if (const auto n = pot.find("tail_correction")) c.lj.tailCorrection = n->boolean();

  std::optional<CaseNode> skinNode;
  if (const auto nb = root.find("neighbor")) {
    nb->checkKeys({"skin"});
    if ((skinNode = nb->find("skin"))) c.skin = skinNode->number(0.0, 1e3);
  }

  parseIntegrator(root, c);
  parseSystem(doc, root, c);

  // Cell lists and minimum images assume each pair is seen through one image only.
  const double range = interactionRange(c.lj, c.skin);
  const Box box = c.system.box();
  for (int d = 0; d < 3; ++d)
    if (box.length[d] < 2.0 * range)
      root.at("system").fail(fmt::format(
          "the box is {:.6g} long along {}, shorter than twice the cutoff plus skin (2 x ({} + {}) = {:.6g}); "
          "use a larger system or a shorter cutoff",
          box.length[d], "xyz"[d], c.lj.cutoff, c.skin, 2.0 * range));

  if (const auto v = root.find("velocity")) {
    v->checkKeys({"temperature", "seed"});
    c.velocity.create = true;
    c.velocity.temperature = v->at("temperature").number(0.0, 1e6);
    c.velocity.seed = seedOf(v->at("seed"));
  } else if (root.at("system").find("lattice")) {
    root.at("system").warn("no 'velocity' section: the crystal starts at rest (T = 0)");
  }

  const auto run = root.at("run");
  run.checkKeys({"steps"});
  c.steps = run.at("steps").integer(0, 1LL << 50);
  if (const auto t = root.find("thermo")) {
    t->checkKeys({"every"});
    c.thermoEvery = t->at("every").integer(0, 1LL << 50);
  }
  if (const auto o = root.find("output")) {
    o->checkKeys({"dir", "every", "formats", "checkpoint"});
    if (const auto d = o->find("dir")) c.output.dir = d->string();
    if (const auto e = o->find("every")) c.output.every = e->integer(0, 1LL << 50);
    if (const auto checkpoint = o->find("checkpoint")) c.output.checkpoint = parseCheckpointSpec(*checkpoint);
    if (const auto f = o->find("formats")) {
      c.output.h5md = c.output.vtk = false;
      for (std::size_t i = 0; i < f->size(); ++i) {
        const std::string v = (*f)[i].choice({"h5md", "vtk"});
        if (v == "h5md") c.output.h5md = true;
        if (v == "vtk") {
          if (HOPSIM_WITH_VTK) c.output.vtk = true;
          else (*f)[i].warn("vtk output needs a build with VTK (HOPSIM_WITH_VTK); only the other formats are written");
        }
      }
    }
  }
  // device.halo: how a decomposed CUDA run's ghost positions travel between ranks (EngineConfig::ghosts).
  c.device = parseDeviceSpec(root);
  return c;
}

}  // namespace hopsim::io::md
