// `hopsim compare`: bench documents (single runs or suites) from several machines, matched run by run, with the
// ratio of step times, each machine's fraction of its own copy bandwidth, and what the copy bandwidths alone
// predict; and projections of a measured file onto GPUs known by their datasheets.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hopsim {

struct BenchFile {
  std::string path;
  std::string label;  // the file's name without .json, made unique among the files compared
  nlohmann::json doc;
};

// Reads and checks a bench document. InputError "path: what is wrong" for a file that cannot be read, is not JSON
// (with its line and column), is not a hopsim bench document or has another major schema version.
BenchFile readBenchFile(const std::string& path);

// Compares every file with files[baseline], run by run (matched by id). The result:
//   files: label, path, gpu, backend, copy_bandwidth_gbs, git_commit, build_type, date_utc, suite notes;
//   baseline: the baseline's index;
//   runs: per id in the baseline's order (then ids the baseline lacks): solver, unit, per file its step time (ms:
//         median, min, max), throughput median and fraction of copy bandwidth (null where the file lacks the run or
//         the run failed), and per other file the speed ratio over the baseline (baseline step time / its step
//         time: above 1 is faster) with its range from the repeats' extremes, the ratio the copy bandwidths predict
//         and measured / predicted;
//   hopper_gain: per file and Hopper-kernel run, the portable run's step time over the Hopper run's;
//   missing: ids some files lack, and which;
//   warnings: differing builds, backends or clocks, sized-down suites, failed runs.
// InputError when another file shares no run with the baseline.
nlohmann::json compareBench(const std::vector<BenchFile>& files, std::size_t baseline = 0);

// The comparison as text: "table" (aligned columns), "markdown" or "csv".
std::string formatComparison(const nlohmann::json& comparison, const std::string& format);

// GPUs nobody here may have, by their datasheet memory bandwidth and whether they have thread block clusters and
// TMA (the Hopper kernels).
struct GpuDatasheet {
  std::string key;  // the --project name: a100-40gb, a100-80gb, a100-80gb-pcie, h100-pcie, h100-sxm, h100-nvl, h200
  std::string name;
  double bandwidthGBs;
  bool hopperFeatures;
  double memoryGB;  // HBM capacity, 1e9 bytes
};
const std::vector<GpuDatasheet>& knownGpus();

// Step times of a measured file projected onto `target` (a knownGpus key): each run's step time scaled by the
// ratio of the datasheet bandwidths, i.e. the target is assumed to reach the same fraction of its datasheet
// bandwidth as the measured GPU did. Hopper-kernel runs are left out for a target without clusters and TMA. The
// measured GPU's datasheet figure comes from the same table by its name, else from its clocks and bus width. Runs
// that would not fit the target's memory (the suite's estimate, suiteRunDeviceBytes) are left out too, with why:
// the suite sizes them down there. left_out: [{id, why}].
// InputError for an unknown target, or a file without a GPU.
nlohmann::json projectBench(const BenchFile& measured, const std::string& target);
std::string formatProjection(const nlohmann::json& projection, const std::string& format);

}  // namespace hopsim
