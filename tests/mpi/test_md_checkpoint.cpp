// Checkpoint and restart of decomposed MD runs: every rank writes its own atoms, and a run continued from a
// checkpoint on the same ranks ends in the uninterrupted run's atoms bitwise with the same thermo.csv; the decomposed
// CUDA engine's MPI half (over the host stand-in of its GPU half) saves and restores bitwise too; a checkpoint of
// another rank count is refused, saying which.
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <string>

#include "CatchCompat.h"
#include "FileText.h"
#include "HostDomainMdDevice.h"
#include "MpiScratch.h"
#include "core/ExitCode.h"
#include "core/Mpi.h"
#include "io/CaseReader.h"
#include "io/Checkpoint.h"
#include "io/md/MdCaseParser.h"
#include "kernels/common/DeviceInfo.h"
#include "solvers/md/DomainMdEngine.h"
#include "solvers/md/InitialState.h"
#include "solvers/md/MdSimulation.h"

namespace fs = std::filesystem;
namespace md = hopsim::md;
namespace mpi = hopsim::mpi;
using hopsim::io::CaseDocument;

using hopsim::testing::fileText;

namespace {

// 864 atoms (fcc 6^3, 10 sigma wide: up to three ranks along an axis), thermo every 10, a checkpoint every 50.
std::string ljCase(const std::string& integrator, long long steps) {
  return "solver: md\nprecision: mixed\nsystem: {lattice: {type: fcc, density: 0.8442, cells: [6, 6, 6]}}\n"
         "potential: {type: lj, cutoff: 2.5}\nneighbor: {skin: 0.3}\nvelocity: {temperature: 1.44, seed: 87287}\n"
         "integrator: " + integrator + "\nrun: {steps: " + std::to_string(steps) +
         "}\nthermo: {every: 10}\noutput: {dir: unused, every: 50, formats: [h5md], checkpoint: {every: 50}}\n"
         "device: {backend: cpu}\n";
}

md::MdRunResult run(const std::string& yaml, const fs::path& out, const std::string& restart = "",
                    const md::MdRanks& ranks = md::MdRanks{mpi::Comm::world(), true}) {
  const CaseDocument doc = CaseDocument::fromString(yaml, "case.yaml");
  hopsim::RunOptions o;
  o.quiet = true;
  o.outputDir = out.string();
  o.restart = restart;
  return md::runMd(hopsim::io::md::parseMdCase(doc), o, ranks, doc.toJson());
}

void checkSameAtoms(const md::ParticleState& a, const md::ParticleState& b) {
  REQUIRE(a.size() > 0);
  REQUIRE(a.size() == b.size());
  CHECK((a.id == b.id));
  CHECK((a.x == b.x));
  CHECK((a.y == b.y));
  CHECK((a.z == b.z));
  CHECK((a.vx == b.vx));
  CHECK((a.vy == b.vy));
  CHECK((a.vz == b.vz));
}

const char* const kIntegrators[] = {"{type: nve, dt: 0.005}",
                                    "{type: langevin, dt: 0.005, temperature: 1.2, damping: 0.5, seed: 11}",
                                    "{type: nose_hoover, dt: 0.005, temperature: 1.2, tau: 0.5}"};

}  // namespace

TEST_CASE("a decomposed MD run continued from its checkpoint equals the uninterrupted run bitwise",
          "[mpi][md][checkpoint]") {
  for (const std::string integrator : kIntegrators) {
    INFO(integrator);
    const fs::path dir = sharedScratch("md_checkpoint");
    const fs::path whole = dir / "whole", parts = dir / "parts";
    const auto a = run(ljCase(integrator, 100), whole);
    REQUIRE(a.ok);
    REQUIRE(run(ljCase(integrator, 50), parts).ok);
    // Every rank wrote its own part.
    for (int r = 0; r < mpi::size(); ++r)
      CHECK(fs::exists(hopsim::io::checkpointPartFile(hopsim::io::checkpointFolder(parts, 50), r)));
    const auto b = run(ljCase(integrator, 100), parts, parts.string());
    REQUIRE(b.ok);
    REQUIRE(b.thermo.size() == 5);  // steps 60 .. 100
    for (std::size_t k = 0; k < b.thermo.size(); ++k) {
      CHECK(b.thermo[k].step == a.thermo[k + 6].step);
      CHECK(b.thermo[k].etotal == a.thermo[k + 6].etotal);
      CHECK(b.thermo[k].press == a.thermo[k + 6].press);
    }
    if (mpi::isRoot()) {
      checkSameAtoms(a.final, b.final);
      CHECK(fileText(whole / "thermo.csv") == fileText(parts / "thermo.csv"));
    }
    mpi::Comm::world().barrier();
    if (mpi::isRoot()) fs::remove_all(dir);
  }
}

TEST_CASE("a decomposed MD checkpoint is refused on another number of ranks, saying how many wrote it",
          "[mpi][md][checkpoint]") {
  if (mpi::size() == 1) return;  // the other rank counts run it
  const fs::path dir = sharedScratch("md_checkpoint_ranks");
  const std::string nve = ljCase(kIntegrators[0], 50);
  // One rank writes a checkpoint alone, then every rank tries to continue from it.
  if (mpi::isRoot()) REQUIRE(run(nve, dir / "one", "", md::MdRanks{mpi::Comm::self(), true}).ok);
  mpi::Comm::world().barrier();
  try {
    run(ljCase(kIntegrators[0], 100), dir / "many", (dir / "one").string());
    FAIL("a checkpoint of one rank was taken up by " << mpi::size());
  } catch (const hopsim::InputError& e) {
    const std::string what = e.what();
    INFO(what);
    if (mpi::isRoot()) CHECK(what.find(fmt::format("was written by 1 MPI rank(s), this run has {}", mpi::size())) !=
                             std::string::npos);
    else CHECK(what.find("it was written by fewer ranks") != std::string::npos);
  }
  mpi::Comm::world().barrier();
  if (mpi::isRoot()) fs::remove_all(dir);
}

TEST_CASE("the decomposed CUDA engine's MPI half saves and restores its state bitwise (host stand-in for the GPU)",
          "[mpi][md][checkpoint]") {
  for (const std::string integrator : kIntegrators) {
    INFO(integrator);
    const md::MdCase c = hopsim::io::md::parseMdCase(CaseDocument::fromString(ljCase(integrator, 100), "c.yaml"));
    const md::EngineConfig e = md::engineConfig(c);
    const hopsim::Decomposition d = md::decompose(c, mpi::Comm::world());
    const auto make = [&] {
      return md::makeDomainEngine<double>(
          e, d, mpi::Comm::world(),
          std::make_unique<md::test::HostDomainMdDevice<double>>(md::domainDeviceConfig(e, d, 0)));
    };
    const md::ParticleState start = md::initialState(c);
    auto whole = make();
    whole->initialize(start);
    for (long long s = 0; s < 100; s += 10) whole->advance(10, s);

    auto first = make();
    first->initialize(start);
    for (long long s = 0; s < 50; s += 10) first->advance(10, s);
    md::EngineState state;
    first->saveState(state);
    first.reset();
    auto second = make();
    second->restoreState(state);
    for (long long s = 50; s < 100; s += 10) second->advance(10, s);

    const md::RawThermo ta = whole->thermo(), tb = second->thermo();
    CHECK(ta.potential == tb.potential);
    CHECK(ta.twoKinetic == tb.twoKinetic);
    md::ParticleState a, b;
    whole->download(a);
    second->download(b);
    if (mpi::isRoot()) {
      md::sortById(a);
      md::sortById(b);
      checkSameAtoms(a, b);
    }
  }
}

// On the GPU machine under mpiexec (ctest's CPU runs exclude [gpu]): the decomposed CUDA engine continued from its
// checkpoint. NVE and Langevin: Nose-Hoover's kinetic sum is added with atomics on the GPU, not bitwise repeatable.
TEST_CASE("a decomposed CUDA MD run continued from its checkpoint equals the uninterrupted run bitwise",
          "[mpi][md][checkpoint][gpu]") {
  if (hopsim::cudaDeviceCount() == 0) {
    if (mpi::isRoot()) std::printf("  no CUDA device (or hopsim built without CUDA): GPU case skipped\n");
    return;
  }
  for (const std::string integrator : {kIntegrators[0], kIntegrators[1]}) {
    INFO(integrator);
    std::string yaml = ljCase(integrator, 100);
    yaml.replace(yaml.find("backend: cpu"), 12, "backend: cuda");
    std::string half = ljCase(integrator, 50);
    half.replace(half.find("backend: cpu"), 12, "backend: cuda");
    const fs::path dir = sharedScratch("md_checkpoint_gpu");
    const auto a = run(yaml, dir / "whole");
    REQUIRE(a.ok);
    REQUIRE(a.backend.rfind("cuda", 0) == 0);
    REQUIRE(run(half, dir / "parts").ok);
    const auto b = run(yaml, dir / "parts", (dir / "parts").string());
    REQUIRE(b.ok);
    if (mpi::isRoot()) checkSameAtoms(a.final, b.final);
    mpi::Comm::world().barrier();
    if (mpi::isRoot()) fs::remove_all(dir);
  }
}
