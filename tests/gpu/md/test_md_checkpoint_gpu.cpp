// Checkpoint and restart on the cuda backend: a CUDA run continued from a checkpoint ends in the uninterrupted CUDA
// run's atoms bitwise, with the same thermo.csv. NVE and Langevin only: the CUDA engine sums the kinetic energy Nose-
// Hoover reads with atomics across blocks, whose order varies from run to run, so two uninterrupted Nose-Hoover runs
// already differ in the last bits.
#include <cstdio>
#include <filesystem>
#include <string>

#include "CatchCompat.h"
#include "HaveGpu.h"
#include "ScratchDir.h"
#include "io/CaseReader.h"
#include "io/md/MdCaseParser.h"
#include "kernels/common/DeviceInfo.h"
#include "solvers/md/MdSimulation.h"

namespace fs = std::filesystem;

namespace {

using hopsim::testing::haveGpu;

// 4000 atoms (fcc 10^3: the row-wise list build, five half-range bins per axis), a checkpoint every 100 steps.
std::string ljCase(const std::string& integrator, long long steps, const std::string& precision) {
  return "solver: md\nprecision: " + precision +
         "\nsystem: {lattice: {type: fcc, density: 0.8442, cells: [10, 10, 10]}}\n"
         "potential: {type: lj, cutoff: 2.5}\nneighbor: {skin: 0.3}\nvelocity: {temperature: 1.44, seed: 5}\n"
         "integrator: " + integrator + "\nrun: {steps: " + std::to_string(steps) +
         "}\nthermo: {every: 20}\noutput: {dir: unused, every: 100, formats: [h5md], checkpoint: {every: 100}}\n"
         "device: {backend: cuda}\n";
}

hopsim::md::MdRunResult run(const std::string& yaml, const fs::path& out, const std::string& restart = "") {
  const auto doc = hopsim::io::CaseDocument::fromString(yaml, "case.yaml");
  hopsim::RunOptions o;
  o.quiet = true;
  o.outputDir = out.string();
  o.restart = restart;
  return hopsim::md::runMd(hopsim::io::md::parseMdCase(doc), o, doc.toJson());
}

}  // namespace

TEST_CASE("gpu md: a CUDA run continued from a checkpoint equals the uninterrupted CUDA run bitwise", "[gpu][md]") {
  if (!haveGpu()) return;
  for (const std::string precision : {"double", "mixed", "single"})
    for (const std::string integrator :
         {"{type: nve, dt: 0.005}", "{type: langevin, dt: 0.005, temperature: 1.2, damping: 0.5, seed: 11}"}) {
      INFO(precision << " " << integrator);
      ScratchDir dir("md_checkpoint_gpu");
      const fs::path whole = dir.path() / "whole", parts = dir.path() / "parts";
      const auto a = run(ljCase(integrator, 400, precision), whole);
      REQUIRE(a.ok);
      REQUIRE(run(ljCase(integrator, 200, precision), parts).ok);
      const auto b = run(ljCase(integrator, 400, precision), parts, parts.string());
      REQUIRE(b.ok);
      REQUIRE(a.final.size() == b.final.size());
      CHECK((a.final.id == b.final.id));
      CHECK((a.final.x == b.final.x));
      CHECK((a.final.y == b.final.y));
      CHECK((a.final.z == b.final.z));
      CHECK((a.final.vx == b.final.vx));
      CHECK((a.final.vy == b.final.vy));
      CHECK((a.final.vz == b.final.vz));
      // Energies are block sums added with atomics in any order: the rows agree to rounding, not bitwise.
      REQUIRE(b.thermo.size() == 10);
      for (std::size_t k = 0; k < b.thermo.size(); ++k) {
        CHECK(b.thermo[k].step == a.thermo[k + 11].step);
        CHECK(b.thermo[k].etotal == Approx(a.thermo[k + 11].etotal).epsilon(1e-12));
      }
    }
}
