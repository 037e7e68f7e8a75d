// Decomposed MD against the single-rank engine: the same thermo to round-off on every grid of the ranks at hand,
// atoms conserved through migration, Langevin averages, gathered output, the benchmark's per-rank tables; and the
// same for the CUDA engines ([gpu], skipped without a GPU).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "CatchCompat.h"
#include "HostDomainMdDevice.h"
#include "io/CaseReader.h"
#include "io/md/H5mdReader.h"
#include "io/md/MdCaseParser.h"
#include "kernels/common/DeviceInfo.h"
#include "core/Mpi.h"
#include "solvers/md/DomainMdEngine.h"
#include "solvers/md/InitialState.h"
#include "solvers/md/MdBench.h"
#include "solvers/md/MdRun.h"
#include "solvers/md/MdSimulation.h"

namespace md = hopsim::md;
namespace mpi = hopsim::mpi;
using hopsim::io::CaseDocument;

namespace {

// The LAMMPS bench state (fcc, rho 0.8442, T 1.44, rc 2.5, skin 0.3) at 8^3 cells: 2048 atoms, 13.4 sigma wide.
std::string ljCase(const std::string& integrator, const std::array<int, 3>& ranks, long long steps,
                   double temperature = 1.44, int cells = 8) {
  std::string device = "device: {backend: cpu";
  if (ranks[0] > 0)
    device += ", ranks: [" + std::to_string(ranks[0]) + ", " + std::to_string(ranks[1]) + ", " +
              std::to_string(ranks[2]) + "]";
  device += "}\n";
  const std::string c = std::to_string(cells);
  return "solver: md\nprecision: double\nsystem: {lattice: {type: fcc, density: 0.8442, cells: [" + c + ", " + c +
         ", " + c + "]}}\npotential: {type: lj, cutoff: 2.5}\nneighbor: {skin: 0.3}\nvelocity: {temperature: " +
         std::to_string(temperature) + ", seed: 87287}\nintegrator: " + integrator + "\nrun: {steps: " +
         std::to_string(steps) + "}\nthermo: {every: 10}\n" + device;
}

// The same case on the cuda backend.
std::string onGpu(std::string text) { return text.replace(text.find("backend: cpu"), 12, "backend: cuda"); }

md::MdCase parse(const std::string& text) { return hopsim::io::md::parseMdCase(CaseDocument::fromString(text, "case.yaml")); }

hopsim::RunOptions quiet() {
  hopsim::RunOptions o;
  o.quiet = true;
  o.writeOutput = false;
  return o;
}

// The one-rank reference: the plain single-rank engine of the case's backend, computed by each rank on its own.
md::MdRunResult reference(const md::MdCase& c) { return md::runMd(c, quiet(), md::MdRanks{mpi::Comm::self(), false}); }
md::MdRunResult decomposed(const md::MdCase& c) { return md::runMd(c, quiet(), md::MdRanks{mpi::Comm::world(), true}); }

double relative(double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-300); }

// Largest relative difference over every thermo column of every row.
double thermoDifference(const md::MdRunResult& a, const md::MdRunResult& b) {
  REQUIRE(a.thermo.size() == b.thermo.size());
  double worst = 0;
  for (std::size_t k = 0; k < a.thermo.size(); ++k) {
    const auto &x = a.thermo[k], &y = b.thermo[k];
    CHECK(x.step == y.step);
    for (auto [p, q] : {std::pair{x.temp, y.temp}, {x.pe, y.pe}, {x.ke, y.ke}, {x.etotal, y.etotal}, {x.press, y.press}})
      worst = std::max(worst, relative(p, q));
  }
  return worst;
}

// Largest displacement between two states of the same atoms in id order (minimum image).
double positionDifference(const md::ParticleState& a, const md::ParticleState& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double r[3][2] = {{a.x[i], b.x[i]}, {a.y[i], b.y[i]}, {a.z[i], b.z[i]}};
    for (int d = 0; d < 3; ++d) {
      double dx = std::abs(r[d][0] - r[d][1]);
      dx = std::min(dx, a.box.length[d] - dx);
      worst = std::max(worst, dx);
    }
  }
  return worst;
}

// On rank 0, which holds the gathered final states: the same atoms at the end, each within `tolerance` of where the
// reference left it. CHECK, not REQUIRE: a REQUIRE would leave the other ranks waiting in the next collective.
// Returns the largest displacement (0 on the other ranks).
template <class Run>
double checkSameEnd(const Run& run, const Run& ref, double tolerance) {
  if (!mpi::isRoot()) return 0;
  CHECK(run.final.size() == ref.final.size());
  const double moved = run.final.size() == ref.final.size() ? positionDifference(run.final, ref.final) : 1.0;
  CHECK(moved <= tolerance);
  return moved;
}

// Grids for the ranks at hand: MPI_Dims_create's choice (0) and explicit ones splitting other axes.
std::vector<std::array<int, 3>> gridsFor(int n) {
  std::vector<std::array<int, 3>> grids{{0, 0, 0}};
  for (const std::array<int, 3> g : {std::array<int, 3>{1, 1, 1}, {2, 1, 1}, {1, 1, 2}, {1, 2, 1}, {4, 1, 1}, {1, 2, 2}})
    if (g[0] * g[1] * g[2] == n) grids.push_back(g);
  return grids;
}

// [gpu] cases return early, with a note, where there is no GPU: the CPU runs exclude them by tag ("~[gpu]"), and a
// run of every [md] case on such a machine should not fail on them.
bool gpuPresent() {
  if (hopsim::cudaDeviceCount() > 0) return true;
  if (mpi::isRoot()) std::printf("  no CUDA device (or hopsim built without CUDA): GPU case skipped\n");
  return false;
}

// Thermo sums at the start and after every 10 steps (as a run with thermo every 10 takes them).
std::vector<md::RawThermo> thermoEvery10(md::MdEngine& engine, const md::ParticleState& s, long long steps) {
  engine.initialize(s);
  std::vector<md::RawThermo> out{engine.thermo()};
  for (long long step = 0; step < steps; step += 10) {
    engine.advance(10, step);
    out.push_back(engine.thermo());
  }
  return out;
}

double sumsDifference(const std::vector<md::RawThermo>& a, const std::vector<md::RawThermo>& b) {
  REQUIRE(a.size() == b.size());
  double worst = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    CHECK(a[k].finite);
    for (auto [p, q] : {std::pair{a[k].potential, b[k].potential}, {a[k].virial, b[k].virial},
                        {a[k].twoKinetic, b[k].twoKinetic}})
      worst = std::max(worst, relative(p, q));
  }
  return worst;
}

// The decomposed CUDA engine's MPI half over the host stand-in of its GPU half.
std::unique_ptr<md::MdEngine> hostDeviceEngine(const md::MdCase& c) {
  const md::EngineConfig e = md::engineConfig(c);
  const hopsim::Decomposition d = md::decompose(c, mpi::Comm::world());
  return md::makeDomainEngine<double>(
      e, d, mpi::Comm::world(),
      std::make_unique<md::test::HostDomainMdDevice<double>>(md::domainDeviceConfig(e, d, 0)));
}

// The measured differences, for the record (rank 0 only).
void report(const char* what, const std::array<int, 3>& grid, double thermo, double positions = -1) {
  if (!mpi::isRoot()) return;
  std::printf("  %d ranks, grid %s[%d %d %d], %s: max relative thermo difference %.3g", mpi::size(),
              grid[0] ? "" : "auto ", grid[0], grid[1], grid[2], what, thermo);
  if (positions >= 0) std::printf(", max position difference %.3g", positions);
  std::printf("\n");
}

// A hot liquid with a thin skin (0.01: the list is rebuilt on nearly every step, atoms cross faces often), run
// through the decomposed CUDA engine's MPI half twice on every grid at hand: rebuilding where the atoms are, ghosts
// GPU to GPU where the device can (the defaults), and on the host with staged ghosts (EngineConfig::rebuildOnHost,
// device.halo: staged). Both must leave the same atoms in the same slots: the build count, the migrations and the
// final atoms agree bit for bit. The thermo sums agree to round-off (1e-12): on a GPU the blocks' partial sums meet
// by atomic adds, in an order that varies from run to run. `make` builds the engine.
template <class Make>
void checkRebuildsAgree(const std::string& precision, bool gpu, Make make) {
  for (const auto& grid : gridsFor(mpi::size())) {
    INFO(precision << ", grid " << grid[0] << " " << grid[1] << " " << grid[2] << " on " << mpi::size() << " ranks");
    std::string text = ljCase("{type: nve, dt: 0.005}", grid, 100, 3.0);
    if (gpu) text = onGpu(text);
    text.replace(text.find("skin: 0.3"), 9, "skin: 0.01");
    text.replace(text.find("precision: double"), 17, "precision: " + precision);
    const md::MdCase c = parse(text);
    const hopsim::Decomposition d = md::decompose(c, mpi::Comm::world());
    md::EngineConfig e = md::engineConfig(c);
    auto inPlace = make(e, d);
    e.rebuildOnHost = true;
    e.ghosts = hopsim::HaloTransport::Staged;
    auto onHost = make(e, d);
    const auto a = thermoEvery10(*inPlace, md::initialState(c), 100);
    const auto b = thermoEvery10(*onHost, md::initialState(c), 100);
    CHECK(sumsDifference(a, b) <= 1e-12);
    const md::EngineStats sa = inPlace->stats(), sb = onHost->stats();
    CHECK(sa.domain.peerGhosts == gpu);  // every rank of these tests shares one node
    CHECK_FALSE(sb.domain.peerGhosts);
    CHECK(sa.neighborBuilds >= 90);
    CHECK(sa.neighborBuilds == sb.neighborBuilds);
    const long long migrated = mpi::Comm::world().allreduceSum(sa.migratedAtoms);
    CHECK(migrated == mpi::Comm::world().allreduceSum(sb.migratedAtoms));
    if (mpi::size() > 1) CHECK(migrated > 100);
    md::ParticleState fa, fb;
    inPlace->download(fa);
    onHost->download(fb);
    if (mpi::isRoot()) {
      CHECK(fa.size() == c.system.size());
      CHECK(fa.id == fb.id);
      CHECK(fa.x == fb.x);
      CHECK(fa.y == fb.y);
      CHECK(fa.z == fb.z);
      CHECK(fa.vx == fb.vx);
      CHECK(fa.vy == fb.vy);
      CHECK(fa.vz == fb.vz);
      std::printf("  %d ranks, grid [%d %d %d], %s %s: %lld builds, %lld migrations, rebuild in place = on host\n",
                  mpi::size(), grid[0], grid[1], grid[2], gpu ? "cuda" : "host stand-in", precision.c_str(),
                  sa.neighborBuilds, migrated);
    }
  }
}

}  // namespace

TEST_CASE("decomposed NVE thermo equals one-rank thermo within 1e-10 after 100 steps", "[mpi][md]") {
  // device.ranks does not change the single-rank run: one reference for every grid.
  const auto ref = reference(parse(ljCase("{type: nve, dt: 0.005}", {0, 0, 0}, 100)));
  for (const auto& grid : gridsFor(mpi::size())) {
    INFO("grid " << grid[0] << " " << grid[1] << " " << grid[2] << " on " << mpi::size() << " ranks");
    const md::MdCase c = parse(ljCase("{type: nve, dt: 0.005}", grid, 100));
    const auto run = decomposed(c);
    REQUIRE(ref.ok);
    REQUIRE(run.ok);
    CHECK(run.backend.find("MPI ranks") != std::string::npos);
    REQUIRE(run.thermo.back().step == 100);
    const double diff = thermoDifference(run, ref);
    CHECK(diff <= 1e-10);
    report("nve", grid, diff, checkSameEnd(run, ref, 1e-9));
  }
}

TEST_CASE("decomposed Nose-Hoover and Langevin runs follow the one-rank trajectory", "[mpi][md]") {
  // Langevin noise is keyed by (seed, step, atom id), so the decomposed run draws the same numbers.
  for (const std::string integrator : {"{type: nose_hoover, dt: 0.005, temperature: 1.0, tau: 0.5}",
                                       "{type: langevin, dt: 0.005, temperature: 1.0, damping: 0.5, seed: 4242}"}) {
    INFO(integrator);
    const md::MdCase c = parse(ljCase(integrator, {0, 0, 0}, 100));
    const auto ref = reference(c);
    const auto run = decomposed(c);
    REQUIRE(ref.ok);
    REQUIRE(run.ok);
    const double diff = thermoDifference(run, ref);
    CHECK(diff <= 1e-10);
    report(integrator.find("langevin") != std::string::npos ? "langevin" : "nose_hoover", {0, 0, 0}, diff);
  }
}

TEST_CASE("mixed and single precision run decomposed and stay close to one rank", "[mpi][md]") {
  // Float pair arithmetic (and float storage in single) rounds differently in each summation order, and chaos grows
  // that over 100 steps: a loose bound that still catches a wrong ghost image or a lost neighbour (those move
  // the energy by far more than 1e-3).
  for (const std::string precision : {"mixed", "single"}) {
    INFO(precision);
    std::string text = ljCase("{type: nve, dt: 0.005}", {0, 0, 0}, 100, 1.44, 6);
    text.replace(text.find("precision: double"), 17, "precision: " + precision);
    const md::MdCase c = parse(text);
    const auto ref = reference(c);
    const auto run = decomposed(c);
    REQUIRE(ref.ok);
    REQUIRE(run.ok);
    CHECK(relative(run.thermo.back().etotal, ref.thermo.back().etotal) <= 1e-3);
    CHECK(relative(run.thermo.back().press, ref.thermo.back().press) <= 1e-2);
    report(precision.c_str(), {0, 0, 0}, thermoDifference(run, ref));
  }
}

TEST_CASE("Langevin NVT averages agree with one rank and with the target temperature", "[mpi][md]") {
  // Melt the crystal at T = 1.44 and hold it at 1.0 (damping time 20 steps): the mean after step 100 must sit at
  // the target.
  const md::MdCase c = parse(ljCase("{type: langevin, dt: 0.005, temperature: 1.0, damping: 0.1, seed: 99}",
                                    {0, 0, 0}, 300));
  const auto ref = reference(c);
  const auto run = decomposed(c);
  REQUIRE(ref.ok);
  REQUIRE(run.ok);
  auto meanTemp = [](const md::MdRunResult& r) {
    double sum = 0;
    int n = 0;
    for (const auto& row : r.thermo)
      if (row.step >= 100) sum += row.temp, ++n;
    return sum / n;
  };
  const double tRun = meanTemp(run), tRef = meanTemp(ref);
  CHECK(relative(tRun, tRef) <= 1e-8);
  CHECK(tRun == Approx(1.0).epsilon(0.05));
  if (mpi::isRoot()) std::printf("  %d ranks, langevin 300 steps: mean T %.6f (one rank %.6f)\n", mpi::size(), tRun, tRef);
}

TEST_CASE("atoms survive migration: every id once, none lost, many moved", "[mpi][md]") {
  // Hot (T = 3) and long enough that atoms cross sub-box faces many times; the narrowest grid the ranks allow.
  const int n = mpi::size();
  const std::array<int, 3> grid = n == 4 ? std::array<int, 3>{4, 1, 1} : std::array<int, 3>{n, 1, 1};
  const md::MdCase c = parse(ljCase("{type: nve, dt: 0.005}", grid, 200, 3.0));
  const auto run = decomposed(c);
  const auto ref = reference(c);
  REQUIRE(run.ok);
  const long long migrated = mpi::Comm::world().allreduceSum(run.stats.migratedAtoms);
  if (n > 1) CHECK(migrated > 100);
  if (mpi::isRoot()) {
    CHECK(run.final.size() == c.system.size());
    std::set<long long> ids(run.final.id.begin(), run.final.id.end());
    CHECK(ids.size() == c.system.size());
    CHECK(*ids.begin() == 1);
    CHECK(*ids.rbegin() == static_cast<long long>(c.system.size()));
    std::printf("  %d ranks, grid [%d %d %d], 200 hot steps: %lld migrations, thermo difference %.3g\n", n, grid[0],
                grid[1], grid[2], migrated, thermoDifference(run, ref));
  }
  // Still the same trajectory after hundreds of migrations (2x the steps of the 1e-10 test: chaos has had longer).
  CHECK(thermoDifference(run, ref) <= 1e-8);
}

TEST_CASE("hopsim run of an MD case under mpiexec writes one trajectory with every atom", "[mpi][md]") {
  const auto dir = std::filesystem::temp_directory_path() / "hopsim-mpi-test" / "run";
  if (mpi::isRoot()) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  mpi::barrier();
  const std::string text = ljCase("{type: nve, dt: 0.005}", {0, 0, 0}, 100, 1.44, 6) + "output: {dir: " +
                           dir.string() + ", every: 50, formats: [h5md]}\n";
  hopsim::RunOptions o;
  o.quiet = true;
  CHECK(md::runCase(CaseDocument::fromString(text, "case.yaml"), o) == 0);
  if (mpi::isRoot()) {
    CHECK(std::filesystem::exists(dir / "thermo.csv"));
    CHECK(std::filesystem::exists(dir / "run.json"));
    const auto frame = hopsim::io::md::readH5mdFrame((dir / "trajectory.h5").string());
    CHECK(frame.frames == 3);
    CHECK(frame.state.step == 100);
    CHECK(frame.state.size() == 864u);
    const auto ref = reference(parse(ljCase("{type: nve, dt: 0.005}", {0, 0, 0}, 100, 1.44, 6)));
    if (frame.state.size() == ref.final.size()) {
      for (std::size_t i = 0; i < frame.state.size(); ++i) CHECK(frame.state.id[i] == static_cast<long long>(i) + 1);
      CHECK(positionDifference(frame.state, ref.final) <= 1e-9);
    }
  }
  mpi::barrier();
}

// The CUDA engine's control flow, ghost refresh and rebuilds on any machine: a host stand-in does the GPU's part.
TEST_CASE("the decomposed CUDA engine's MPI half follows the one-rank trajectory (host stand-in for the GPU)",
          "[mpi][md]") {
  for (const std::string integrator : {"{type: nve, dt: 0.005}",
                                       "{type: nose_hoover, dt: 0.005, temperature: 1.0, tau: 0.5}",
                                       "{type: langevin, dt: 0.005, temperature: 1.0, damping: 0.5, seed: 4242}"}) {
    INFO(integrator);
    const md::MdCase one = parse(ljCase(integrator, {0, 0, 0}, 100));
    const auto ref = thermoEvery10(*md::makeCpuEngine(md::engineConfig(one)), md::initialState(one), 100);
    for (const auto& grid : gridsFor(mpi::size())) {
      INFO("grid " << grid[0] << " " << grid[1] << " " << grid[2] << " on " << mpi::size() << " ranks");
      const md::MdCase c = parse(ljCase(integrator, grid, 100));
      auto engine = hostDeviceEngine(c);
      const double diff = sumsDifference(thermoEvery10(*engine, md::initialState(c), 100), ref);
      CHECK(diff <= 1e-10);
      CHECK(engine->stats().neighborBuilds >= 4);
      // The parts of the rebuild and the ghost refresh are timed; an axis with one rank refreshes without MPI.
      const md::EngineStats::DomainPhases p = engine->stats().domain;
      CHECK(p.refreshes > 0);
      CHECK(p.sort > 0);
      CHECK(p.borders > 0);
      CHECK(p.upload > 0);
      const auto dims = md::decompose(c, mpi::Comm::world()).dims();
      CHECK((p.self > 0) == (dims[0] == 1 || dims[1] == 1 || dims[2] == 1));
      CHECK((p.mpi > 0) == (dims[0] * dims[1] * dims[2] > 1));
      report(("host-device " + integrator.substr(7, integrator.find(',') - 7)).c_str(), grid, diff);
    }
  }
  // Hot and long, on the narrowest grid: atoms migrate many times and every id comes back once.
  const int n = mpi::size();
  const md::MdCase hot = parse(ljCase("{type: nve, dt: 0.005}", {n, 1, 1}, 200, 3.0));
  auto engine = hostDeviceEngine(hot);
  const auto run = thermoEvery10(*engine, md::initialState(hot), 200);
  const auto ref = thermoEvery10(*md::makeCpuEngine(md::engineConfig(hot)), md::initialState(hot), 200);
  CHECK(sumsDifference(run, ref) <= 1e-8);
  const long long migrated = mpi::Comm::world().allreduceSum(engine->stats().migratedAtoms);
  if (n > 1) CHECK(migrated > 100);
  md::ParticleState all;
  engine->download(all);
  if (mpi::isRoot()) {
    std::set<long long> ids(all.id.begin(), all.id.end());
    CHECK(all.size() == hot.system.size());
    CHECK(ids.size() == hot.system.size());
  }
}

TEST_CASE("the decomposed CUDA engine's rebuild in place equals its host rebuild bit for bit (host stand-in)",
          "[mpi][md]") {
  checkRebuildsAgree("double", false, [](const md::EngineConfig& e, const hopsim::Decomposition& d) {
    return md::makeDomainEngine<double>(
        e, d, mpi::Comm::world(),
        std::make_unique<md::test::HostDomainMdDevice<double>>(md::domainDeviceConfig(e, d, 0)));
  });
}

TEST_CASE("the cuda backend runs decomposed where there is a GPU and says why not elsewhere", "[mpi][md]") {
  const md::MdCase c = parse(ljCase("{type: nve, dt: 0.005}", {0, 0, 0}, 10));
  hopsim::RunOptions o = quiet();
  o.backend = hopsim::Backend::Cuda;
  std::string message;
  md::MdRunResult run;
  try {
    run = md::runMd(c, o, md::MdRanks{mpi::Comm::world(), true});
  } catch (const std::runtime_error& e) {
    message = e.what();
  }
  if (hopsim::cudaDeviceCount() > 0) {
    CHECK(message.empty());
    CHECK(run.ok);
    CHECK(run.backend.rfind("cuda", 0) == 0);
  } else {
    // Without CUDA in the build, or without a device: the factories' messages.
    INFO(message);
    CHECK((message.find("needs a build with CUDA") != std::string::npos ||
           message.find("no CUDA device is available") != std::string::npos));
  }
}

TEST_CASE("the MD benchmark under mpiexec reports aggregate and per-rank figures", "[mpi][md]") {
  const std::string text = ljCase("{type: nve, dt: 0.005}", {0, 0, 0}, 20, 1.44, 6);
  md::BenchOptions b;
  b.steps = 20;
  b.repeats = 2;
  b.copyBytes = std::size_t(32) << 20;
  const nlohmann::json document = md::bench(CaseDocument::fromString(text, "case.yaml"), quiet(), b);
  REQUIRE(document["runs"].size() == 1);
  const nlohmann::json& j = document["runs"][0];
  CHECK(j["atom_steps_per_second"]["median"].get<double>() > 0);
  if (mpi::size() == 1) {
    CHECK(!j.contains("per_rank"));  // one rank runs the single-rank engine, as `hopsim run` does
    return;
  }
  CHECK(j["ranks"] == mpi::size());
  CHECK(j["backend"].get<std::string>().find("MPI ranks") != std::string::npos);
  const auto& table = j["seconds_over_ranks"];
  for (const char* phase : {"force", "neighbor", "comm", "integrate", "other"}) {
    INFO(phase);
    REQUIRE(table.contains(phase));
    CHECK(table[phase]["min"].get<double>() <= table[phase]["max"].get<double>());
  }
  CHECK(j["atoms_over_ranks"]["avg"].get<double>() * mpi::size() == Approx(864));
  if (mpi::isRoot()) {
    REQUIRE(j["per_rank"].size() == static_cast<std::size_t>(mpi::size()));
    double atoms = 0;
    for (const auto& r : j["per_rank"]) atoms += r["atoms"].get<double>();
    CHECK(atoms == 864);
  }
}

// On the GPU machine, under mpiexec with the ranks sharing the GPU(s); ctest's CPU runs exclude these ("~[gpu]").
// The reference is the single-rank CUDA engine (periodic box, minimum image, row-wise list) run by each rank.
TEST_CASE("decomposed CUDA NVE thermo equals one-rank CUDA thermo within 1e-10 after 100 steps", "[mpi][md][gpu]") {
  if (!gpuPresent()) return;
  const auto ref = reference(parse(onGpu(ljCase("{type: nve, dt: 0.005}", {0, 0, 0}, 100))));
  REQUIRE(ref.ok);
  REQUIRE(ref.backend.rfind("cuda", 0) == 0);
  for (const auto& grid : gridsFor(mpi::size())) {
    INFO("grid " << grid[0] << " " << grid[1] << " " << grid[2] << " on " << mpi::size() << " ranks");
    const auto run = decomposed(parse(onGpu(ljCase("{type: nve, dt: 0.005}", grid, 100))));
    REQUIRE(run.ok);
    CHECK(run.backend.rfind("cuda", 0) == 0);
    CHECK(run.backend.find("MPI ranks") != std::string::npos);
    CHECK(run.stats.neighborBuilds >= 4);  // several rebuilds (the initial one and >= 3 in 100 steps)
    const long long migrated = mpi::Comm::world().allreduceSum(run.stats.migratedAtoms);
    if (mpi::size() > 1) CHECK(migrated > 0);
    const double diff = thermoDifference(run, ref);
    CHECK(diff <= 1e-10);
    report("cuda nve", grid, diff, checkSameEnd(run, ref, 1e-9));
  }
}

TEST_CASE("decomposed CUDA Nose-Hoover and Langevin runs follow the one-rank CUDA trajectory", "[mpi][md][gpu]") {
  if (!gpuPresent()) return;
  // Both engines key the Langevin noise by (seed, step, atom id) and count steps alike.
  for (const std::string integrator : {"{type: nose_hoover, dt: 0.005, temperature: 1.0, tau: 0.5}",
                                       "{type: langevin, dt: 0.005, temperature: 1.0, damping: 0.5, seed: 4242}"}) {
    INFO(integrator);
    const md::MdCase c = parse(onGpu(ljCase(integrator, {0, 0, 0}, 100)));
    const auto ref = reference(c);
    const auto run = decomposed(c);
    REQUIRE(ref.ok);
    REQUIRE(run.ok);
    const double diff = thermoDifference(run, ref);
    CHECK(diff <= 1e-10);
    report(integrator.find("langevin") != std::string::npos ? "cuda langevin" : "cuda nose_hoover", {0, 0, 0}, diff);
  }
}

TEST_CASE("decomposed CUDA mixed and single precision stay close to the one-rank CUDA run", "[mpi][md][gpu]") {
  if (!gpuPresent()) return;
  // Float pair arithmetic rounds differently in each engine (another summation order: bin-by-bin list against the
  // row-wise one; ghosts at x + L in float against a minimum image of the difference), and chaos grows that over
  // 100 steps: the bounds of the CPU test, which a wrong ghost image or a lost neighbour exceeds by far.
  for (const std::string precision : {"mixed", "single"}) {
    INFO(precision);
    std::string text = onGpu(ljCase("{type: nve, dt: 0.005}", {0, 0, 0}, 100));
    text.replace(text.find("precision: double"), 17, "precision: " + precision);
    const md::MdCase c = parse(text);
    const auto ref = reference(c);
    const auto run = decomposed(c);
    REQUIRE(ref.ok);
    REQUIRE(run.ok);
    CHECK(relative(run.thermo.back().etotal, ref.thermo.back().etotal) <= 1e-3);
    CHECK(relative(run.thermo.back().press, ref.thermo.back().press) <= 1e-2);
    report(("cuda " + precision).c_str(), {0, 0, 0}, thermoDifference(run, ref));
  }
}

TEST_CASE("decomposed CUDA: every atom id once after hundreds of migrations", "[mpi][md][gpu]") {
  if (!gpuPresent()) return;
  const int n = mpi::size();
  const std::array<int, 3> grid = n == 4 ? std::array<int, 3>{4, 1, 1} : std::array<int, 3>{n, 1, 1};
  const md::MdCase c = parse(onGpu(ljCase("{type: nve, dt: 0.005}", grid, 200, 3.0)));
  const auto run = decomposed(c);
  const auto ref = reference(c);
  REQUIRE(run.ok);
  REQUIRE(ref.ok);
  const long long migrated = mpi::Comm::world().allreduceSum(run.stats.migratedAtoms);
  if (n > 1) CHECK(migrated > 100);
  if (mpi::isRoot()) {
    CHECK(run.final.size() == c.system.size());
    std::set<long long> ids(run.final.id.begin(), run.final.id.end());
    CHECK(ids.size() == c.system.size());
    CHECK(*ids.begin() == 1);
    CHECK(*ids.rbegin() == static_cast<long long>(c.system.size()));
    std::printf("  %d ranks, grid [%d %d %d], cuda, 200 hot steps: %lld migrations, thermo difference %.3g\n", n,
                grid[0], grid[1], grid[2], migrated, thermoDifference(run, ref));
  }
  CHECK(thermoDifference(run, ref) <= 1e-8);
}

// The GPU's rebuild (wrap, migration, sort, borders as kernels) against the host's on the same GPU engine.
TEST_CASE("decomposed CUDA: the rebuild on the GPU and ghosts GPU to GPU give the host path's atoms bit for bit",
          "[mpi][md][gpu]") {
  if (!gpuPresent()) return;
  for (const std::string precision : {"double", "mixed", "single"})
    checkRebuildsAgree(precision, true, [](const md::EngineConfig& e, const hopsim::Decomposition& d) {
      return md::makeCudaDomainEngine(e, d, mpi::Comm::world(), d.gpu(hopsim::cudaDeviceCount()));
    });
}
