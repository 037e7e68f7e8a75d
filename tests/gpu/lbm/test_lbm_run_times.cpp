// The run summary's figures on the GPU (issue 22): the update's MLUPS must be one the memory allows. Before the
// update was timed to the end of the GPU work, a run's summary claimed about 1.6 million MLUPS on an H200 (the
// launches were timed, not the steps); this test fails on such a figure.
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "CatchCompat.h"
#include "ScratchDir.h"
#include "core/RunOptions.h"
#include "io/CaseReader.h"
#include "kernels/common/CopyBandwidth.h"
#include "kernels/common/DeviceInfo.h"
#include "solvers/lbm/LbmRun.h"

TEST_CASE("CUDA LBM run: the summary's update MLUPS stays under the copy-bandwidth roofline", "[gpu][lbm]") {
  if (hopsim::cudaDeviceCount() == 0) return;
  ScratchDir dir("run_times");
  // A bounded case with output, as users run it: fields every 100 steps, observables every 10.
  const std::string yaml = R"(solver: lbm
lattice: D3Q19
precision: single
collision: {model: trt}
domain: {cells: [128, 128, 128]}
fluid: {viscosity: 0.064}
boundaries:
  x-: {type: wall}
  x+: {type: wall}
  y-: {type: wall}
  y+: {type: wall}
  z-: {type: wall}
  z+: {type: moving_wall, velocity: [0.05, 0, 0]}
run: {steps: 400}
output: {every: 100, fields: [density, velocity], formats: [hdf5], observables: {every: 10}}
device: {backend: cuda}
)";
  hopsim::RunOptions options;
  options.outputDir = dir.path().string();
  options.quiet = true;
  REQUIRE(hopsim::lbm::runCase(hopsim::io::CaseDocument::fromString(yaml, "run_times.yaml"), options) == 0);

  std::ifstream in(dir.path() / "run.json");
  const auto run = nlohmann::json::parse(in);
  const auto& t = run["timings"];
  const double mlups = t["mlups"].get<double>(), wallMlups = t["mlups_wall"].get<double>();
  const auto copy = hopsim::measureCopyBandwidth(0);
  REQUIRE(copy.has_value());
  // D3Q19 FP32 moves 152 bytes per cell update; a kernel can beat the copy kernel by a few percent (measured: 1.7%
  // for FP64), so 5% above the copy roofline is the most an honest figure can claim.
  const double roofline = copy->medianGBs * 1e9 / 152.0 / 1e6;
  INFO("update " << mlups << " MLUPS, whole run " << wallMlups << " MLUPS, roofline " << roofline << " MLUPS");
  CHECK(mlups > 0);
  CHECK(mlups <= 1.05 * roofline);
  CHECK(wallMlups <= mlups);
  // The phases add up to the wall time.
  double phases = 0;
  for (const auto& [name, seconds] : t["phases"].items()) phases += seconds.get<double>();
  CHECK(std::abs(phases - t["wall_seconds"].get<double>()) <= 0.05 * t["wall_seconds"].get<double>());
}
