// A run's output written by the writer thread while it steps, and its observables read back in batches (issue
// 22): the same files, byte for byte, as the synchronous path (HOPSIM_SYNC_OUTPUT=1: each step's files written and
// each sample read back before the run goes on), and a write that fails in the writer thread ends the run with the
// error, once, leaving whole files only.
#include <hdf5.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "CatchCompat.h"
#include "CommandRun.h"
#include "ScratchDir.h"
#include "core/RunOptions.h"
#include "io/CaseReader.h"
#include "solvers/lbm/LbmRun.h"

namespace fs = std::filesystem;

namespace {

std::string bytesOf(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The files of a run's output folder that the two paths must write alike (run.json and hopsim.log hold times,
// view.py the folder it was written into).
std::vector<fs::path> outputFiles(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename() != "run.json" && e.path().filename() != "hopsim.log" &&
        e.path().filename() != "hopsim.lock" && e.path().filename() != "view.py")
      files.push_back(e.path().filename());
  std::sort(files.begin(), files.end());
  return files;
}

void runInto(const std::string& yaml, const fs::path& out, bool sync, int status = 0) {
  hopsim::RunOptions options;
  options.outputDir = out.string();
  options.quiet = true;
  options.syncOutput = sync;
  REQUIRE(hopsim::lbm::runCase(hopsim::io::CaseDocument::fromString(yaml, "async.yaml"), options) == status);
}

// Both paths on `yaml` (ending with `status`): every file the same bytes.
void checkSameFiles(const std::string& yaml, const ScratchDir& dir, int status = 0) {
  runInto(yaml, dir.path() / "thread", false, status);
  runInto(yaml, dir.path() / "sync", true, status);
  const auto files = outputFiles(dir.path() / "thread");
  CHECK(files == outputFiles(dir.path() / "sync"));
  int h5 = 0;
  for (const auto& f : files) {
    INFO(f);
    h5 += f.extension() == ".h5";
    CHECK(bytesOf(dir.path() / "thread" / f) == bytesOf(dir.path() / "sync" / f));
  }
  CHECK(h5 >= (status == 0 ? 5 : 1));
  const auto run = nlohmann::json::parse(bytesOf(dir.path() / "thread" / "run.json"));
  CHECK(run["field_output"]["how"] == "writer thread, overlapping the steps");
  CHECK(run["field_output"]["steps"] == h5);
}

}  // namespace

TEST_CASE("the writer thread writes the synchronous path's files byte for byte, observables.csv included",
          "[integration][lbm]") {
  ScratchDir dir("async_output");
  SECTION("D3Q19 single precision, flags, forces, observables every 10 steps") {
    // A lid-driven box with an obstacle: single-precision fields go out as floats; forces end chunks of their own.
    checkSameFiles("solver: lbm\nlattice: D3Q19\nprecision: single\ncollision: {model: trt}\n"
                   "domain: {cells: [20, 16, 12]}\nfluid: {viscosity: 0.064}\nboundaries:\n"
                   "  x-: {type: wall}\n  x+: {type: wall}\n  y-: {type: wall}\n  y+: {type: wall}\n"
                   "  z-: {type: wall}\n  z+: {type: moving_wall, velocity: [0.05, 0, 0]}\n"
                   "obstacles: [{name: box, shape: box, min: [8, 6, 3], max: [11, 9, 6]}]\n"
                   "run: {steps: 250}\n"
                   "output: {every: 50, fields: [density, velocity, flags], formats: [hdf5],\n"
                   "         observables: {every: 10}, forces: {every: 25, reference: {velocity: 0.05, area: 9}}}\n"
                   "device: {backend: cpu}\n",
                   dir);
  }
  SECTION("D2Q9 double precision, observables every step, gzip") {
    checkSameFiles("solver: lbm\nlattice: D2Q9\nprecision: double\ndomain: {cells: [48, 32], periodic: [x]}\n"
                   "fluid: {viscosity: 0.1}\nbody_force: [1.0e-5, 0]\nboundaries:\n"
                   "  y-: {type: wall}\n  y+: {type: wall}\nrun: {steps: 200}\n"
                   "output: {every: 40, compression: gzip, observables: {every: 1}}\n"
                   "device: {backend: cpu}\n",
                   dir);
  }
  SECTION("a run that blows up: the same rows up to the unstable sample, the same last fields") {
    // Samples read back in batches are checked in step order: rows, forces and fields stop where the per-sample
    // path stops, though the batched run has stepped past the bad sample.
    checkSameFiles("solver: lbm\nlattice: D2Q9\nprecision: double\ndomain: {cells: [32, 32]}\nfluid: {tau: 0.5001}\n"
                   "boundaries:\n  x-: {type: wall}\n  x+: {type: wall}\n  y-: {type: wall}\n"
                   "  y+: {type: moving_wall, velocity: [0.15, 0]}\n"
                   "obstacles: [{name: c, shape: circle, center: [16, 12], radius: 3}]\nrun: {steps: 2000}\n"
                   "output: {every: 20, observables: {every: 10},\n"
                   "         forces: {every: 5, reference: {velocity: 0.15, length: 6}}}\n"
                   "device: {backend: cpu}\n",
                   dir, 3);
  }
}

TEST_CASE("a field write that fails in the writer thread ends the run with its error once, whole files only",
          "[integration][lbm][write_failure]") {
  ScratchDir dir("async_write_failure");
  const fs::path caseFile = dir.path() / "case.yaml";
  fs::create_directories(dir.path());
  std::ofstream(caseFile) << "solver: lbm\nlattice: D2Q9\nprecision: single\ndomain: {cells: [64, 48]}\n"
                             "fluid: {viscosity: 0.05}\nboundaries:\n  x-: {type: wall}\n  x+: {type: wall}\n"
                             "  y-: {type: wall}\n  y+: {type: moving_wall, velocity: [0.05, 0]}\n"
                             "run: {steps: 2000}\noutput: {every: 100, observables: {every: 10}}\n"
                             "device: {backend: cpu}\n";
  for (const bool sync : {false, true}) {
    INFO((sync ? "synchronous" : "writer thread"));
    const fs::path out = dir.path() / (sync ? "sync" : "thread");
    // The file of step 300 fails halfway through (its first dataset written); `timeout` turns a hang into a failure.
    const CommandResult r =
        runCommand(std::string("HOPSIM_INJECT_FIELD_WRITE_FAILURE=300") + (sync ? " HOPSIM_SYNC_OUTPUT=1" : "") +
                   " timeout 60 " + HOPSIM_BINARY + " run " + caseFile.string() + " --quiet --output " + out.string() +
                   " 2>&1");
    INFO(r.output);
    CHECK(r.code == 1);
    std::size_t reports = 0;
    for (std::size_t at = r.output.find("HOPSIM_INJECT_FIELD_WRITE_FAILURE"); at != std::string::npos;
         at = r.output.find("HOPSIM_INJECT_FIELD_WRITE_FAILURE", at + 1))
      ++reports;
    CHECK(reports == 1);
    CHECK(r.output.find("error: ") != std::string::npos);
    // Nothing of step 300 or later under a final name, no temporary file left, and every file there whole.
    const std::string series = bytesOf(out / "fields.xmf");
    for (const auto& e : fs::directory_iterator(out)) {
      const std::string name = e.path().filename().string();
      INFO(name);
      CHECK(name.find(".tmp") == std::string::npos);
      if (e.path().extension() != ".h5") continue;
      CHECK(std::stoll(name.substr(7, 9)) < 300);
      CHECK(series.find(name) != std::string::npos);
      const hid_t f = H5Fopen(e.path().string().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
      REQUIRE(f >= 0);
      const hid_t d = H5Dopen2(f, "velocity", H5P_DEFAULT);
      CHECK(d >= 0);
      if (d >= 0) H5Dclose(d);
      H5Fclose(f);
    }
    CHECK(fs::exists(out / "fields_000000200.h5"));
  }
}
