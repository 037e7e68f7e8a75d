// The CUDA engine's thermo ring and frame copies (issue 22): samples read back in a batch are the sums thermo() reads
// at each sample, bitwise; a frame copy holds the state at startFrameCopy() however far the engine has run on before
// it is read (ordered by id on the GPU where the ids are a range); a whole CUDA run writes the same trajectory and
// thermo rows with the writer thread and the thermo batches as with HOPSIM_SYNC_OUTPUT=1.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "CatchCompat.h"
#include "HaveGpu.h"
#include "ScratchDir.h"
#include "io/CaseReader.h"
#include "io/md/H5mdReader.h"
#include "io/md/MdCaseParser.h"
#include "kernels/common/DeviceInfo.h"
#include "kernels/md/MdEngine.h"
#include "solvers/md/InitialState.h"
#include "solvers/md/MdSimulation.h"

namespace fs = std::filesystem;
using namespace hopsim::md;

namespace {

using hopsim::testing::haveGpu;

// 4000 atoms (fcc 10^3: the row-wise list build), thermo every 10 steps, a frame every 50.
std::string ljCase(const std::string& precision, long long steps) {
  return "solver: md\nprecision: " + precision +
         "\nsystem: {lattice: {type: fcc, density: 0.8442, cells: [10, 10, 10]}}\n"
         "potential: {type: lj, cutoff: 2.5}\nneighbor: {skin: 0.3}\nvelocity: {temperature: 1.44, seed: 5}\n"
         "integrator: {type: nve, dt: 0.005}\nrun: {steps: " + std::to_string(steps) +
         "}\nthermo: {every: 10}\noutput: {dir: unused, every: 50, formats: [h5md]}\ndevice: {backend: cuda}\n";
}

MdCase parse(const std::string& yaml) {
  return hopsim::io::md::parseMdCase(hopsim::io::CaseDocument::fromString(yaml, "case.yaml"));
}

std::vector<double> values(const HostFrame& f, const std::array<const void*, 3>& a, int axis) {
  std::vector<double> v(f.n);
  for (std::size_t k = 0; k < f.n; ++k)
    v[k] = f.valueBytes == 4 ? static_cast<const float*>(a[axis])[k] : static_cast<const double*>(a[axis])[k];
  return v;
}

}  // namespace

TEST_CASE("gpu md: thermo samples read back from the device ring equal thermo() at each sample", "[gpu][md]") {
  if (!haveGpu()) return;
  for (const std::string precision : {"single", "mixed", "double"}) {
    INFO(precision);
    const MdCase c = parse(ljCase(precision, 100));
    auto engine = makeCudaEngine(engineConfig(c), 0);
    engine->initialize(initialState(c));
    std::vector<RawThermo> direct;
    long long step = 0;
    for (int k = 0; k < 12; ++k, step += 10) {
      engine->advance(10, step);
      engine->sampleThermo();
      direct.push_back(engine->thermo());  // reads the same sums, synchronising
    }
    const std::vector<RawThermo> ring = engine->readThermo();
    REQUIRE(ring.size() == direct.size());
    for (std::size_t k = 0; k < ring.size(); ++k) {
      CHECK(ring[k].potential == direct[k].potential);
      CHECK(ring[k].virial == direct[k].virial);
      CHECK(ring[k].twoKinetic == direct[k].twoKinetic);
      CHECK(ring[k].finite);
    }
    CHECK(engine->readThermo().empty());
    CHECK(engine->thermoRingCapacity() >= 16);
  }
}

TEST_CASE("gpu md: a frame copy holds the state at startFrameCopy while the engine runs on", "[gpu][md]") {
  if (!haveGpu()) return;
  for (const std::string precision : {"single", "mixed"})
    for (const bool sparseIds : {false, true}) {
      INFO(precision << (sparseIds ? ", ids 0, 3, 6, ..." : ", ids a range"));
      const MdCase c = parse(ljCase(precision, 100));
      auto engine = makeCudaEngine(engineConfig(c), 0);
      ParticleState start = initialState(c);
      if (sparseIds)
        for (long long& id : start.id) id *= 3;
      engine->initialize(start);
      engine->advance(20, 0);
      ParticleState at20[2];
      for (int slot = 0; slot < 2; ++slot) {
        engine->startFrameCopy(slot);
        engine->download(at20[slot]);  // the same state, read synchronously (in the engine's order)
        engine->advance(30, 20 + 30 * slot);
      }
      for (int slot = 0; slot < 2; ++slot) {
        const HostFrame f = engine->frameCopy(slot);
        const ParticleState& s = at20[slot];
        REQUIRE(f.n == s.size());
        CHECK(f.valueBytes == (precision == "single" ? 4 : 8));
        // Ids that are a range come ordered by id (on the GPU); others in the engine's order. Atom by atom:
        if (!sparseIds) CHECK(std::is_sorted(f.id, f.id + f.n));
        else CHECK(std::memcmp(f.id, s.id.data(), f.n * sizeof(long long)) == 0);
        std::unordered_map<long long, std::size_t> row;
        for (std::size_t k = 0; k < s.size(); ++k) row[s.id[k]] = k;
        REQUIRE(row.size() == f.n);
        const std::vector<double> x = values(f, f.x, 0), z = values(f, f.x, 2), vy = values(f, f.v, 1);
        std::size_t same = 0;
        for (std::size_t k = 0; k < f.n; ++k) {
          const auto it = row.find(f.id[k]);
          if (it != row.end() && x[k] == s.x[it->second] && z[k] == s.z[it->second] && vy[k] == s.vy[it->second])
            ++same;
        }
        CHECK(same == f.n);
      }
      // The engine did run on: its state now differs from the copies'.
      ParticleState now;
      engine->download(now);
      CHECK_FALSE((now.x == at20[1].x));
    }
}

TEST_CASE("gpu md: a CUDA run writes the same trajectory with the writer thread as synchronously", "[gpu][md]") {
  if (!haveGpu()) return;
  ScratchDir dir("md_async_output_gpu");
  MdRunResult r[2];
  for (int sync = 0; sync < 2; ++sync) {
    if (sync) ::setenv("HOPSIM_SYNC_OUTPUT", "1", 1);
    else ::unsetenv("HOPSIM_SYNC_OUTPUT");
    const auto doc = hopsim::io::CaseDocument::fromString(ljCase("mixed", 300), "case.yaml");
    hopsim::RunOptions o;
    o.quiet = true;
    o.outputDir = (dir.path() / (sync ? "sync" : "async")).string();
    r[sync] = runMd(hopsim::io::md::parseMdCase(doc), o, doc.toJson());
    ::unsetenv("HOPSIM_SYNC_OUTPUT");
    REQUIRE(r[sync].ok);
  }
  // Positions are bitwise reproducible on the GPU (the checkpoint tests rely on it); energies are block sums added
  // with atomics in any order, equal to rounding between two runs.
  REQUIRE(r[0].thermo.size() == r[1].thermo.size());
  for (std::size_t k = 0; k < r[0].thermo.size(); ++k) {
    CHECK(r[0].thermo[k].step == r[1].thermo[k].step);
    CHECK(r[0].thermo[k].etotal == Approx(r[1].thermo[k].etotal).epsilon(1e-12));
  }
  for (long long frame = 0; frame < 7; ++frame) {
    INFO("frame " << frame);
    const auto a = hopsim::io::md::readH5mdFrame((dir.path() / "async" / "trajectory.h5").string(), frame);
    const auto b = hopsim::io::md::readH5mdFrame((dir.path() / "sync" / "trajectory.h5").string(), frame);
    CHECK(a.frames == 7);
    CHECK((a.state.id == b.state.id));
    CHECK((a.state.x == b.state.x));
    CHECK((a.state.y == b.state.y));
    CHECK((a.state.vz == b.state.vz));
  }
}
