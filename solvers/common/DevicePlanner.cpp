// The device plan of a run: the one place that resolves the backend and GPU and reads the environment's overrides.
#include "solvers/common/DevicePlanner.h"

#include <fmt/format.h>

#include <cstdlib>
#include <string>

#include "core/ExitCode.h"
#include "kernels/common/DeviceInfo.h"

namespace hopsim {
namespace {

const char* environment(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

[[noreturn]] void badValue(const char* name, const char* value, const char* expected) {
  throw InputError(fmt::format("{}={}: expected {}", name, value, expected));
}

int integerFrom(const char* name, int lo, int hi) {
  const char* v = environment(name);
  if (!v) return 0;
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  if (*end || x < lo || x > hi) badValue(name, v, fmt::format("an integer in [{}, {}]", lo, hi).c_str());
  return static_cast<int>(x);
}

// One of `allowed` (its value: the position in the list), or `unset` where the variable is not set; anything else
// is an error that lists `allowed` ("a, b or c").
int choiceFrom(const char* name, std::initializer_list<const char*> allowed, int unset) {
  const char* v = environment(name);
  if (!v) return unset;
  int i = 0;
  std::string expected;
  for (const char* a : allowed) {
    if (std::string(v) == a) return i;
    expected += (i == 0 ? "" : i + 1 == static_cast<int>(allowed.size()) ? " or " : ", ") + std::string(a);
    ++i;
  }
  badValue(name, v, expected.c_str());
}

}  // namespace

DeviceOverrides readDeviceOverrides() {
  using lbm::StreamingLayout;
  using lbm::TileLoad;
  DeviceOverrides o;
  constexpr StreamingLayout layouts[] = {StreamingLayout::TwoLattice, StreamingLayout::InPlace, StreamingLayout::Auto};
  if (const int l = choiceFrom("HOPSIM_LBM_LAYOUT", {"two-lattice", "in-place", "auto"}, -1); l >= 0)
    o.layout = layouts[l];
  o.blockThreads = integerFrom("HOPSIM_LBM_BLOCK_THREADS", 64, 256);
  o.graphSteps = integerFrom("HOPSIM_LBM_GRAPH_STEPS", 2, 4096);
  o.halfPairs = choiceFrom("HOPSIM_LBM_HALF_PAIRS", {"0", "1"}, -1);
  o.wallsInBulk = choiceFrom("HOPSIM_LBM_WALLS_IN_BULK", {"0", "1"}, -1);
  o.openMoments = choiceFrom("HOPSIM_LBM_OPEN_MOMENTS", {"0", "1"}, -1);
  o.openInBulk = choiceFrom("HOPSIM_LBM_OPEN_IN_BULK", {"0", "1"}, -1);
  o.openWrap = choiceFrom("HOPSIM_LBM_OPEN_WRAP", {"0", "1"}, -1);
  o.keepFaces = choiceFrom("HOPSIM_LBM_KEEP_FACES", {"0", "1"}, -1);
  o.sideStream = choiceFrom("HOPSIM_LBM_SIDE_STREAM", {"0", "1"}, -1);
  if (environment("HOPSIM_LBM_SIDE_BLOCKS")) o.sideBlocks = integerFrom("HOPSIM_LBM_SIDE_BLOCKS", 0, 1 << 20);
  o.graphPriority = choiceFrom("HOPSIM_LBM_GRAPH_PRIORITY", {"0", "1"}, -1);
  o.sampleInStep = choiceFrom("HOPSIM_LBM_SAMPLE_IN_STEP", {"0", "1"}, -1);
  o.hopperCluster = integerFrom("HOPSIM_HOPPER_CLUSTER", 0, 16);
  constexpr TileLoad loads[] = {TileLoad::Tma, TileLoad::Plain, TileLoad::Auto};
  if (const int t = choiceFrom("HOPSIM_HOPPER_TILE_LOAD", {"tma", "plain", "auto"}, -1); t >= 0)
    o.tileLoad = loads[t];
  constexpr int steps[] = {1, 2, 4, DeviceOverrides::kStepsAuto, DeviceOverrides::kStepsOff};
  if (const int k = choiceFrom("HOPSIM_HOPPER_STEPS", {"1", "2", "4", "auto", "off"}, -1); k >= 0)
    o.hopperSteps = steps[k];
  o.temporalCluster = integerFrom("HOPSIM_HOPPER_TEMPORAL_CLUSTER", 0, 8);
  if (const int b = choiceFrom("HOPSIM_HOPPER_OPEN_BLOCKS", {"3", "4"}, -1); b >= 0) o.temporalOpenBlocks = 3 + b;
  constexpr int waves[] = {0, 1, 2, 4};
  if (const int w = choiceFrom("HOPSIM_LBM_PREFETCH_WAVES", {"0", "1", "2", "4"}, -1); w >= 0)
    o.prefetchWaves = waves[w];
  o.skipHalo = choiceFrom("HOPSIM_LBM_SKIP_HALO", {"0", "1"}, 0) == 1;
  if (environment("HOPSIM_CPU_CELLS_PER_THREAD"))
    o.cpuCellsPerThread = integerFrom("HOPSIM_CPU_CELLS_PER_THREAD", 0, 1 << 30);
  constexpr int groups[] = {1, 2, 4, 8, 16, 32};
  if (const int g = choiceFrom("HOPSIM_MD_THREADS_PER_ATOM", {"1", "2", "4", "8", "16", "32"}, -1); g >= 0)
    o.mdThreadsPerAtom = groups[g];
  o.mdHostRebuild = choiceFrom("HOPSIM_MD_HOST_REBUILD", {"0", "1"}, 0) == 1;
  return o;
}

DevicePlan planDevice(const DeviceSpec& spec, const RunOptions& options, int defaultGpu) {
  DevicePlan plan;
  plan.overrides = readDeviceOverrides();
  plan.halo = spec.halo;
  plan.kernels = options.kernels.value_or(spec.kernels);
  const Backend asked = options.backend.value_or(spec.backend);
  const int gpus = cudaDeviceCount();
  if (asked == Backend::Auto) {
    plan.backend = gpus > 0 ? Backend::Cuda : Backend::Cpu;
    plan.why = gpus > 0 ? "backend auto: a GPU is present" : "backend auto: no GPU";
  } else {
    plan.backend = asked;
    plan.why = fmt::format("backend {} as asked", toString(asked));
  }
  if (plan.backend == Backend::Cuda) {
    if (!builtWithCuda())
      throw InputError("backend cuda needs a build with CUDA (configure with -DHOPSIM_WITH_CUDA=ON and nvcc on the PATH)");
    plan.gpu = spec.gpu >= 0 ? spec.gpu : std::max(0, defaultGpu);
  } else {
    if (plan.kernels == KernelVariant::Hopper)
      throw InputError("device.kernels: hopper needs the cuda backend (the cpu backend has one kernel family)");
    plan.kernels = KernelVariant::Portable;
  }
  return plan;
}

std::string describe(const DevicePlan& plan) {
  if (plan.backend == Backend::Cpu) return "cpu (" + plan.why + ")";
  return fmt::format("cuda on GPU {}, kernels {} ({})", plan.gpu, toString(plan.kernels), plan.why);
}

nlohmann::json toJson(const DevicePlan& plan) {
  nlohmann::json j = {{"backend", toString(plan.backend)},
                      {"kernels", toString(plan.kernels)},
                      {"gpu", plan.gpu},
                      {"halo", toString(plan.halo)},
                      {"why", plan.why}};
  return j;
}

nlohmann::json toJson(const lbm::KernelPlan& k) {
  return {{"bulk", toString(k.bulk)},
          {"layout", toString(k.layout)},
          {"block_threads", k.blockThreads},
          {"graph_steps", k.graphSteps},
          {"half_pairs", k.halfPairs},
          {"walls_in_bulk", k.wallsInBulk},
          {"open_moments", k.openMoments},
          {"open_in_bulk", k.openInBulk},
          {"open_wrap", k.openWrap},
          {"keep_faces", k.keepFaces},
          {"side_stream", k.sideStream},
          {"side_blocks", k.sideBlocks},
          {"graph_priority", k.graphPriority},
          {"sample_in_step", k.sampleInStep},
          {"cluster_blocks", k.clusterBlocks},
          {"tile_load", toString(k.tileLoad)},
          {"steps_per_launch", k.stepsPerLaunch},
          {"temporal_cluster", k.temporalCluster},
          {"temporal_open_blocks", k.temporalOpenBlocks},
          {"prefetch_waves", k.prefetchWaves}};
}

}  // namespace hopsim
