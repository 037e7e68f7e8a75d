// MD benchmark: timed repeats at full speed (CUDA Graphs on the GPU), then one phase-timed run for the breakdown
// (phase timing synchronises between kernels, so it is not used for the throughput figure). Under mpiexec the case
// is decomposed over the world's ranks as `hopsim run` does it; every rank returns the JSON, the caller prints rank
// 0's.
#include "solvers/md/MdBench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "io/md/MdCaseParser.h"
#include "core/Log.h"
#include "core/Mpi.h"
#include "solvers/common/BenchSchema.h"
#include "solvers/common/DevicePlanner.h"
#include "solvers/md/InitialState.h"
#include "solvers/md/MdSimulation.h"

namespace hopsim::md {

namespace {

// min / avg / max over ranks of one per-rank figure (every rank passes its own; all get the answer), as LbmBench.
nlohmann::json overRanks(const mpi::Comm& comm, double v) {
  const double sum = comm.allreduceSum(v);
  return {{"min", -comm.allreduceMax(-v)}, {"avg", sum / comm.size()}, {"max", comm.allreduceMax(v)}};
}

// The per-rank figures of a decomposed run and the LAMMPS-style min/avg/max table over ranks (logged by rank 0; on
// stderr: stdout carries the JSON, log::setTerminal). Phase times are per step from the phase-timed engine;
// throughput per rank counts its own atoms over its own median repeat.
void addRankTables(nlohmann::json& j, const mpi::Comm& comm, const Decomposition& d, const EngineStats& fast,
                   double ownSeconds, long long steps, const std::vector<std::pair<const char*, double>>& phases,
                   double aggregate, std::size_t repeats) {
  const double atoms = static_cast<double>(fast.ownedAtoms);
  std::vector<double> mine{static_cast<double>(comm.rank()), atoms, atoms * static_cast<double>(steps) / ownSeconds};
  for (const auto& [name, seconds] : phases) mine.push_back(seconds);
  const std::vector<double> all = comm.gather(mine, 0);
  nlohmann::json perRank = nlohmann::json::array();
  for (std::size_t k = 0; k + mine.size() <= all.size(); k += mine.size()) {
    nlohmann::json r = {
        {"rank", static_cast<int>(all[k])}, {"atoms", all[k + 1]}, {"atom_steps_per_second", all[k + 2]}};
    for (std::size_t p = 0; p < phases.size(); ++p) r[std::string(phases[p].first) + "_seconds"] = all[k + 3 + p];
    perRank.push_back(r);
  }
  nlohmann::json table = {{"unit", "seconds per step, phase-timed run of each rank"}};
  for (const auto& [name, seconds] : phases) table[name] = overRanks(comm, seconds);
  j["ranks"] = comm.size();
  j["process_grid"] = d.dims();
  j["per_rank"] = perRank;
  j["seconds_over_ranks"] = table;
  j["atoms_over_ranks"] = overRanks(comm, atoms);
  j["mpi_cuda_aware"] = mpi::cudaAwareness();
  if (comm.isRoot()) {
    log::info("{} ranks, grid {} x {} x {}: {:.4g} atom-steps/s aggregate (median of {})", comm.size(), d.dims()[0],
              d.dims()[1], d.dims()[2], aggregate, repeats);
    log::info("{:<14} | {:>12} | {:>12} | {:>12} | %varavg", "per step", "min (s)", "avg (s)", "max (s)");
    for (const auto& [name, seconds] : phases) {
      const double lo = table[name]["min"], avg = table[name]["avg"], hi = table[name]["max"];
      log::info("{:<14} | {:12.6g} | {:12.6g} | {:12.6g} | {:6.1f}", name, lo, avg, hi,
                avg > 0 ? 100.0 * (hi - avg) / avg : 0.0);
    }
    const auto& a = j["atoms_over_ranks"];
    const double lo = a["min"], avg = a["avg"], hi = a["max"];
    log::info("{:<14} | {:12.0f} | {:12.1f} | {:12.0f} | {:6.1f}", "atoms", lo, avg, hi,
              avg > 0 ? 100.0 * (hi - avg) / avg : 0.0);
  }
}

}  // namespace

std::string benchRunId(const std::string& system, Precision precision, const std::string& kernels,
                       std::size_t atoms, int ranks) {
  std::string id = fmt::format("md/{}/{}/{}/{}", system, toString(precision), kernels, atoms);
  if (ranks > 1) id += fmt::format("/ranks{}", ranks);
  return id;
}

nlohmann::json bench(const io::CaseDocument& doc, const RunOptions& options, const BenchOptions& b) {
  const MdCase c = io::md::parseMdCase(doc);
  const long long steps = b.steps > 0 ? b.steps : std::max<long long>(c.steps, 100);
  const int repeats = std::max(1, b.repeats);
  const MdRanks ranks{mpi::Comm::world(), false};
  const mpi::Comm& comm = ranks.comm;
  checkHostMemory(c, comm.size() > 1 ? comm.nodeSize() : 1);
  const ParticleState initial = initialState(c);
  const auto n = static_cast<double>(initial.size());
  using Clock = std::chrono::steady_clock;

  const DevicePlan plan = planMdDevice(c, options, ranks);
  // Before the engine allocates, so that the copy buffers have room.
  const nlohmann::json copyBandwidth = b.copyBandwidth ? *b.copyBandwidth
                                                       : benchCopyBandwidth(plan.backend, plan.gpu, b.copyBytes);
  auto engine = makeEngine(c, plan, false, ranks);
  engine->initialize(initial);
  const long long warmup = std::max<long long>(20, steps / 10);
  engine->advance(warmup, 0);
  (void)engine->thermo();
  long long step = warmup;
  // Every rank times the same steps from a barrier; the aggregate counts all atoms over the slowest rank's time.
  std::vector<double> rates, seconds, own;
  for (int r = 0; r < repeats; ++r) {
    comm.barrier();
    const auto t0 = Clock::now();
    engine->advance(steps, step);
    const RawThermo t = engine->thermo();  // synchronises
    const double mine = std::chrono::duration<double>(Clock::now() - t0).count();
    const double s = comm.allreduceMax(mine);
    step += steps;
    if (!t.finite) throw std::runtime_error("the benchmark run produced non-finite energies");
    seconds.push_back(s);
    own.push_back(mine);
    rates.push_back(n * static_cast<double>(steps) / s);
  }
  const EngineStats fast = engine->stats();
  const nlohmann::json throughput = benchSpread(rates);
  const double median = throughput["median"];

  // Breakdown: a separate engine with phase timers, same number of steps.
  auto timed = makeEngine(c, plan, true, ranks);
  timed->initialize(initial);
  timed->advance(warmup, 0);
  const EngineStats before = timed->stats();
  comm.barrier();
  const auto t0 = Clock::now();
  timed->advance(steps, warmup);
  (void)timed->thermo();
  const double total = std::chrono::duration<double>(Clock::now() - t0).count();
  const EngineStats after = timed->stats();
  const double perStep = 1e3 / static_cast<double>(steps);
  const double nb = (after.neighborSeconds - before.neighborSeconds) * perStep;
  const double force = (after.forceSeconds - before.forceSeconds) * perStep;
  const double integ = (after.integrateSeconds - before.integrateSeconds) * perStep;
  const double exchange = (after.commSeconds - before.commSeconds) * perStep;
  const double other = std::max(0.0, total * perStep - nb - force - integ - exchange);

  const bool gpu = plan.backend == Backend::Cuda;
  std::optional<Decomposition> d;
  if (ranks.decomposed()) d.emplace(decompose(c, comm));
  const std::string system =
      b.system.empty() ? std::filesystem::path(doc.fileName()).stem().string() : b.system;
  const std::string kernels = gpu ? toString(plan.kernels) : "cpu";
  std::vector<double> msPerStep;
  for (const double s : seconds) msPerStep.push_back(1e3 * s / static_cast<double>(steps));
  nlohmann::json j;
  j["id"] = benchRunId(system, c.precision, kernels, initial.size(), comm.size());
  j["solver"] = "md";
  j["description"] = fmt::format("MD Lennard-Jones {}, {} atoms, {} precision, cutoff {}, skin {}; case {}", system,
                                 initial.size(), toString(c.precision), c.lj.cutoff, c.skin, doc.fileName());
  j["kernels"] = kernels;
  j["atoms"] = initial.size();
  j["steps"] = steps;
  j["repeats"] = repeats;
  j["warmup_steps"] = warmup;
  j["atom_steps_per_second"] = {{"median", median}, {"min", throughput["min"]}, {"max", throughput["max"]}};
  j["step_time_ms"] = benchSpread(msPerStep);
  j["throughput"] = throughput;
  j["throughput"]["unit"] = "atom-steps/s";
  j["fraction_of_copy_bandwidth"] = nullptr;  // no bytes-per-step model for MD (its force loop gathers from cache)
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
  if (gpu) j["force_threads_per_atom"] = fast.forceThreadsPerAtom;
  // From the engine with phase timers, all its builds so far (the full-speed CUDA engine builds inside its step
  // graphs, untimed); the CPU and decomposed engines time every build in both.
  j["neighbor_ms_per_build"] =
      after.neighborBuilds > 0 ? 1e3 * after.neighborSeconds / static_cast<double>(after.neighborBuilds) : 0.0;
  j["backend"] = engine->backendName();
  j["device_plan"] = toJson(plan);
  j["precision"] = toString(c.precision);
  j["cuda_graphs"] = gpu && !d;  // the decomposed GPU engine stops for MPI twice a step
  if (d) {
    j["ms_per_step"]["communication"] = exchange;
    j["comm_fraction_of_step"] = comm.allreduceMax(exchange) / std::max(1e-300, comm.allreduceMax(total * perStep));
    j["ghost_staging"] = !gpu ? "host memory"
                         : fast.domain.peerGhosts
                             ? "to another rank: GPU pack kernel into its inbox (CUDA IPC; the first remote axis's "
                               "packed with the step's first half and announced by its allreduce, later axes' by a "
                               "one-byte MPI token), GPU unpack; to itself: GPU copy into the ghost slots"
                             : "to another rank: GPU pack kernel, pinned host buffers, MPI_Sendrecv, GPU unpack; "
                               "to itself: GPU copy into the ghost slots";
    if (gpu) {
      // The full-speed engine's parts of the rebuild and of the ghost refresh (host clocks at the synchronisations
      // the engine makes anyway, CUDA events for the list build), min / avg / max over ranks. Per build counts every
      // build, the one at initialize too (which downloads nothing).
      const EngineStats::DomainPhases& p = fast.domain;
      const double perBuild = 1e3 / static_cast<double>(std::max(1LL, fast.neighborBuilds));
      const double perRefresh = 1e3 / static_cast<double>(std::max(1LL, p.refreshes));
      const double ghosts = p.pack + p.mpi + p.unpack + p.self;
      j["rebuild_ms_per_build"] = {
          {"download", overRanks(comm, p.download * perBuild)}, {"migrate", overRanks(comm, p.migrate * perBuild)},
          {"sort", overRanks(comm, p.sort * perBuild)},         {"borders", overRanks(comm, p.borders * perBuild)},
          {"upload", overRanks(comm, p.upload * perBuild)},     {"list_gpu", overRanks(comm, p.list * perBuild)}};
      j["ghost_refresh_ms"] = {{"pack", overRanks(comm, p.pack * perRefresh)},
                               {"mpi", overRanks(comm, p.mpi * perRefresh)},
                               {"unpack", overRanks(comm, p.unpack * perRefresh)},
                               {"self", overRanks(comm, p.self * perRefresh)},
                               {"total", overRanks(comm, ghosts * perRefresh)}};
      // What is left of the communication time: the per-step control allreduce.
      j["control_allreduce_ms_per_step"] = overRanks(
          comm, 1e3 * (fast.commSeconds - ghosts) / static_cast<double>(warmup + steps * repeats));
    }
    std::sort(own.begin(), own.end());
    addRankTables(j, comm, *d, fast, own[own.size() / 2], steps,
                  {{"force", 1e-3 * force}, {"neighbor", 1e-3 * nb}, {"comm", 1e-3 * exchange},
                   {"integrate", 1e-3 * integ}, {"other", 1e-3 * other}},
                  median, rates.size());
  }
  return benchDocument(benchProvenance(plan.backend, plan.gpu), copyBandwidth, nlohmann::json::array({j}));
}

}  // namespace hopsim::md
