// The CUDA backend's overlapped output (issue 22): fields copied to pinned host slots on a stream of their own and
// written by the writer thread, observables folded into a device-side ring and read back in batches. Both must give
// the files of the synchronous path (each sample read back at once, each step's files written before the run goes
// on), byte for byte: the same kernels compute the same values either way. Except forces.csv: the CUDA backend sums
// an obstacle's force over its links with atomicAdd, in no fixed order, so two runs of the same kernels agree to
// round-off of the sum (1e-10 of the row's largest force or coefficient), not bitwise.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "CatchCompat.h"
#include "ScratchDir.h"
#include "core/RunOptions.h"
#include "io/CaseReader.h"
#include "kernels/common/DeviceInfo.h"
#include "solvers/lbm/LbmRun.h"

namespace fs = std::filesystem;

namespace {

std::string bytesOf(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<std::vector<std::string>> csvRows(const fs::path& p) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(bytesOf(p));
  for (std::string line; std::getline(in, line);) {
    rows.emplace_back();
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) rows.back().push_back(cell);
  }
  return rows;
}

// forces.csv of two runs: the same rows, steps and obstacles; each number within 1e-10 of its row's largest.
void checkForcesAgree(const fs::path& a, const fs::path& b) {
  const auto ra = csvRows(a), rb = csvRows(b);
  REQUIRE(ra.size() == rb.size());
  REQUIRE(!ra.empty());
  CHECK(ra[0] == rb[0]);
  for (std::size_t r = 1; r < ra.size(); ++r) {
    REQUIRE(ra[r].size() == rb[r].size());
    CHECK(ra[r][0] == rb[r][0]);  // step
    CHECK(ra[r][1] == rb[r][1]);  // obstacle
    double largest = 0;
    for (std::size_t c = 2; c < ra[r].size(); ++c) largest = std::max(largest, std::abs(std::stod(ra[r][c])));
    for (std::size_t c = 2; c < ra[r].size(); ++c)
      CHECK(std::abs(std::stod(ra[r][c]) - std::stod(rb[r][c])) <= 1e-10 * largest + 1e-300);
  }
}

void runInto(const std::string& yaml, const fs::path& out, bool sync) {
  hopsim::RunOptions options;
  options.outputDir = out.string();
  options.quiet = true;
  options.syncOutput = sync;
  REQUIRE(hopsim::lbm::runCase(hopsim::io::CaseDocument::fromString(yaml, "async_gpu.yaml"), options) == 0);
}

}  // namespace

TEST_CASE("CUDA LBM: the observables ring and the writer thread give the synchronous path's files", "[gpu][lbm]") {
  if (hopsim::cudaDeviceCount() == 0) return;
  ScratchDir dir("async_output_gpu");
  for (const std::string precision : {"single", "double", "half"}) {
    INFO(precision);
    // Observables every step: the ring fills and is read back in batches many times over the run.
    const std::string yaml =
        "solver: lbm\nlattice: D3Q19\nprecision: " + precision + "\ncollision: {model: trt}\n"
        "domain: {cells: [48, 40, 32]}\nfluid: {viscosity: 0.064}\nboundaries:\n"
        "  x-: {type: wall}\n  x+: {type: wall}\n  y-: {type: wall}\n  y+: {type: wall}\n"
        "  z-: {type: wall}\n  z+: {type: moving_wall, velocity: [0.05, 0, 0]}\n"
        "obstacles: [{name: box, shape: box, min: [20, 16, 8], max: [27, 23, 15]}]\n"
        "run: {steps: 2500}\n"
        "output: {every: 250, fields: [density, velocity, flags], observables: {every: 1},\n"
        "         forces: {every: 100, reference: {velocity: 0.05, area: 49}}}\n"
        "device: {backend: cuda}\n";
    const fs::path thread = dir.path() / (precision + "_thread"), sync = dir.path() / (precision + "_sync");
    runInto(yaml, thread, false);
    runInto(yaml, sync, true);
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(sync))
      if (e.path().filename() != "run.json" && e.path().filename() != "hopsim.log" &&
          e.path().filename() != "view.py")
        files.push_back(e.path().filename());
    std::sort(files.begin(), files.end());
    // 11 field steps, the series, observables.csv, forces.csv (run.json and hopsim.log, which hold times, and view.py,
    // which holds its folder, left out)
    CHECK(files.size() == 11 + 3);
    for (const auto& f : files) {
      INFO(f);
      if (f == "forces.csv") checkForcesAgree(thread / f, sync / f);
      else CHECK(bytesOf(thread / f) == bytesOf(sync / f));
    }
  }
}
