// `hopsim bench --suite standard`: a fixed, versioned list of LBM and MD runs that every machine runs the same way,
// sized down (and saying so) where memory is short, through the single-case benches (LbmBench, MdBench).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/DevicePlan.h"

namespace hopsim {

// Bumped whenever a case, a size, a step count or a variant of the suite changes: results of different suite
// versions are not the same measurement.
inline constexpr int kStandardSuiteVersion = 1;

// full: the sizes users quote (GPU), or smaller ones for the cpu backend; tiny: a few seconds on two cores (CI).
enum class SuiteScale { Full, Tiny };
const char* toString(SuiteScale s);

// Cases may take this share of the free memory: the rest is the CUDA context, graphs, observables' scratch.
inline constexpr double kSuiteUsableShare = 0.85;

// The device memory a run of a bench document needs, by the estimate the suite sizes its cases with (LBM: two
// lattices and a flag byte per cell; MD: a generous figure per atom); 0 when the record lacks what it takes.
double suiteRunDeviceBytes(const nlohmann::json& run);

// One case of the suite: a case file (shipped in inputs/, or written by the suite) with overrides, the kernel
// families to time and the memory it needs.
struct SuiteCase {
  std::string solver;                   // lbm or md
  std::string geometry;                 // the run ids' geometry or system name: periodic, cavity3d, cylinder2d, lj
  std::string source;                   // a case file under the source tree's inputs/, or empty for `text`
  std::string text;                     // the case as YAML, where the suite writes it
  std::vector<std::string> overrides;   // key.path=value, as `--set`
  std::vector<KernelVariant> variants;  // LBM on cuda: portable, and hopper on compute capability 9.x where built
  long long steps = 0;                  // timed steps per repeat; 0: the bench's default (LBM: about 0.5 s)
  int repeats = 5;
  double bytes = 0;                     // memory the case needs on its device, estimated
  std::string size;                     // "256x256x256", "32000 atoms"
  std::string label;                    // for the progress lines: "lbm periodic D3Q19 half 256x256x256"
};

struct SuitePlan {
  std::vector<SuiteCase> cases;
  std::vector<std::string> notes;  // what was sized down or left out, and why
};

// The standard suite for a backend and scale with `memoryBytes` free on the device (GPU memory on cuda, MemAvailable
// on cpu; 0: unknown, nothing is sized down) and, on cuda, `hostMemoryBytes` of host memory for the initial state
// (0: unknown); `hopper`: the GPU runs the Hopper kernels. Pure, so sizing down is testable with any memory size.
SuitePlan planStandardSuite(Backend backend, SuiteScale scale, double memoryBytes, bool hopper,
                            double hostMemoryBytes = 0);

struct SuiteOptions {
  std::string name = "standard";
  Backend backend = Backend::Auto;
  SuiteScale scale = SuiteScale::Full;
  std::function<void(const std::string&)> progress;  // one line per case started and per run finished
};

// Plans the suite for this machine, measures the copy bandwidth once, runs every case (a case that fails is
// recorded as a run with its error, and the suite goes on) and returns one bench document with a `suite` block:
// name, version, scale, backend, notes.
nlohmann::json runSuite(const SuiteOptions& o);

}  // namespace hopsim
