// The standard benchmark suite: its cases and sizes, sizing down to the memory at hand, and the run through the
// LBM and MD benches.
#include "solvers/common/BenchSuite.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>

#include "core/DataDir.h"
#include "core/Mpi.h"
#include "core/RunOptions.h"
#include "io/CaseReader.h"
#include "io/LbmCaseParser.h"
#include "kernels/common/DeviceInfo.h"
#include "kernels/lbm/hopper/HopperSupport.h"
#include "solvers/common/BenchSchema.h"
#include "solvers/common/DevicePlanner.h"
#include "solvers/common/HostMemory.h"
#include "solvers/common/RunInfo.h"
#include "solvers/lbm/LbmBench.h"
#include "solvers/md/MdBench.h"

namespace hopsim {
namespace {

// LBM memory per cell: two lattices of Q populations and a flag byte. The in-place layout needs half the
// populations, but the suite times the default layout, which is two-lattice where memory allows.
double lbmBytesPerCell(const std::string& lattice, const std::string& precision) {
  const int q = lattice == "D2Q9" ? 9 : lattice == "D3Q19" ? 19 : 27;
  const int storage = precision == "half" ? 2 : precision == "double" ? 8 : 4;
  return 2.0 * q * storage + 1.0;
}

// MD memory per atom on a GPU or the host: positions, velocities, forces, sort keys and a neighbour list of about
// 80 entries at the LJ benchmark density (cutoff 2.5, skin 0.3); a generous estimate.
constexpr double kMdBytesPerAtom = 600.0;

constexpr double kUsableShare = kSuiteUsableShare;

// The host side of an LBM bench run: the setup's flags, initial density and velocity in double (LbmSetup), held
// until the backend is built; on the cpu backend the lattices come on top.
constexpr double kLbmSetupBytesPerCell = 1 + 8 + 3 * 8;

double gib(double bytes) { return bytes / double(1ull << 30); }

// Free memory where a case's data lives: `device` (GPU memory on cuda; unused on cpu) and `host` (MemAvailable).
// 0: unknown, not checked.
struct Room {
  double device = 0, host = 0;
  bool gpu = false;
};

struct LbmSpec {
  std::string geometry, lattice, precision;
  std::array<long long, 3> cells{1, 1, 1};
  int dimensions = 3;
  bool lengthOnly = false;  // a channel is sized down along its length, so that the cylinder stays whole
  int channelScale = 0;     // cylinder2d.yaml scaled by this factor; 0: not the channel
};

std::string cellsText(const LbmSpec& s) {
  return s.dimensions == 2 ? fmt::format("{}x{}", s.cells[0], s.cells[1])
                           : fmt::format("{}x{}x{}", s.cells[0], s.cells[1], s.cells[2]);
}

double lbmBytes(const LbmSpec& s) {
  return lbmBytesPerCell(s.lattice, s.precision) * double(s.cells[0]) * double(s.cells[1]) * double(s.cells[2]);
}

double lbmHostBytes(const LbmSpec& s, bool gpu) {
  return (gpu ? 0.0 : lbmBytes(s)) +
         kLbmSetupBytesPerCell * double(s.cells[0]) * double(s.cells[1]) * double(s.cells[2]);
}

bool fits(const LbmSpec& s, const Room& room) {
  const bool device = !room.gpu || room.device <= 0 || lbmBytes(s) <= kUsableShare * room.device;
  const bool host = room.host <= 0 || lbmHostBytes(s, room.gpu) <= kUsableShare * room.host;
  return device && host;
}

std::string need(const LbmSpec& s, const Room& room) {
  return room.gpu ? fmt::format(
                        "{:.1f} GiB on the GPU with {:.1f} GiB free, {:.1f} GiB of host memory with {:.1f} "
                        "GiB available",
                        gib(lbmBytes(s)), gib(room.device), gib(lbmHostBytes(s, true)), gib(room.host))
                  : fmt::format("{:.1f} GiB of host memory, {:.1f} GiB available", gib(lbmHostBytes(s, false)),
                                gib(room.host));
}

// Halves the largest axis (the length of a channel) until the case fits; false when it never does.
bool sizeDown(LbmSpec& s, const Room& room, std::vector<std::string>& notes) {
  if (fits(s, room)) return true;
  const std::string from = cellsText(s);
  const std::string needed = need(s, room);
  while (!fits(s, room)) {
    // The largest axis, the slowest-varying of equals (rows along x stay long).
    int axis = 0;
    if (!s.lengthOnly)
      for (int a = 1; a < s.dimensions; ++a)
        if (s.cells[a] >= s.cells[axis]) axis = a;
    if (s.cells[axis] < 32) return false;
    s.cells[axis] /= 2;
  }
  notes.push_back(fmt::format("sized down: lbm {} {} {} from {} to {} cells (it needs {})", s.geometry, s.lattice,
                              s.precision, from, cellsText(s), needed));
  return true;
}

// Whether the Hopper bulk kernels exist for the case's lattice and storage; elsewhere `kernels: hopper` runs the
// portable bulk update, which the suite times once, as portable.
bool hopperBuilt(const LbmSpec& s) {
  const lbm::LatticeKind lattice = s.lattice == "D2Q9"    ? lbm::LatticeKind::D2Q9
                                   : s.lattice == "D3Q19" ? lbm::LatticeKind::D3Q19
                                                          : lbm::LatticeKind::D3Q27;
  const lbm::Precision precision = s.precision == "half"     ? lbm::Precision::Half
                                   : s.precision == "double" ? lbm::Precision::Double
                                                             : lbm::Precision::Single;
  return lbm::hopperKernelsBuilt(lattice, precision);
}

SuiteCase lbmCase(const LbmSpec& s, Backend backend, bool hopper, SuiteScale scale) {
  SuiteCase c;
  c.solver = "lbm";
  c.geometry = s.geometry;
  c.size = cellsText(s);
  c.label = fmt::format("lbm {} {} {} {}", s.geometry, s.lattice, s.precision, c.size);
  c.bytes = lbmBytes(s);
  const bool gpu = backend == Backend::Cuda;
  c.variants = gpu ? (hopper && hopperBuilt(s) ? std::vector{KernelVariant::Portable, KernelVariant::Hopper}
                                               : std::vector{KernelVariant::Portable})
                   : std::vector{KernelVariant::Auto};
  const std::string cells = s.dimensions == 2 ? fmt::format("[{},{}]", s.cells[0], s.cells[1])
                                              : fmt::format("[{},{},{}]", s.cells[0], s.cells[1], s.cells[2]);
  const std::vector<std::string> device = {"device.backend=" + std::string(toString(backend)),
                                           "precision=" + s.precision};
  if (s.geometry == "periodic") {
    // As bench/lbm_*.yaml: BGK, tau 0.6, a decaying Taylor-Green vortex (not a fluid at rest, whose all-equal data
    // can make memory look faster than it is); the 2-D one, which fits the boxes that are not cubes too.
    c.text = fmt::format(
        "solver: lbm\nlattice: {}\nprecision: {}\ncollision: {{model: bgk}}\n"
        "domain: {{cells: {}, periodic: [{}]}}\nfluid: {{tau: 0.6}}\n"
        "initial: {{taylor_green: {{u0: 0.05, form: 2d}}}}\n"
        "run: {{steps: 1000}}\ndevice: {{backend: {}}}\n",
        s.lattice, s.precision, cells, s.dimensions == 2 ? "x, y" : "x, y, z", toString(backend));
  } else if (s.geometry == "cavity3d") {
    c.source = "inputs/lbm/cavity3d.yaml";
    c.overrides = device;
    c.overrides.push_back("domain.cells=" + cells);
  } else {
    // inputs/lbm/cylinder2d.yaml at k times its size: the cylinder, its place and the viscosity scaled with it
    // (the same Reynolds number, 53), the channel's length as sizing down left it.
    const int k = s.channelScale;
    c.source = "inputs/lbm/cylinder2d.yaml";
    c.overrides = device;
    c.overrides.push_back("domain.cells=" + cells);
    c.overrides.push_back(fmt::format("fluid.viscosity={}", 0.01 * k));
    c.overrides.push_back(fmt::format("obstacles=[{{name: cylinder, shape: circle, center: [{}, {}], radius: {}}}]",
                                      60 * k, 31 * k - 0.5, 8 * k));
    c.overrides.push_back(fmt::format("output.forces.reference.length={}", 16 * k));
  }
  if (scale == SuiteScale::Tiny) {
    c.steps = 2;
    c.repeats = 3;
  }
  return c;
}

SuiteCase mdCase(long long unitCells, Backend backend, SuiteScale scale, long long steps) {
  SuiteCase c;
  c.solver = "md";
  c.geometry = "lj";
  c.source = "inputs/md/lj_liquid.yaml";  // the LAMMPS LJ benchmark state
  c.overrides = {"precision=mixed", fmt::format("system.lattice.cells=[{0},{0},{0}]", unitCells),
                 "device.backend=" + std::string(toString(backend))};
  const double atoms = 4.0 * double(unitCells) * double(unitCells) * double(unitCells);
  c.size = fmt::format("{:.0f} atoms", atoms);
  c.label = "md lj mixed " + c.size;
  c.bytes = kMdBytesPerAtom * atoms;
  c.steps = steps;
  c.repeats = scale == SuiteScale::Tiny ? 3 : 5;
  return c;
}

}  // namespace

const char* toString(SuiteScale s) { return s == SuiteScale::Tiny ? "tiny" : "full"; }

double suiteRunDeviceBytes(const nlohmann::json& run) {
  const std::string solver = run.value("solver", "");
  if (solver == "lbm" && run.contains("cells") && run.contains("lattice") && run.contains("precision"))
    return lbmBytesPerCell(run["lattice"].get<std::string>(), run["precision"].get<std::string>()) *
           run["cells"].get<double>();
  if (solver == "md" && run.contains("atoms")) return kMdBytesPerAtom * run["atoms"].get<double>();
  return 0;
}

SuitePlan planStandardSuite(Backend backend, SuiteScale scale, double memory, bool hopper, double hostMemory) {
  SuitePlan plan;
  const bool gpu = backend == Backend::Cuda;
  const Room room{gpu ? memory : 0.0, gpu ? hostMemory : memory, gpu};
  const bool tiny = scale == SuiteScale::Tiny;
  // FP16 storage is a GPU feature; the CPU backends time single precision only.
  const std::vector<std::string> precisions =
      gpu ? std::vector<std::string>{"single", "half"} : std::vector<std::string>{"single"};
  // Sizes: full on a GPU (what users quote), smaller on the cpu backend (minutes on a workstation), tiny for CI.
  const long long box2 = tiny ? 64 : gpu ? 4096 : 1024;
  const long long box3 = tiny ? 16 : gpu ? 256 : 128;
  const int channel = tiny ? 1 : gpu ? 32 : 4;
  const std::array<long long, 3> large = tiny  ? std::array<long long, 3>{32, 32, 16}
                                         : gpu ? std::array<long long, 3>{1024, 1024, 512}
                                               : std::array<long long, 3>{256, 256, 256};
  const auto add = [&](LbmSpec s) {
    const std::string needed = need(s, room);
    if (sizeDown(s, room, plan.notes))
      plan.cases.push_back(lbmCase(s, backend, hopper, scale));
    else
      plan.notes.push_back(fmt::format("left out: lbm {} {} {}: does not fit even at 32 cells per axis (it needs {})",
                                       s.geometry, s.lattice, s.precision, needed));
  };
  for (const std::string& p : precisions) {
    add({"periodic", "D2Q9", p, {box2, box2, 1}, 2});
    add({"periodic", "D3Q19", p, {box3, box3, box3}, 3});
    add({"periodic", "D3Q27", p, {box3, box3, box3}, 3});
    add({"cavity3d", "D3Q19", p, {box3, box3, box3}, 3});
    add({"cylinder2d", "D2Q9", p, {300LL * channel, 62LL * channel, 1}, 2, true, channel});
  }
  // The large grid quoted for A100/H100 comparisons: FP16 storage wherever it fits (sized down where it does not),
  // FP32 storage too where that fits whole (on an H200, not on an 80 GB GPU).
  LbmSpec big{"periodic", "D3Q19", gpu ? "half" : "single", large, 3};
  add(big);
  if (gpu) {
    big.precision = "single";
    if (fits(big, room))
      plan.cases.push_back(lbmCase(big, backend, hopper, scale));
    else
      plan.notes.push_back(fmt::format("left out: lbm periodic D3Q19 single {}: it needs {} (FP16 storage only)",
                                       cellsText(big), need(big, room)));
  }
  // MD: the LAMMPS LJ benchmark at 32,000, 1.05M and 16.4M atoms on a GPU; steps for about 0.1-0.5 s per repeat.
  const std::vector<std::pair<long long, long long>> md =
      tiny  ? std::vector<std::pair<long long, long long>>{{6, 10}}
      : gpu ? std::vector<std::pair<long long, long long>>{{20, 2000}, {64, 200}, {160, 50}}
            : std::vector<std::pair<long long, long long>>{{20, 50}, {40, 10}};
  for (auto [unitCells, steps] : md) {
    SuiteCase c = mdCase(unitCells, backend, scale, steps);
    if (memory > 0 && c.bytes > kUsableShare * memory) {
      const std::string from = c.size;
      while (unitCells > 6 && mdCase(unitCells, backend, scale, steps).bytes > kUsableShare * memory) unitCells /= 2;
      c = mdCase(unitCells, backend, scale, steps);
      plan.notes.push_back(fmt::format("sized down: md lj from {} to {} ({:.1f} GiB free)", from, c.size, gib(memory)));
    }
    plan.cases.push_back(c);
  }
  return plan;
}

nlohmann::json runSuite(const SuiteOptions& o) {
  if (o.name != "standard") throw InputError("--suite " + o.name + ": unknown suite, the one there is is 'standard'");
  RunOptions resolve;
  if (o.backend != Backend::Auto) resolve.backend = o.backend;
  const DevicePlan device = planDevice(DeviceSpec{}, resolve, 0);
  const bool gpu = device.backend == Backend::Cuda;
  double memory = 0, host = 0;
  bool hopper = false;
  if (const auto available = availableHostMemory()) host = double(*available);
  if (gpu) {
    const auto free = freeDeviceMemory(device.gpu);
    memory = free ? double(*free) : 0.0;
    const auto gpus = cudaDevices();
    hopper = device.gpu < static_cast<int>(gpus.size()) && gpus[device.gpu].ccMajor >= 9;
  } else {
    memory = host;
  }
  // Under mpiexec every rank runs every case (decomposed), and they must agree on the plan: rank 0's memory.
  memory = mpi::Comm::world().allreduceSum(mpi::isRoot() ? memory : 0.0);
  host = mpi::Comm::world().allreduceSum(mpi::isRoot() ? host : 0.0);
  const SuitePlan plan = planStandardSuite(device.backend, o.scale, memory, hopper, host);
  const auto say = [&](const std::string& line) {
    if (o.progress && mpi::isRoot()) o.progress(line);
  };
  for (const auto& note : plan.notes) say("note: " + note);

  const nlohmann::json copy =
      benchCopyBandwidth(device.backend, device.gpu, o.scale == SuiteScale::Tiny ? std::size_t(32) << 20 : 0);
  say(copy.is_null() ? std::string("copy bandwidth: not measured")
                     : fmt::format("copy bandwidth ({} memory): {:.0f} GB/s", copy["memory"].get<std::string>(),
                                   copy["median_gbs"].get<double>()));
  nlohmann::json runs = nlohmann::json::array();
  const std::filesystem::path root = dataDir();  // inputs/ of the suite's file-based cases
  for (std::size_t k = 0; k < plan.cases.size(); ++k) {
    const SuiteCase& c = plan.cases[k];
    say(fmt::format("[{}/{}] {}", k + 1, plan.cases.size(), c.label));
    const std::string where = c.source.empty() ? std::string() : (root / c.source).string();
    try {
      const io::CaseDocument doc = c.source.empty()
                                       ? io::CaseDocument::fromString(c.text, "suite:" + c.geometry, c.overrides)
                                       : io::CaseDocument::load(where, c.overrides);
      nlohmann::json result;
      if (c.solver == "lbm") {
        lbm::BenchOptions b;
        b.steps = c.steps;
        b.repeats = c.repeats;
        b.variants = c.variants;
        b.copyBandwidth = copy;
        b.geometry = c.geometry;
        result = lbm::bench(io::parseLbmCase(doc), b);
      } else {
        md::BenchOptions b;
        b.steps = c.steps;
        b.repeats = c.repeats;
        b.copyBandwidth = copy;
        b.system = c.geometry;
        RunOptions quiet;
        quiet.quiet = true;
        result = md::bench(doc, quiet, b);
      }
      for (const auto& r : result["runs"]) {
        if (r.contains("error"))
          say(fmt::format("      {}: failed: {}", r["id"].get<std::string>(), r["error"].get<std::string>()));
        else
          say(fmt::format("      {}: {:.4g} ms/step, {:.4g} {}{}", r["id"].get<std::string>(),
                          r["step_time_ms"]["median"].get<double>(), r["throughput"]["median"].get<double>(),
                          r["throughput"]["unit"].get<std::string>(),
                          r["fraction_of_copy_bandwidth"].is_number()
                              ? fmt::format(", {:.2f} of copy", r["fraction_of_copy_bandwidth"].get<double>())
                              : std::string()));
        runs.push_back(r);
      }
    } catch (const std::exception& e) {
      // The case as planned, with what went wrong; the other cases still run.
      std::string id = c.label;
      std::replace(id.begin(), id.end(), ' ', '/');
      say(fmt::format("      {}: failed: {}", id, e.what()));
      runs.push_back({{"id", id}, {"solver", c.solver}, {"error", e.what()}});
    }
  }
  nlohmann::json doc = benchDocument(benchProvenance(device.backend, device.gpu), copy, runs);
  doc["suite"] = {{"name", o.name},
                  {"version", kStandardSuiteVersion},
                  {"scale", toString(o.scale)},
                  {"backend", toString(device.backend)},
                  {"cases", plan.cases.size()},
                  {"notes", plan.notes}};
  return doc;
}

}  // namespace hopsim
