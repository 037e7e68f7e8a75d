// MD benchmark: timed repeats at full speed (CUDA Graphs on the GPU), then one phase-timed run for the breakdown
// (phase timing synchronises between kernels, so it is not used for the throughput figure).
#include "solvers/md/MdBench.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "io/md/MdCaseParser.h"
#include "kernels/common/DeviceInfo.h"
#include "solvers/md/MdSimulation.h"

namespace hopsim::md {

nlohmann::json bench(const io::CaseDocument& doc, const RunOptions& options, const BenchOptions& b) {
  const MdCase c = io::md::parseMdCase(doc);
  const long long steps = b.steps > 0 ? b.steps : std::max<long long>(c.steps, 100);
  const int repeats = std::max(1, b.repeats);
  const auto n = static_cast<double>(c.initial.size());
  using Clock = std::chrono::steady_clock;

  auto engine = makeEngine(c, options, false);
  engine->initialize(c.initial);
  const long long warmup = std::max<long long>(20, steps / 10);
  engine->advance(warmup, 0);
  (void)engine->thermo();
  long long step = warmup;
  std::vector<double> rates, seconds;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = Clock::now();
    engine->advance(steps, step);
    const RawThermo t = engine->thermo();  // synchronises
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    step += steps;
    if (!t.finite) throw std::runtime_error("the benchmark run produced non-finite energies");
    seconds.push_back(s);
    rates.push_back(n * static_cast<double>(steps) / s);
  }
  const EngineStats fast = engine->stats();
  std::vector<double> sorted = rates;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted[sorted.size() / 2];

  // Breakdown: a separate engine with phase timers, same number of steps.
  auto timed = makeEngine(c, options, true);
  timed->initialize(c.initial);
  timed->advance(warmup, 0);
  const EngineStats before = timed->stats();
  const auto t0 = Clock::now();
  timed->advance(steps, warmup);
  (void)timed->thermo();
  const double total = std::chrono::duration<double>(Clock::now() - t0).count();
  const EngineStats after = timed->stats();
  const double perStep = 1e3 / static_cast<double>(steps);
  const double nb = (after.neighborSeconds - before.neighborSeconds) * perStep;
  const double force = (after.forceSeconds - before.forceSeconds) * perStep;
  const double integ = (after.integrateSeconds - before.integrateSeconds) * perStep;
  const double other = std::max(0.0, total * perStep - nb - force - integ);

  std::string deviceName = "cpu";
  if (chooseBackend(c, options) == Backend::Cuda) {
    const auto gpus = cudaDevices();
    const int g = std::max(0, c.device.gpu);
    if (g < static_cast<int>(gpus.size())) deviceName = gpus[g].name;
  }
  nlohmann::json j;
  j["solver"] = "md";
  j["atoms"] = c.initial.size();
  j["steps"] = steps;
  j["repeats"] = repeats;
  j["warmup_steps"] = warmup;
  j["atom_steps_per_second"] = {{"median", median}, {"min", sorted.front()}, {"max", sorted.back()}};
  j["steps_per_second_median"] = median / n;
  j["seconds_per_repeat"] = seconds;
  j["ms_per_step"] = {{"total", 1e3 * n / median},
                      {"phase_timed_total", total * perStep},
                      {"neighbor", nb},
                      {"force", force},
                      {"integrate", integ},
                      {"other", other}};
  j["neighbor_builds_per_100_steps"] =
      100.0 * static_cast<double>(fast.neighborBuilds) / static_cast<double>(warmup + steps * repeats);
  j["max_neighbors"] = fast.maxNeighbors;
  j["mean_neighbors"] = fast.meanNeighbors;  // list entries per atom (within cutoff + skin), current list
  // From the full-speed engine (CUDA: events around each rebuild, which runs outside the graphs), all builds so far.
  j["neighbor_ms_per_build"] =
      fast.neighborBuilds > 0 ? 1e3 * fast.neighborSeconds / static_cast<double>(fast.neighborBuilds) : 0.0;
  j["backend"] = engine->backendName();
  j["precision"] = toString(c.precision);
  j["device"] = deviceName;
  j["cuda_graphs"] = chooseBackend(c, options) == Backend::Cuda;
  return j;
}

}  // namespace hopsim::md
