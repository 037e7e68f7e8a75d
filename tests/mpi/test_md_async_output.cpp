// The overlapped MD output of a decomposed run (issue 22): frames gathered on the main thread of every rank and
// written by rank 0's writer thread, thermo sums reduced where the loop samples them: the same thermo.csv and
// trajectory as the synchronous path (HOPSIM_SYNC_OUTPUT=1), byte for byte.
#include <cstdlib>
#include <filesystem>
#include <string>

#include "CatchCompat.h"
#include "FileText.h"
#include "MpiScratch.h"
#include "core/Mpi.h"
#include "io/CaseReader.h"
#include "io/md/H5mdReader.h"
#include "io/md/MdCaseParser.h"
#include "solvers/md/MdSimulation.h"

namespace fs = std::filesystem;
namespace md = hopsim::md;
namespace mpi = hopsim::mpi;

using hopsim::testing::fileText;

namespace {

// 864 atoms, thermo every 10, a frame every 20.
const char* kCase =
    "solver: md\nprecision: single\nsystem: {lattice: {type: fcc, density: 0.8442, cells: [6, 6, 6]}}\n"
    "potential: {type: lj, cutoff: 2.5}\nneighbor: {skin: 0.3}\nvelocity: {temperature: 1.44, seed: 87287}\n"
    "integrator: {type: nve, dt: 0.005}\nrun: {steps: 100}\nthermo: {every: 10}\n"
    "output: {dir: unused, every: 20, formats: [h5md]}\ndevice: {backend: cpu}\n";

md::MdRunResult run(const fs::path& out, bool sync) {
  if (sync) ::setenv("HOPSIM_SYNC_OUTPUT", "1", 1);
  else ::unsetenv("HOPSIM_SYNC_OUTPUT");
  const auto doc = hopsim::io::CaseDocument::fromString(kCase, "case.yaml");
  hopsim::RunOptions o;
  o.quiet = true;
  o.outputDir = out.string();
  auto r = md::runMd(hopsim::io::md::parseMdCase(doc), o, md::MdRanks{mpi::Comm::world(), true}, doc.toJson());
  ::unsetenv("HOPSIM_SYNC_OUTPUT");
  return r;
}

}  // namespace

TEST_CASE("mpi md: a decomposed run's overlapped output equals the synchronous path's", "[mpi][md]") {
  const fs::path dir = sharedScratch("md_async_output");
  const auto a = run(dir / "sync", true);
  const auto b = run(dir / "async", false);
  REQUIRE(a.ok);
  REQUIRE(b.ok);
  REQUIRE(a.thermo.size() == b.thermo.size());
  for (std::size_t k = 0; k < a.thermo.size(); ++k) CHECK(a.thermo[k].etotal == b.thermo[k].etotal);
  if (mpi::isRoot()) {
    CHECK(fileText(dir / "sync" / "thermo.csv") == fileText(dir / "async" / "thermo.csv"));
    CHECK(fileText(dir / "sync" / "trajectory.xmf") == fileText(dir / "async" / "trajectory.xmf"));
    CHECK(fileText(dir / "sync" / "trajectory.h5") == fileText(dir / "async" / "trajectory.h5"));
    for (long long frame = 0; frame < 6; ++frame) {
      INFO("frame " << frame);
      const auto x = hopsim::io::md::readH5mdFrame((dir / "sync" / "trajectory.h5").string(), frame);
      const auto y = hopsim::io::md::readH5mdFrame((dir / "async" / "trajectory.h5").string(), frame);
      CHECK(y.frames == 6);
      CHECK((x.state.id == y.state.id));
      CHECK((x.state.x == y.state.x));
      CHECK((x.state.vy == y.state.vy));
    }
  }
  mpi::barrier();
  if (mpi::isRoot()) fs::remove_all(dir);
}
