// LBM benchmark: copy bandwidth first (same process, same device), then timed steps per variant and layout.
#include "solvers/lbm/LbmBench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>

#include "core/ExitCode.h"
#include "core/Log.h"
#include "core/Mpi.h"
#include "core/RunOptions.h"
#include "core/lbm/Relaxation.h"
#include "kernels/common/DeviceInfo.h"
#include "solvers/common/BenchSchema.h"
#include "solvers/common/DevicePlanner.h"
#include "solvers/lbm/LbmKernelPlanner.h"
#include "solvers/lbm/LbmSimulation.h"

namespace hopsim::lbm {
namespace {

StreamingLayout layoutFromName(const std::string& s) {
  if (s == "two-lattice") return StreamingLayout::TwoLattice;
  if (s == "in-place") return StreamingLayout::InPlace;
  if (s == "auto" || s.empty()) return StreamingLayout::Auto;
  throw std::runtime_error("unknown layout '" + s + "' (expected two-lattice, in-place or auto)");
}

nlohmann::json spread(const std::vector<double>& v) {
  nlohmann::json j = benchSpread(v);
  j.erase("spread");
  return j;
}

std::string geometryOf(const LbmCase& c, const std::string& given) {
  if (!given.empty()) return given;
  bool periodic = c.obstacles.empty();
  for (int axis = 0; axis < c.dimensions; ++axis) periodic = periodic && c.periodic[axis];
  if (periodic) return "periodic";
  const std::string stem = std::filesystem::path(c.sourceFile).stem().string();
  return stem.empty() ? "bounded" : stem;
}

std::string cellsText(const LbmCase& c) {
  return c.dimensions == 2 ? fmt::format("{}x{}", c.cells[0], c.cells[1])
                           : fmt::format("{}x{}x{}", c.cells[0], c.cells[1], c.cells[2]);
}

std::string describe(const LbmCase& c, const std::string& geometry) {
  return fmt::format("LBM {} {} {} cells, {} precision, {} tau {:.4g}, {} obstacle(s); case {}", toString(c.lattice),
                     geometry == "periodic" ? "periodic box" : geometry, cellsText(c), toString(c.precision),
                     describeCollision(c), c.tau, c.obstacles.size(), c.sourceFile);
}

// The common timing blocks of the schema from the per-repeat MLUPS: step time in ms and throughput.
void addTiming(nlohmann::json& r, const std::vector<double>& mlups, double cells) {
  std::vector<double> ms;
  for (const double m : mlups) ms.push_back(1e3 * cells / (m * 1e6));
  r["step_time_ms"] = benchSpread(ms);
  r["throughput"] = benchSpread(mlups);
  r["throughput"]["unit"] = "MLUPS";
  r["throughput"]["counts"] = "cell updates of all cells (fluid and solid) per second / 1e6";
}

nlohmann::json caseJson(const LbmCase& c) {
  return {{"lattice", toString(c.lattice)},
          {"precision", toString(c.precision)},
          {"collision", toString(c.collision)},
          {"les_cs", c.smagorinsky ? nlohmann::json(c.smagorinskyCs) : nlohmann::json()},
          {"cells", c.cells},
          {"periodic", c.periodic},
          {"tau", c.tau},
          {"obstacles", c.obstacles.size()},
          {"source", c.sourceFile}};
}

// min / avg / max over ranks of one per-rank figure (every rank passes its own; all get the answer).
nlohmann::json overRanks(const mpi::Comm& comm, double v) {
  const double sum = comm.allreduceSum(v);
  return {{"min", -comm.allreduceMax(-v)}, {"avg", sum / comm.size()}, {"max", comm.allreduceMax(v)}};
}

// The case split over the ranks of `comm` (one GPU each, or shared): every rank times the same steps between
// barriers; the aggregate counts all cells over the slowest rank's time. Per rank: cells, MLUPS of its own cells,
// time in the halo exchange (packing, MPI, unpacking: not overlapped with the update); LAMMPS-style
// min/avg/max tables of the update and exchange times show the load imbalance.
nlohmann::json benchDecomposed(const LbmCase& c, const BenchOptions& o, const mpi::Comm& comm, KernelVariant variant,
                               const std::string& layoutName, const std::string& geometry) {
  nlohmann::json r = {{"kernels", toString(variant)}, {"layout_requested", layoutName}};
  if (layoutName != "auto" && layoutName != "two-lattice")
    throw std::runtime_error("a decomposed run uses the two-lattice layout (requested " + layoutName + ")");
  LbmSimulation sim(c, c.device.backend, variant, comm);
  const double cells = static_cast<double>(c.cells[0] * c.cells[1] * c.cells[2]);
  const double ownCells = static_cast<double>(sim.partition().ownedCells());
  const bool gpu = sim.backendKind() == Backend::Cuda;
  const auto timed = [&](long long steps, double& halo) {
    comm.barrier();
    const double halo0 = sim.haloSeconds();
    const auto t0 = std::chrono::steady_clock::now();
    sim.advance(steps);
    sim.backend().finish();
    const double local = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    halo = sim.haloSeconds() - halo0;
    return local;
  };
  double halo = 0;
  const long long warm = gpu ? 20 : 2;
  const double warmSeconds = comm.allreduceMax(timed(warm, halo));
  const double perStep = std::max(1e-9, warmSeconds / static_cast<double>(warm));
  // Whole exchanges: ghost layers k deep are exchanged after every k steps (a remainder would be single steps).
  const int perExchange = sim.backend().stepsPerExchange();
  const long long asked = o.steps > 0 ? o.steps : std::max<long long>(gpu ? 20 : 3, std::llround(0.5 / perStep));
  const long long steps = (asked + perExchange - 1) / perExchange * perExchange;
  std::vector<double> mlups, local, halos;
  for (int k = 0; k < std::max(1, o.repeats); ++k) {
    const double mine = timed(steps, halo);
    const double slowest = comm.allreduceMax(mine);
    mlups.push_back(cells * static_cast<double>(steps) / slowest / 1e6);
    local.push_back(mine);
    halos.push_back(halo);
  }
  // This rank's median repeat (by its own time) for the per-rank tables.
  std::vector<std::size_t> order(local.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return local[a] < local[b]; });
  const std::size_t mid = order[order.size() / 2];
  const double total = local[mid], exchange = halos[mid], update = total - exchange;
  const Observables obs = sim.observables();
  if (!std::isfinite(obs.mass) || !std::isfinite(obs.kineticEnergy))
    throw std::runtime_error("the benchmark run became unstable (non-finite mass or energy)");
  const std::vector<double> mine{static_cast<double>(comm.rank()), ownCells, ownCells * steps / total / 1e6, update,
                                 exchange};
  const std::vector<double> all = comm.gather(mine, 0);
  nlohmann::json perRank = nlohmann::json::array();
  for (std::size_t k = 0; k + 4 < all.size(); k += mine.size())
    perRank.push_back({{"rank", static_cast<int>(all[k])}, {"cells", all[k + 1]}, {"mlups", all[k + 2]},
                       {"update_seconds", all[k + 3]}, {"halo_seconds", all[k + 4]}});
  const Decomposition& d = *sim.decomposition();
  const double bytes = sim.backend().bytesPerCellUpdate();
  const nlohmann::json m = spread(mlups);
  r["kernels"] = gpu ? toString(sim.devicePlan().kernels) : "cpu";
  r["id"] = benchRunId(c, geometry, r["kernels"].get<std::string>(), sim.backend().layout(), comm.size());
  r["solver"] = "lbm";
  r["description"] = describe(c, geometry) + "; " + sim.backend().description();
  r["layout"] = sim.backend().layout();
  r["device_plan"] = planJson(sim.devicePlan());
  r["case"] = caseJson(c);
  r["lattice"] = toString(c.lattice);
  r["precision"] = toString(c.precision);
  r["domain"] = c.cells;
  r["cells"] = cells;
  r["steps"] = steps;
  r["repeats"] = mlups.size();
  r["warmup_steps"] = warm;
  r["mlups"] = m;
  addTiming(r, mlups, cells);
  r["steps_per_second"] = m["median"].get<double>() * 1e6 / cells;
  r["bytes_per_cell_step"] = bytes;
  r["effective_bandwidth_gbs"] = m["median"].get<double>() * 1e6 * bytes / 1e9;
  // Rank 0's GPU alone was measured, and the ranks may share it or not: no fraction of an aggregate.
  r["fraction_of_copy_bandwidth"] = nullptr;
  r["final_mass"] = obs.mass;
  r["ranks"] = comm.size();
  r["process_grid"] = d.dims();
  r["per_rank"] = perRank;
  r["seconds_over_ranks"] = {{"update", overRanks(comm, update / steps)},
                             {"halo_exchange", overRanks(comm, exchange / steps)},
                             {"unit", "seconds per step, median repeat of each rank"}};
  r["halo_fraction_of_step"] = comm.allreduceMax(exchange) / comm.allreduceMax(total);
  r["mpi_cuda_aware"] = mpi::cudaAwareness();
  r["halo_transport"] = toString(sim.haloTransport());
  r["halo_path"] = sim.haloPath();
  r["steps_per_exchange"] = perExchange;
  r["halo_exchange"] =
      sim.haloSkipped()
          ? "skipped (HOPSIM_LBM_SKIP_HALO=1: overlap measurement, results wrong)"
      : perExchange > 1
          ? fmt::format("host time in the exchange of ghost layers {0} cells deep after each launch of {0} steps; "
                        "not overlapped with the update", perExchange)
          : "host time in the exchange; on GPUs it overlaps the interior update";
  if (comm.isRoot()) {
    // The LAMMPS-style breakdown for the terminal (on stderr: stdout carries the JSON, log::setTerminal).
    const auto& t = r["seconds_over_ranks"];
    log::info("{} ranks, grid {} x {} x {}, {}: {:.1f} MLUPS aggregate (median of {})", comm.size(), d.dims()[0],
              d.dims()[1], d.dims()[2], toString(c.lattice), m["median"].get<double>(), mlups.size());
    log::info("{:<14} | {:>12} | {:>12} | {:>12} | %varavg", "per step", "min (s)", "avg (s)", "max (s)");
    for (const char* section : {"update", "halo_exchange"}) {
      const double lo = t[section]["min"], avg = t[section]["avg"], hi = t[section]["max"];
      log::info("{:<14} | {:12.6g} | {:12.6g} | {:12.6g} | {:6.1f}", section, lo, avg, hi,
                avg > 0 ? 100.0 * (hi - avg) / avg : 0.0);
    }
  }
  return r;
}

}  // namespace

LbmCase defaultBenchCase() {
  LbmCase c;
  c.sourceFile = "(built-in benchmark case)";
  c.lattice = LatticeKind::D3Q19;
  c.dimensions = 3;
  c.precision = Precision::Single;
  c.collision = CollisionModel::BGK;
  c.cells = {256, 256, 256};
  c.periodic = {true, true, true};
  c.tau = 0.6;
  c.viscosity = viscosityFromTau(c.tau);
  c.initial.taylorGreenU0 = 0.05;
  c.steps = 1000;
  c.output.every = 0;
  c.output.fields.clear();
  c.output.formats.clear();
  c.output.observablesEvery = 0;
  return c;
}

std::string benchRunId(const LbmCase& c, const std::string& geometry, const std::string& kernels,
                       const std::string& layout, int ranks) {
  std::string id = fmt::format("lbm/{}/{}/{}/{}/{}/{}", geometry, toString(c.lattice), toString(c.precision), kernels,
                               layout, cellsText(c));
  if (ranks > 1) id += fmt::format("/ranks{}", ranks);
  return id;
}

nlohmann::json bench(const LbmCase& c, const BenchOptions& o) {
  const DevicePlan base = planDevice(c.device, RunOptions{}, 0);
  const Backend backend = base.backend;
  const bool gpu = backend == Backend::Cuda;
  const int device = base.gpu;
  const double cells = static_cast<double>(c.cells[0] * c.cells[1] * c.cells[2]);
  const std::string geometry = geometryOf(c, o.geometry);
  if (gpu && device >= cudaDeviceCount()) throw std::runtime_error("GPU " + std::to_string(device) + " not found");

  // Measured before the lattice is allocated, so the copy buffers have room; 4 GiB on a GPU, far beyond L2.
  const nlohmann::json copyBandwidth =
      o.copyBandwidth ? *o.copyBandwidth : benchCopyBandwidth(backend, device, o.copyBytes);
  const double copy = copyBandwidthGBs(copyBandwidth);

  const std::vector<KernelVariant> variants = o.variants.empty() ? std::vector{c.device.kernels} : o.variants;
  const std::vector<std::string> layouts = o.layouts.empty() ? std::vector<std::string>{"auto"} : o.layouts;
  const int repeats = std::max(1, o.repeats);
  nlohmann::json runs = nlohmann::json::array();
  int succeeded = 0;
  const mpi::Comm world = mpi::Comm::world();
  if (world.size() > 1) {
    // Several ranks: the decomposed run, every rank in every step (an error on one rank is an error on all, as
    // they all build the same case).
    for (const KernelVariant variant : variants)
      for (const std::string& layoutName : layouts) {
        runs.push_back(benchDecomposed(c, o, world, variant, layoutName, geometry));
        ++succeeded;
      }
  }
  for (const KernelVariant variant : world.size() > 1 ? std::vector<KernelVariant>{} : variants) {
    for (const std::string& layoutName : layouts) {
      // Until the run is built, its id holds what was asked for; the built run's id holds what was chosen.
      nlohmann::json r = {{"id", benchRunId(c, geometry, gpu ? toString(variant) : "cpu", layoutName, 1)},
                          {"solver", "lbm"},
                          {"kernels", gpu ? toString(variant) : "cpu"},
                          {"layout_requested", layoutName}};
      try {
        std::unique_ptr<LbmBackend> b;
        KernelVariant chosen = variant;
        {
          LbmSetup setup = buildSetup(c);
          setup.layout = layoutFromName(layoutName);
          if (!gpu && setup.layout == StreamingLayout::Auto) setup.layout = base.overrides.layout;
          DevicePlan plan = base;
          if (gpu) {
            plan.kernels = variant;
            planLbmKernels(plan, setup);
            chosen = plan.kernels;
          }
          r["device_plan"] = planJson(plan);
          b = gpu ? makeCudaBackend(setup, plan) : makeCpuBackend(setup);
        }  // the host copy of the initial state is freed before timing
        // Warm-up: module load, graph capture, clocks; its time estimates the steps for ~0.5 s per repeat.
        const long long warm = gpu ? 64 : 2;
        const double warmSeconds = b->timeSteps(warm);
        const double perStep = std::max(1e-9, warmSeconds / static_cast<double>(warm));
        long long steps = o.steps > 0 ? o.steps : std::max<long long>(gpu ? 64 : 3, std::llround(0.5 / perStep));
        if (gpu && o.steps <= 0) steps = (steps + 63) / 64 * 64;  // whole graphs, parity preserved
        std::vector<double> mlups, stepsPerSecond;
        for (int k = 0; k < repeats; ++k) {
          const double s = b->timeSteps(steps);
          mlups.push_back(cells * static_cast<double>(steps) / s / 1e6);
          stepsPerSecond.push_back(static_cast<double>(steps) / s);
        }
        const Observables obs = b->observables();
        if (!std::isfinite(obs.mass) || !std::isfinite(obs.kineticEnergy))
          throw std::runtime_error("the benchmark run became unstable (non-finite mass or energy)");
        const double bytes = b->bytesPerCellUpdate();
        const nlohmann::json m = spread(mlups);
        const double median = m["median"].get<double>();
        const double effective = median * 1e6 * bytes / 1e9;
        r["kernels"] = gpu ? toString(chosen) : "cpu";
        r["id"] = benchRunId(c, geometry, r["kernels"].get<std::string>(), b->layout(), 1);
        r["description"] = describe(c, geometry) + "; " + b->description();
        r["layout"] = b->layout();
        r["case"] = caseJson(c);
        r["lattice"] = toString(c.lattice);
        r["precision"] = toString(c.precision);
        r["domain"] = c.cells;
        r["cells"] = cells;
        r["steps"] = steps;
        r["repeats"] = repeats;
        r["warmup_steps"] = warm;
        r["mlups"] = m;
        addTiming(r, mlups, cells);
        r["steps_per_second"] = spread(stepsPerSecond)["median"];
        r["bytes_per_cell_step"] = bytes;
        r["effective_bandwidth_gbs"] = effective;
        r["fraction_of_copy_bandwidth"] = copy > 0 ? nlohmann::json(effective / copy) : nlohmann::json(nullptr);
        r["roofline_mlups"] = copy > 0 ? nlohmann::json(copy * 1e9 / bytes / 1e6) : nlohmann::json(nullptr);
        r["final_mass"] = obs.mass;
        ++succeeded;
      } catch (const std::exception& e) {
        r["error"] = e.what();
      }
      runs.push_back(r);
    }
  }
  if (!succeeded) {
    std::string why = runs.empty() ? "nothing to run" : runs[0].value("error", "");
    throw std::runtime_error("no benchmark run succeeded: " + why);
  }
  return benchDocument(benchProvenance(backend, device), copyBandwidth, runs);
}

}  // namespace hopsim::lbm
