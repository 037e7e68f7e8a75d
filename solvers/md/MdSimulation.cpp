// MD run loop and outputs.
#include "solvers/md/MdSimulation.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <optional>

#include "io/AtomicFile.h"
#include "io/Checkpoint.h"
#include "io/CsvSeries.h"
#include "io/OutputLock.h"
#include "io/md/H5mdWriter.h"
#if HOPSIM_WITH_VTK
#include "io/vtk/VtkParticleWriter.h"
#endif
#include "kernels/common/DeviceInfo.h"
#include "core/Decomposition.h"
#include "core/ExitCode.h"
#include "core/Interrupt.h"
#include "core/Log.h"
#include "solvers/common/DevicePlanner.h"
#include "solvers/common/OutputHint.h"
#include "solvers/common/Progress.h"
#include "solvers/common/RunControl.h"
#include "solvers/common/RunInfo.h"
#include "solvers/md/DomainMdEngine.h"
#include "solvers/md/InitialState.h"
#include "solvers/md/MdCheckpoint.h"
#include "solvers/md/MdTrajectoryOutput.h"

namespace hopsim::md {

namespace {

// Why the Hopper force path (EngineConfig::kernels) cannot run this case on GPU `gpu`, or "" when it can.
std::string hopperUnavailable(const MdCase& c, const MdRanks& ranks, int gpu) {
  if (ranks.decomposed()) return "runs single-rank MD only (a decomposed run uses the portable kernels)";
  const auto gpus = cudaDevices();
  if (gpu >= static_cast<int>(gpus.size())) return fmt::format("needs a GPU; GPU {} is not present", gpu);
  const GpuInfo& g = gpus[static_cast<std::size_t>(gpu)];
  if (g.ccMajor < 9 || !g.clusterLaunch)
    return fmt::format("needs thread block clusters (compute capability 9.0 or newer); GPU {} ({}) is {}.{}", gpu,
                       g.name, g.ccMajor, g.ccMinor);
  const double range = interactionRange(c.lj, c.skin);
  const Box box = c.system.box();
  for (int d = 0; d < 3; ++d)
    if (box.length[d] < 3 * range * (1 + 1e-5))
      return fmt::format("needs a box at least 3 x (cutoff + skin) = {:.4g} long along every axis; axis {} is {:.4g}",
                         3 * range, "xyz"[d], box.length[d]);
  return "";
}

}  // namespace

DevicePlan planMdDevice(const MdCase& c, const RunOptions& options, const MdRanks& ranks) {
  const KernelVariant asked = options.kernels.value_or(c.device.kernels);
  const int gpus = cudaDeviceCount();
  DevicePlan plan = planDevice(c.device, options, ranks.decomposed() && gpus > 0 ? ranks.comm.nodeRank() % gpus : 0);
  plan.kernels = KernelVariant::Portable;
  if (plan.backend != Backend::Cuda || asked == KernelVariant::Portable) return plan;
  const std::string unavailable = hopperUnavailable(c, ranks, plan.gpu);
  if (asked == KernelVariant::Hopper) {
    if (!unavailable.empty()) throw InputError("device.kernels: the hopper MD force path " + unavailable);
    plan.kernels = KernelVariant::Hopper;
    plan.why += "; MD kernels hopper as asked";
  }
  return plan;
}

Decomposition decompose(const MdCase& c, const mpi::Comm& comm) {
  // Sub-boxes at least cutoff + skin wide: ghosts then come from face neighbours only.
  return Decomposition(comm, {0, 0, 0}, c.system.box().length, {true, true, true}, c.device.ranks,
                       interactionRange(c.lj, c.skin));
}

EngineConfig engineConfig(const MdCase& c) {
  EngineConfig e;
  e.precision = c.precision;
  e.lj = c.lj;
  e.skin = c.skin;
  e.integrator = c.integrator;
  return e;
}

std::unique_ptr<MdEngine> makeEngine(const MdCase& c, const DevicePlan& plan, bool timePhases,
                                     const MdRanks& ranks) {
  EngineConfig e = engineConfig(c);
  e.timePhases = timePhases;
  e.forceThreadsPerAtom = plan.overrides.mdThreadsPerAtom;
  e.rebuildOnHost = plan.overrides.mdHostRebuild;
  e.ghosts = plan.halo;
  e.kernels = plan.kernels;
  const bool cuda = plan.backend == Backend::Cuda;
  if (ranks.decomposed()) {
    const Decomposition d = decompose(c, ranks.comm);
    if (cuda) return makeCudaDomainEngine(e, d, ranks.comm, plan.gpu);
    return makeDomainEngine(e, d, ranks.comm);
  }
  if (cuda) return makeCudaEngine(e, plan.gpu);
  return makeCpuEngine(e);
}

void sortById(ParticleState& s) {
  std::vector<std::size_t> order(s.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return s.id[a] < s.id[b]; });
  auto apply = [&](auto& v) {
    auto tmp = v;
    for (std::size_t k = 0; k < order.size(); ++k) tmp[k] = v[order[k]];
    v.swap(tmp);
  };
  apply(s.x), apply(s.y), apply(s.z), apply(s.vx), apply(s.vy), apply(s.vz), apply(s.id);
}

namespace {

void logTableHeader() {
  log::info("{:>10} {:>12} {:>12} {:>14} {:>14} {:>14} {:>14}", "step", "time", "temp", "pe", "ke", "etotal", "press");
}
void logRow(const ThermoRow& r) {
  log::info("{:10} {:12.6g} {:12.8g} {:14.8g} {:14.8g} {:14.8g} {:14.8g}", r.step, r.time, r.temp, r.pe, r.ke, r.etotal,
            r.press);
}

std::vector<std::pair<std::string, double>> observables(const ThermoRow& r) {
  return {{"temperature", r.temp}, {"potential_energy", r.pe}, {"kinetic_energy", r.ke},
          {"total_energy", r.etotal}, {"pressure", r.press}};
}

std::string describeFailure(const ThermoRow& r) {
  if (!std::isfinite(r.pe) || !std::isfinite(r.press))
    return fmt::format("step {}: the potential energy or pressure is not finite (pe = {}, press = {}): particles overlap "
                       "or the time step is too large for this system",
                       r.step, r.pe, r.press);
  return fmt::format("step {}: infinite or NaN forces (overlapping particles, or a time step too large for this "
                     "system)", r.step);
}

// The run itself, inside its log (runMd).
MdRunResult run(const MdCase& c, const RunOptions& options, const MdRanks& ranks, const nlohmann::json& caseJson,
                const std::function<void(const ThermoRow&)>& onThermo, log::RunLog& runLog) {
  MdRunResult result;
  const std::string dir = options.outputDir.empty() ? c.output.dir : options.outputDir;
  // Thermo sums are global on every rank; files and the console belong to rank 0 (log::write).
  const bool root = ranks.comm.isRoot();
  const bool write = options.writeOutput && root;
  const bool restarted = !options.restart.empty();

  result.plan = planMdDevice(c, options, ranks);
  const std::array<int, 3> processGrid =
      ranks.decomposed() ? decompose(c, ranks.comm).dims() : std::array<int, 3>{1, 1, 1};
  // The Hopper force path sums pairs in another order and keeps other pair positions (continuous from the last sort)
  // than the list kernels: a state continues bitwise only on the path that wrote it.
  const std::string engineKind = std::string(result.plan.backend == Backend::Cuda ? "cuda" : "cpu") +
                                 (result.plan.kernels == KernelVariant::Hopper ? ", kernels hopper" : "") +
                                 (ranks.decomposed() ? ", decomposed" : "");
  if (result.plan.backend == Backend::Cuda) {
    // Before any allocation on the GPU: a case that does not fit is refused with what it needs, not a CUDA error
    // halfway through the setup. Ranks of one node share its GPUs.
    // The least free memory any rank sees, agreed before any rank allocates: a rank that checked after another had
    // filled the shared GPU would refuse a case that fits.
    const int gpus = std::max(1, cudaDeviceCount());
    const int sharing = ranks.decomposed() ? (ranks.comm.nodeSize() + gpus - 1) / gpus : 1;
    std::optional<std::size_t> available = freeDeviceMemory(std::max(0, result.plan.gpu));
    if (ranks.comm.size() > 1) {
      std::vector<double> least{available ? -static_cast<double>(*available) : -1e300};
      ranks.comm.allreduceMax(least);
      available = least[0] > -1e299 ? std::optional<std::size_t>(static_cast<std::size_t>(-least[0])) : std::nullopt;
    }
    checkDeviceMemory(c, atomsOnDevice(c, processGrid), sharing, available);
  }

  // Taken first, so that no other run changes the directory (its checkpoints included) while this one reads it.
  // Declared before the writers so that it is released after they have finished. The log opens once the directory
  // is this run's (a restart appends to it).
  std::unique_ptr<io::OutputLock> lock;
  if (write) io::ensureDirectory(dir);
  if (options.writeOutput) {
    lock = io::lockOutputDirectory(dir, ranks.comm);
    runLog.openFile(dir, restarted);
  }

  // --restart: the checkpoint is read and checked before anything is built or any output opened, so that a refused
  // checkpoint changes no output file (the log, appended to, says why it was refused). The case's own initial state
  // is then not built at all.
  ParticleState initial;
  std::optional<EngineState> resumed;
  std::filesystem::path restartFolder;
  long long runFirst = 0;  // the step the run began at (the case's), which run.steps count from
  // The checkpoint description speaks of the case's box and mass (what a restart can compare before it reads atoms).
  const Box caseBox = c.system.box();
  const double caseMass = c.system.kind == MdSystem::Kind::FccLattice ? c.system.lattice.mass : c.system.particles.mass;
  const nlohmann::json description = checkpointDescription(c, c.system.size(), caseBox, caseMass, engineKind,
                                                           processGrid);
  if (restarted) {
    restartFolder = io::findCheckpoint(options.restart);
    const io::CheckpointPart part = io::readCheckpoint(restartFolder, ranks.comm);
    checkCheckpoint(part.description, description, restartFolder);
    resumed = stateFromBlocks(part, c.system.size());
    initial.box = resumed->box;
    initial.mass = resumed->mass;
    initial.step = part.description.at("step").get<long long>();
    runFirst = part.description.value("run_first_step", 0LL);
  } else {
    // Every rank builds the whole initial state; a decomposed engine keeps what its sub-box owns.
    checkHostMemory(c, ranks.comm.size() > 1 ? ranks.comm.nodeSize() : 1);
    initial = initialState(c);
    runFirst = initial.step;
  }
  const std::size_t n = c.system.size();
  const double volume = initial.box.volume();

  auto engine = makeEngine(c, result.plan, false, ranks);
  result.backend = engine->backendName();
  log::info("hopsim md: {} atoms, {}", n, c.system.source);
  log::info("  box {:.6g} x {:.6g} x {:.6g}, density {:.6g}, mass {:g}", initial.box.length[0], initial.box.length[1],
            initial.box.length[2], static_cast<double>(n) / volume, initial.mass);
  log::info("  lj epsilon {:g} sigma {:g} cutoff {:g}{}{}, skin {:g}", c.lj.epsilon, c.lj.sigma, c.lj.cutoff,
            c.lj.shift ? ", shifted" : "", c.lj.tailCorrection ? ", tail corrections" : "", c.skin);
  log::info("  integrator {}, dt {:g}, {} steps, precision {}, backend {}", toString(c.integrator.type),
            c.integrator.dt, c.steps, toString(c.precision), result.backend);
  log::info("  device plan {}", describe(result.plan));
  if (restarted) log::info("  restart from {} (step {})", restartFolder.string(), initial.step);

  const long long first = initial.step, last = runFirst + c.steps;
  const double dt = c.integrator.dt;
  // HOPSIM_SYNC_OUTPUT=1 (or RunOptions::syncOutput): each frame written and each thermo sample read back before the
  // run goes on, as before the overlapped output (issue 22): the reference its tests compare it with (the same rows,
  // the same datasets), as for LBM.
  const char* syncEnv = std::getenv("HOPSIM_SYNC_OUTPUT");
  const bool syncOutput = options.syncOutput || (syncEnv && std::string(syncEnv) == "1");
  std::unique_ptr<io::CsvSeries> csv;
  std::unique_ptr<io::md::H5mdWriter> h5;
#if HOPSIM_WITH_VTK
  std::unique_ptr<io::VtkParticleWriter> vtk;
#endif
  if (write) {
    const std::vector<std::string> columns{"step", "time", "temp", "pe", "ke", "etotal", "press"};
    const std::filesystem::path trajectory = std::filesystem::path(dir) / "trajectory.h5";
    // A restarted run continues the series from the checkpoint's step: no row or frame twice, none missing.
    if (restarted) csv = std::make_unique<io::CsvSeries>(std::filesystem::path(dir) / "thermo.csv", columns, first);
    else csv = std::make_unique<io::CsvSeries>(std::filesystem::path(dir) / "thermo.csv", columns);
    if (c.output.h5md) {
      if (!restarted) {
        h5 = std::make_unique<io::md::H5mdWriter>(trajectory, n, HOPSIM_VERSION);
      } else {
        try {
          h5 = std::make_unique<io::md::H5mdWriter>(trajectory, n, HOPSIM_VERSION, first);
        } catch (const std::runtime_error& e) {
          // A run killed while HDF5 was writing can leave a file it cannot open again: kept aside, not lost, and
          // the trajectory goes on in a new file from the restart on.
          const std::filesystem::path aside =
              std::filesystem::path(dir) / fmt::format("trajectory.unreadable-{}.h5", first);
          std::error_code ec;
          std::filesystem::rename(trajectory.string() + ".part", aside, ec);
          log::warning("hopsim md: warning: {}; it is kept as {} and the trajectory continues in a new {}", e.what(),
                       aside.string(), trajectory.string());
          h5 = std::make_unique<io::md::H5mdWriter>(trajectory, n, HOPSIM_VERSION);
        }
      }
    }
#if HOPSIM_WITH_VTK
    if (c.output.vtk) {
      vtk = std::make_unique<io::VtkParticleWriter>(std::filesystem::path(dir), "particles");
      // The pieces an earlier run wrote up to the checkpoint: its first step, the output steps, its last step.
      if (restarted) {
        std::vector<long long> steps{runFirst};
        for (long long s = c.output.every > 0 ? (runFirst / c.output.every + 1) * c.output.every : first;
             c.output.every > 0 && s < first; s += c.output.every)
          steps.push_back(s);
        if (first != runFirst) steps.push_back(first);
        for (long long s : steps) vtk->listEarlier(s, static_cast<double>(s) * dt);
      }
    }
#endif
  }

  // Frames are taken on every rank (a decomposed engine gathers them, collectively); rank 0 writes them. Only rank
  // 0's writer thread makes HDF5 calls while the run steps, and it makes no MPI call: the gathers and reductions
  // stay on the main thread, in the same order on every rank. A write error on rank 0 is thrown there and ends
  // every rank through the command's failure path (mpi::endWithFailure), as a failed write did before.
  auto trajectory = std::make_unique<MdTrajectoryOutput>(*engine, std::move(h5),
#if HOPSIM_WITH_VTK
                                                         std::move(vtk),
#endif
                                                         c.precision == Precision::Single, syncOutput);

  if (resumed) {
    engine->restoreState(*resumed);
    resumed.reset();
  } else {
    engine->initialize(initial);
  }
  // Every rank's share, to see an imbalance (stats() walks the neighbour counts: asked for with --verbose only).
  if (ranks.decomposed() && options.verbose)
    log::debug("this rank owns {} of {} atoms", engine->stats().ownedAtoms, n);

  auto takeThermo = [&](long long step) {
    ThermoRow r = makeThermoRow(engine->thermo(), n, volume, c.lj, step, static_cast<double>(step) * dt);
    return r;
  };
  auto emitThermo = [&](const ThermoRow& r) {
    result.thermo.push_back(r);
    logRow(r);
    if (csv)
      csv->row({io::CsvSeries::cell(r.step), io::CsvSeries::cell(r.time), io::CsvSeries::cell(r.temp),
                io::CsvSeries::cell(r.pe), io::CsvSeries::cell(r.ke), io::CsvSeries::cell(r.etotal),
                io::CsvSeries::cell(r.press)});
    trajectory->observables(r.step, r.time, observables(r));
    if (onThermo) onThermo(r);
  };
  // Host time of the loop's parts (they add up to the loop's wall time with "other"): on a GPU the steps' time is
  // the time advance() takes, which returns when its last step has run on the GPU.
  double stepSeconds = 0, thermoSeconds = 0, frameSeconds = 0, checkpointSeconds = 0;
  auto since = [](std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  auto writeFrame = [&](long long step) {
    const auto t0 = std::chrono::steady_clock::now();
    trajectory->frame(step, static_cast<double>(step) * dt);
    frameSeconds += since(t0);
    if (root) log::debug("frame of step {} taken for output", step);
  };
  auto due = [](long long step, long long every) { return every > 0 && step % every == 0; };
  auto nextMultiple = [](long long step, long long every) { return (step / every + 1) * every; };

  const CheckpointSpec& checkpoints = c.output.checkpoint;
  RunControl control(ranks.comm, checkpoints);
  long long lastCheckpoint = restarted ? first : -1;
  long long step = first;
  // Every rank writes its own atoms (collective); the description is the same on all of them.
  auto writeCheckpoint = [&]() {
    if (!options.writeOutput || lastCheckpoint == step) return;
    const auto t0 = std::chrono::steady_clock::now();
    // The HDF5 library is not thread-safe: the writer thread is idle while the checkpoint is written.
    trajectory->drain();
    io::CheckpointPart part;
    part.description = description;
    part.description["step"] = step;
    part.description["time"] = static_cast<double>(step) * dt;
    part.description["run_first_step"] = runFirst;
    part.description["case"] = caseJson;
    part.description["build"] = buildInfo();
    EngineState state;
    engine->saveState(state);
    addStateBlocks(state, part);
    io::writeCheckpoint(dir, step, part, ranks.comm);
    log::info("checkpoint {}", io::checkpointFolder(dir, step).string());
    lastCheckpoint = step;
    control.checkpointed();
    checkpointSeconds += since(t0);
  };

  logTableHeader();
  Progress progress(std::max(0LL, last - first), static_cast<double>(n), "Matom-steps/s", root && last > first);
  const auto start = std::chrono::steady_clock::now();
  ThermoRow row = takeThermo(first);
  result.lastStep = first;
  if (!row.finite) {
    result.ok = false;
    result.failure = describeFailure(row) + (restarted ? " (in the checkpoint)" : " (in the initial configuration)");
  } else if (!restarted) {
    // A restarted run has its first step's row and frame from the run that wrote the checkpoint.
    emitThermo(row);
    if (c.output.every > 0 || c.steps == 0) writeFrame(first);
  }
  // Steps per advance call at most: about 0.1 s of work (CPU ~1e6, GPU ~2e8 atom-steps/s), so that a signal ends
  // the run soon; the same on every rank (global atom count), which all meet in the signal check after it.
  const double atomSteps = result.plan.backend == Backend::Cuda ? 2e7 : 1e5;
  const long long chunk =
      std::max<long long>(1, static_cast<long long>(atomSteps / static_cast<double>(std::max<std::size_t>(n, 1))));
  // Thermo sums are sampled at the end of every advance (the energies of its last step) without waiting (on a GPU
  // into a device-side ring) and read back in order: when the ring is full, and before anything is kept from the
  // state (a frame, a checkpoint, the end, a signal's stop), so that what is kept is never past the first sample that
  // is not finite. Rows, frames and the last good step are then those of the per-sample path (HOPSIM_SYNC_OUTPUT=1,
  // which reads each sample at once); the engine may have run a few chunks beyond an unstable step, whose state is
  // not kept.
  std::vector<long long> sampled;  // the steps of the samples queued, not read yet
  const std::size_t ringCapacity = static_cast<std::size_t>(std::max(1, engine->thermoRingCapacity()));
  auto readSamples = [&]() {
    if (sampled.empty()) return;
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<RawThermo> raws = engine->readThermo();
    if (raws.size() != sampled.size())
      throw std::logic_error(fmt::format("the MD engine returned {} thermo samples for {} queued", raws.size(),
                                         sampled.size()));
    for (std::size_t k = 0; k < raws.size(); ++k) {
      const long long s = sampled[k];
      const ThermoRow r = makeThermoRow(raws[k], n, volume, c.lj, s, static_cast<double>(s) * dt);
      if (!r.finite) {
        result.ok = false;
        result.failure = describeFailure(r);
        break;
      }
      result.lastStep = s;
      if (due(s, c.thermoEvery) || s == last) emitThermo(r);
    }
    sampled.clear();
    thermoSeconds += since(t0);
  };
  while (result.ok && step < last) {
    // Advance to the next step where something is due: thermo, output, a checkpoint, or the end. Chunks end at
    // multiples of `chunk`, not `chunk` steps after wherever the loop started: a restarted run then stops where the
    // uninterrupted one did, and the energy evaluations (on the last step of each advance) fall on the same steps.
    long long next = std::min(last, nextMultiple(step, chunk));
    for (long long every : {c.thermoEvery, c.output.every, checkpoints.every})
      if (every > 0) next = std::min(next, nextMultiple(step, every));
    const auto t0 = std::chrono::steady_clock::now();
    engine->advance(next - step, step);
    engine->sampleThermo();
    stepSeconds += since(t0);
    sampled.push_back(next);
    step = next;
    const bool frameDue = due(step, c.output.every) || step == last;
    if (syncOutput || frameDue || sampled.size() >= ringCapacity) readSamples();
    if (!result.ok) break;
    if (frameDue) writeFrame(step);
    trajectory->check();  // a write that failed in the writer thread ends the run here, soon after
    progress.update(step - first);
    // Once per chunk (at most ~0.1 s of work), so that a signal ends the run soon and costs one reduction.
    const RunControl::Verdict verdict = control.poll();
    const bool checkpointDue = due(step, checkpoints.every) || verdict.wallCheckpointDue;
    if (checkpointDue || verdict.signal != 0) {
      readSamples();
      if (!result.ok) break;
    }
    if (checkpointDue) writeCheckpoint();
    if (verdict.signal != 0) {
      result.stopSignal = verdict.signal;
      // SIGUSR1 asks for a checkpoint to continue from; SIGINT and SIGTERM leave one where the case wants them.
      if (result.stopSignal == SIGUSR1 || checkpoints.enabled()) writeCheckpoint();
      break;
    }
  }
  readSamples();  // none left but after a failure, whose samples after it are not kept
  // The last frames are written inside the loop's time: a run's cost includes them.
  const double finalWait = trajectory->drain();
  result.checkpointed = lastCheckpoint == result.lastStep && result.stopSignal != 0;
  progress.finish(result.lastStep - first);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.stats = engine->stats();
  if (result.ok) {
    engine->download(result.final);
    sortById(result.final);
    result.final.step = result.lastStep;
  } else if (trajectory->framesTaken() > 0) {
    result.final = trajectory->lastFrame();  // the last good frame
    result.final.step = result.lastStep;
  }

  // Whatever happened, what was written so far goes under final names (but for a trajectory whose writer failed:
  // its error was thrown above and it stays NAME.part).
  if (csv) csv->finish();
  trajectory->finish();
  const double loopSeconds = result.seconds;
  const std::vector<std::pair<std::string, double>> phases{
      {"steps", stepSeconds},
      {"thermo", thermoSeconds},
      {"trajectory", frameSeconds + finalWait},
      {"checkpoints", checkpointSeconds},
      {"other", std::max(0.0, loopSeconds - stepSeconds - thermoSeconds - frameSeconds - finalWait -
                                  checkpointSeconds)}};
  const char* writerMode = syncOutput ? "main thread (HOPSIM_SYNC_OUTPUT=1)" : "writer thread, overlapping the steps";
  if (write) {
    nlohmann::json j;
    j["solver"] = "md";
    j["case"] = caseJson;
    j["build"] = buildInfo();
    j["host"] = hostInfo();
    j["devices"] = devicesInfo();
    j["status"] = !result.ok ? "unstable" : result.stopSignal != 0 ? "interrupted" : "completed";
    if (result.stopSignal != 0) j["signal"] = interrupt::signalName(result.stopSignal);
    if (!result.ok) j["failure"] = result.failure;
    j["atoms"] = n;
    j["first_step"] = first;
    j["last_step"] = result.lastStep;
    if (restarted) j["restarted_from_step"] = first;
    if (lastCheckpoint >= 0) j["last_checkpoint"] = io::checkpointFolder(dir, lastCheckpoint).string();
    j["backend"] = result.backend;
    j["device_plan"] = toJson(result.plan);
    j["precision"] = toString(c.precision);
    if (ranks.decomposed()) {
      j["ranks"] = ranks.comm.size();
      j["process_grid"] = processGrid;
    }
    const double steps = static_cast<double>(result.lastStep - first);
    // An engine reports NaN for a phase it did not time (the CUDA engines do not time force and integration apart).
    auto measured = [](double v) { return std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v); };
    j["timings"] = {{"loop_seconds", result.seconds},
                    {"atom_steps_per_second", result.seconds > 0 ? steps * static_cast<double>(n) / result.seconds : 0.0},
                    // The steps alone (the "steps" phase), what `hopsim bench` measures; the figure above is the whole
                    // loop's, thermo and output included.
                    {"atom_steps_per_second_steps", stepSeconds > 0 ? steps * static_cast<double>(n) / stepSeconds : 0.0},
                    {"neighbor_seconds", measured(result.stats.neighborSeconds)},
                    {"force_seconds", measured(result.stats.forceSeconds)},
                    {"integrate_seconds", measured(result.stats.integrateSeconds)},
                    {"comm_seconds", result.stats.commSeconds},  // decomposed runs, rank 0
                    {"neighbor_builds", result.stats.neighborBuilds},
                    {"mean_neighbors", result.stats.meanNeighbors},
                    {"max_neighbors", result.stats.maxNeighbors}};
    for (const auto& [name, secs] : phases) j["timings"]["phases"][name] = secs;
    j["trajectory_output"] = {{"frames", trajectory->framesTaken()}, {"bytes", trajectory->bytesWritten()},
                              {"writer_seconds", trajectory->writerSeconds()},
                              {"waited_seconds", trajectory->waitedSeconds()}, {"how", writerMode}};
    writeRunJson(std::filesystem::path(dir) / "run.json", j);
  }
  const double steps = static_cast<double>(result.lastStep - first);
  const EngineStats& st = result.stats;
  log::info("loop time {:.3f} s, {:.4g} atom-steps/s over the loop, {:.4g} in the steps alone; {} neighbour builds "
            "(mean {:.1f}, max {:.0f} neighbours within cutoff + skin)",
            result.seconds, result.seconds > 0 ? steps * static_cast<double>(n) / result.seconds : 0.0,
            stepSeconds > 0 ? steps * static_cast<double>(n) / stepSeconds : 0.0, st.neighborBuilds, st.meanNeighbors,
            st.maxNeighbors);
  if (std::isnan(st.neighborSeconds))
    log::info("  neighbour builds, force and integrate {:.3f} s (on the GPU they run in the steps' graphs and are not "
              "timed apart, which would synchronise between kernels; `hopsim bench` reports the split)",
              stepSeconds);
  else if (std::isnan(st.forceSeconds) || std::isnan(st.integrateSeconds))
    log::info("  neighbour {:.3f} s; force and integrate {:.3f} s (on the GPU force and integrate are not timed apart, "
              "which would synchronise between kernels; `hopsim bench` reports the split)",
              st.neighborSeconds, std::max(0.0, stepSeconds - st.neighborSeconds));
  else
    log::info("  neighbour {:.3f} s, force {:.3f} s, integrate {:.3f} s", st.neighborSeconds, st.forceSeconds,
              st.integrateSeconds);
  for (const auto& [name, secs] : phases)
    log::info("  {:<28} {:9.3f} s  {:5.1f}%", name, secs, loopSeconds > 0 ? 100.0 * secs / loopSeconds : 0.0);
  if (!syncOutput)
    log::info("  of which waiting for writer  {:9.3f} s  (a full buffer behind, checkpoints, and the last frames)",
              trajectory->waitedSeconds());
  if (trajectory->bytesWritten() > 0)
    log::info("trajectory: {} frames, {:.3g} GB in {:.3f} s ({:.2f} GB/s) by the {}", trajectory->framesTaken(),
              trajectory->bytesWritten() * 1e-9, trajectory->writerSeconds(),
              trajectory->writerSeconds() > 0 ? trajectory->bytesWritten() * 1e-9 / trajectory->writerSeconds() : 0.0,
              writerMode);
  if (write) {
    // The .pvd series opens with every step in any reader; the H5MD .xmf needs the XDMF 2 reader for that
    // (README, Outputs and ParaView).
    const std::filesystem::path folder(dir);
    std::string view = "no particle files (output.formats)";
    if (HOPSIM_WITH_VTK && c.output.vtk) view = "paraview " + shellWord((folder / "particles.pvd").string());
    else if (c.output.h5md)
      view = "paraview " + shellWord((folder / "trajectory.xmf").string()) + " (with the \"XDMF Reader\")";
    log::info("{}", outputHint(folder, view));
  }
  // Every rank reached the same end: rank 0 reports it.
  if (!result.ok && root) log::error("hopsim md: stopped: {}", result.failure);
  if (result.stopSignal != 0 && root)
    log::warning("hopsim md: {} received, stopped at step {} of {}; {}", interrupt::signalName(result.stopSignal),
                 result.lastStep, last,
                 !options.writeOutput ? "nothing was written"
                 : result.checkpointed
                     ? fmt::format("checkpoint {}; continue with --restart {}",
                                   io::checkpointFolder(dir, result.lastStep).string(), dir)
                     : fmt::format("the series and run.json are in {}", dir));
  return result;
}

}  // namespace

MdRunResult runMd(const MdCase& c, const RunOptions& options, const nlohmann::json& caseJson,
                  const std::function<void(const ThermoRow&)>& onThermo) {
  return runMd(c, options, MdRanks{}, caseJson, onThermo);
}

MdRunResult runMd(const MdCase& c, const RunOptions& options, const MdRanks& ranks, const nlohmann::json& caseJson,
                  const std::function<void(const ThermoRow&)>& onThermo) {
  log::RunLog runLog(options, ranks.comm);
  try {
    return run(c, options, ranks, caseJson, onThermo, runLog);
  } catch (const std::exception& e) {
    runLog.failed(e.what());
    throw;
  }
}

}  // namespace hopsim::md
