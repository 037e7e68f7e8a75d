// The lattice Boltzmann run loop: logs derived parameters, advances to each output event, writes files.
#include "solvers/lbm/LbmRun.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>

#include "core/ExitCode.h"
#include "core/Interrupt.h"
#include "core/Log.h"
#include "io/AtomicFile.h"
#include "io/Checkpoint.h"
#include "io/CsvSeries.h"
#include "io/FieldOutput.h"
#include "io/Hdf5Handle.h"
#include "io/LbmCaseParser.h"
#include "io/OutputLock.h"
#include "io/ViewScript.h"
#include "solvers/common/DevicePlanner.h"
#include "solvers/common/OutputHint.h"
#include "solvers/common/RunInfo.h"
#include "solvers/common/PhaseTimers.h"
#include "solvers/common/RunControl.h"
#include "solvers/common/Progress.h"
#include "solvers/lbm/LbmCheckpoint.h"
#include "solvers/lbm/LbmFieldOutput.h"
#include "solvers/lbm/LbmKernelPlanner.h"
#include "solvers/lbm/LbmSimulation.h"

namespace hopsim::lbm {
namespace {

enum Phase : std::size_t { kUpdate, kObservables, kOutput, kOther };

// The band the mean density of a stable run stays in, relative to the initial density: weakly compressible flow at
// Ma < 0.3 changes density by a few per cent, boundaries by little more; leaving it means the run is blowing up.
constexpr double kMinDensityRatio = 0.5, kMaxDensityRatio = 2.0;
// A cell faster than the lattice speed of sound (kLatticeSoundSpeed, 1/sqrt(3)) is a blow-up: LBM's equilibria
// hold only well below it.

template <class Vec>
double norm(const Vec& v) {
  return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

bool wants(const std::vector<OutputFormat>& formats, OutputFormat f) {
  for (auto x : formats)
    if (x == f) return true;
  return false;
}

// The series files of the run's fields, the one view.py opens first first: XDMF (HDF5), which every build writes
// and ParaView reads in one piece also from a decomposed run, then VTK.
std::vector<std::string> fieldSeriesFiles(const LbmCase& c) {
  std::vector<std::string> files;
  for (const OutputFormat f : {OutputFormat::Hdf5, OutputFormat::Vtk})
    if (wants(c.output.formats, f)) files.push_back(io::seriesFileName(f, kFieldSeriesName));
  return files;
}

long long nextMultiple(long long step, long long every) { return every > 0 ? (step / every + 1) * every : -1; }

// " (2.5 s)" after a step count in a case with units, "" in lattice units.
std::string secondsOf(const LbmCase& c, long long steps) {
  return c.units.isPhysical() ? fmt::format(" ({:.6g} s)", c.units.time(steps)) : std::string();
}

// The SI scales of a case with units and the lattice values they come to, printed once at the start (README,
// "Physical units"). The tau and Mach warnings that go with them are the parser's, printed after.
void logUnits(const LbmCase& c) {
  const UnitSystem& u = c.units;
  if (!u.isPhysical()) return;
  const UnitScales& s = u.scales();
  const double nu = u.toPhysical(Quantity::Viscosity, c.viscosity);
  const double imposed = io::latticeMach(c);
  log::info("  units          SI: L {:.6g} m, U {:.6g} m/s, nu {:.6g} m^2/s, rho {:.6g} kg/m^3: Re = U L / nu = {:.6g}",
            s.length, s.velocity, nu, s.density, s.velocity * s.length / nu);
  log::info("  conversion     dx {:.6g} m ({:.6g} cells per L), dt {:.6g} s, u_lat {:.6g} (Ma {:.4g} of U), "
            "nu_lat {:.6g}, tau {:.6g}",
            u.dx(), s.resolution, u.dt(), u.latticeVelocity(), s.mach, c.viscosity, c.tau);
  log::info("  compressibility error ~ Ma^2: {:.2g}% at U, {:.2g}% at the largest imposed speed (Ma {:.4g})",
            100 * UnitSystem::compressibilityError(s.mach), 100 * UnitSystem::compressibilityError(imposed), imposed);
  log::info("  outputs        SI: coordinates in m, time in s, velocity m/s, density kg/m^3, pressure Pa (relative "
            "to rho {:.6g} kg/m^3), forces in {}",
            s.density, u.unit(Quantity::Force));
}

// run.json's record of the conversion: the scales as given and every derived value, or {"system": "lattice"}.
nlohmann::json unitsJson(const LbmCase& c) {
  const UnitSystem& u = c.units;
  if (!u.isPhysical()) return {{"system", "lattice"}};
  const UnitScales& s = u.scales();
  const double nu = u.toPhysical(Quantity::Viscosity, c.viscosity);
  const double imposed = io::latticeMach(c);
  return {{"system", "SI"},
          {"length_m", s.length},
          {"velocity_m_per_s", s.velocity},
          {"viscosity_m2_per_s", nu},
          {"density_kg_per_m3", s.density},
          {"resolution_cells_per_length", s.resolution},
          {"reynolds", s.velocity * s.length / nu},
          {"dx_m", u.dx()},
          {"dt_s", u.dt()},
          {"lattice_velocity", u.latticeVelocity()},
          {"mach", s.mach},
          {"mach_largest_imposed", imposed},
          {"lattice_viscosity", c.viscosity},
          {"tau", c.tau},
          {"compressibility_error", UnitSystem::compressibilityError(s.mach)},
          {"compressibility_error_largest_imposed", UnitSystem::compressibilityError(imposed)},
          {"end_time_s", u.time(c.steps)},
          {"units", {{"velocity", u.unit(Quantity::Velocity)}, {"density", u.unit(Quantity::Density)},
                     {"pressure", u.unit(Quantity::Pressure)}, {"force", u.unit(Quantity::Force)},
                     {"mass", u.unit(Quantity::Mass)}, {"kinetic_energy", u.unit(Quantity::Energy)},
                     {"enstrophy", u.unit(Quantity::Enstrophy)}, {"dissipation_rate", u.unit(Quantity::PowerDensity)},
                     {"time", "s"}, {"length", "m"}}}};
}

void logParameters(const LbmCase& c, const LbmSimulation& sim, LbmSimulation& simMut,
                   const std::vector<std::string>& warnings, const std::filesystem::path& outDir, bool writes) {
  const char* axes = "xyz";
  std::string periodic;
  for (int a = 0; a < c.dimensions; ++a)
    if (c.periodic[a]) periodic += std::string(periodic.empty() ? "" : ", ") + axes[a];
  std::string cells = fmt::format("{} x {}", c.cells[0], c.cells[1]);
  if (c.dimensions == 3) cells += fmt::format(" x {}", c.cells[2]);
  log::info("hopsim lbm: {}", c.sourceFile);
  log::info("  lattice        {}, {} precision, {}", toString(c.lattice), toString(c.precision),
            describeCollision(c));
  log::info("  domain         {} cells ({} fluid), periodic: {}", cells, sim.fluidCellCount(),
            periodic.empty() ? "none" : periodic);
  log::info("  relaxation     tau {:.6g}, viscosity {:.6g} (lattice units)", c.tau, c.viscosity);
  logUnits(c);
  log::info("  Mach number    {:.4f} (largest imposed speed x sqrt(3))", io::latticeMach(c));
  const std::string re = reynoldsDescription(c);
  if (!re.empty()) log::info("  Reynolds       {}", re);
  if (norm(c.bodyForce) > 0)
    log::info("  body force     [{:g}, {:g}, {:g}]", c.bodyForce[0], c.bodyForce[1], c.bodyForce[2]);
  log::info("  backend        {}", simMut.backend().description());
  log::info("  device plan    {}", describe(sim.devicePlan()));
  if (const Decomposition* d = sim.decomposition()) {
    const LbmPartition& p = sim.partition();
    log::info("  ranks          {} MPI ranks, process grid {} x {} x {}; rank 0 holds {} x {} x {} cells", d->size(),
              d->dims()[0], d->dims()[1], d->dims()[2], p.count[0], p.count[1], p.count[2]);
    log::info("  halo exchange  every step, {}; {}",
              sim.backendKind() == Backend::Cuda ? "overlapping the interior update" : "after the update",
              sim.haloPath());
    // Every rank's own block (--verbose), to find the rank of a cell or an imbalance.
    log::debug("  this rank      cells [{}, {}) x [{}, {}) x [{}, {})", p.first[0], p.first[0] + p.count[0], p.first[1],
               p.first[1] + p.count[1], p.first[2], p.first[2] + p.count[2]);
  }
  log::info("  steps          {}{}", c.steps, secondsOf(c, c.steps));
  if (writes)
    log::info("  output         {} (fields every {} steps{}{})", outDir.string(), c.output.every,
              secondsOf(c, c.output.every), c.output.every == 0 ? ": final state only" : "");
  if (writes && sim.decomposed() && wants(c.output.formats, OutputFormat::Hdf5)) {
    if (io::collectiveHdf5(c.output, sim.decomposed()))
      log::info("  fields         one HDF5 file per step written collectively by {} ranks (parallel HDF5)",
                sim.comm().size());
    else
      log::info("  fields         one HDF5 file per rank and step (fields_<step>/r<rank>.h5) joined by fields.xmf ({})",
                c.output.hdf5 == Hdf5Layout::PerRank ? "output.hdf5: per-rank" : "this build's HDF5 is serial");
  }
  // Every rank read the same case: rank 0 reports its warnings.
  if (sim.comm().isRoot())
    for (const auto& w : warnings) log::warning("{}", w);
}

}  // namespace

std::string reynoldsDescription(const LbmCase& c) {
  // U and L quoted as the case gives them: m/s and m in a case with units.
  const UnitSystem& u = c.units;
  const auto si = [&](Quantity q) { return u.isPhysical() ? std::string(" ") + u.unit(q) : std::string(); };
  if (c.output.forces.every > 0 && c.output.forces.refVelocity > 0) {
    const double L = c.dimensions == 2 ? c.output.forces.refLength : std::sqrt(c.output.forces.refLength);
    return fmt::format("{:.4g} (U = {:.4g}{}, L = {:.4g}{} from output.forces.reference)",
                       c.output.forces.refVelocity * L / c.viscosity,
                       u.toPhysical(Quantity::Velocity, c.output.forces.refVelocity), si(Quantity::Velocity),
                       u.toPhysical(Quantity::Length, L), si(Quantity::Length));
  }
  for (int f = 0; f < 2 * c.dimensions; ++f) {
    const FaceBoundary& b = c.faces[f];
    if (b.type != BoundaryType::MovingWall) continue;
    // The lid's length along its motion is the cavity size.
    int axis = 0;
    for (int a = 0; a < 3; ++a)
      if (std::abs(b.velocity[a]) > std::abs(b.velocity[axis])) axis = a;
    const double U = norm(b.velocity);
    if (u.isPhysical())
      return fmt::format("{:.4g} (U = {:.4g} m/s of the {} wall, L = {:.4g} m)", U * c.cells[axis] / c.viscosity,
                         u.toPhysical(Quantity::Velocity, U), faceName(f),
                         u.toPhysical(Quantity::Length, static_cast<double>(c.cells[axis])));
    return fmt::format("{:.4g} (U = {:.4g} of the {} wall, L = {} cells)", U * c.cells[axis] / c.viscosity, U,
                       faceName(f), c.cells[axis]);
  }
  return {};
}

void applyOptions(LbmCase& c, const RunOptions& options) {
  if (!options.outputDir.empty()) c.output.dir = options.outputDir;
  if (options.backend) c.device.backend = *options.backend;
  if (options.kernels) c.device.kernels = *options.kernels;
}

namespace {

// The run itself, inside its log (runCase).
int run(const io::CaseDocument& doc, const RunOptions& options, log::RunLog& runLog) {
  LbmCase c = io::parseLbmCase(doc);
  applyOptions(c, options);
  const auto wallStart = std::chrono::steady_clock::now();
  PhaseTimers timers({"collide+stream+boundaries", "observables+forces", "output", "setup+other"});

  std::optional<LbmSimulation> simHolder;
  {
    ScopedPhase t(timers, kOther);
    simHolder.emplace(c, c.device.backend, c.device.kernels, mpi::Comm::world());
  }
  LbmSimulation& sim = *simHolder;
  const std::filesystem::path outDir = c.output.dir;
  const bool writes = options.writeOutput;
  // Every rank runs the same loop; rank 0 alone writes files (and speaks: log::write).
  const bool root = sim.comm().isRoot();
  const bool restarted = !options.restart.empty();

  // Taken first, so that no other run changes the directory (its checkpoints included) while this one reads it.
  // Declared before the writers so that it is released after they have finished. The log opens once the directory
  // is this run's: a run refused by the lock leaves the holder's log as it is.
  std::unique_ptr<io::OutputLock> lock;
  if (writes) {
    ScopedPhase t(timers, kOutput);
    if (root) io::ensureDirectory(outDir);
    lock = io::lockOutputDirectory(outDir, sim.comm());
    runLog.openFile(outDir, restarted);
  }
  logParameters(c, sim, sim, doc.warnings(), outDir, writes);

  // --restart: the state goes back before any output is opened, so that a refused checkpoint changes no output file
  // (the log, appended to, says why it was refused).
  if (restarted) {
    ScopedPhase t(timers, kOther);
    const std::filesystem::path folder = io::findCheckpoint(options.restart);
    restoreCheckpoint(folder, doc, c, sim);
    log::info("  restart        from {} (step {})", folder.string(), sim.step());
  }
  const long long firstStep = sim.step();

  // HOPSIM_SYNC_OUTPUT=1: fields written before the run goes on and observables read back per sample, as before
  // issue 22 (the reference the tests compare the overlapped output with).
  const char* syncEnv = std::getenv("HOPSIM_SYNC_OUTPUT");
  const bool syncOutput = options.syncOutput || (syncEnv && std::string(syncEnv) == "1");
  std::optional<LbmFieldOutput> fields;
  std::optional<io::CsvSeries> observables, forces;
  if (writes) {
    ScopedPhase t(timers, kOutput);
    fields.emplace(c, outDir, sim, syncOutput);
    if (restarted) fields->listEarlier(firstStep);
  }
  if (writes && root) {
    // view.py first: ParaView can show the fields while the run goes on. Rewritten by a restarted run, whose binary
    // may show them better.
    io::writeViewScript(c, fieldSeriesFiles(c), outDir);
    // A case with units writes its observables in SI, with the time in seconds beside the step; the enstrophy where
    // the case asks for it (output.observables.enstrophy).
    std::vector<std::string> obsColumns{"step", "mass", "kinetic_energy", "max_speed"};
    if (c.output.enstrophy) obsColumns.push_back("enstrophy");
    obsColumns.push_back("dissipation_rate");
    if (c.units.isPhysical()) obsColumns.insert(obsColumns.begin() + 1, "time");
    const std::vector<std::string> forceColumns{"step", "obstacle", "fx", "fy", "fz", "cd", "cl"};
    // A restarted run continues the series from the checkpoint's step: no row twice, none missing.
    if (restarted) observables.emplace(outDir / "observables.csv", obsColumns, firstStep);
    else observables.emplace(outDir / "observables.csv", obsColumns);
    if (c.output.forces.every > 0) {
      if (restarted) forces.emplace(outDir / "forces.csv", forceColumns, firstStep);
      else forces.emplace(outDir / "forces.csv", forceColumns);
    }
  }

  const long long total = c.steps;
  const auto& fr = c.output.forces;
  const double refLength = fr.refLength;
  const double cdScale = fr.refVelocity > 0 ? 2.0 / (fr.refDensity * fr.refVelocity * fr.refVelocity * refLength) : 0;
  // Forces in N (N/m in 2-D) in a case with units; the coefficients come from the lattice values either way.
  const UnitSystem& units = c.units;
  const double forceScale = units.factor(Quantity::Force);
  Progress progress(std::max(0LL, total - firstStep), static_cast<double>(sim.cellCount()), "MLUPS", root);
  int status = kExitOk;
  int stopSignal = 0;  // SIGINT, SIGTERM or SIGUSR1 that ended the run early
  long long lastGood = -1;

  // Why a state with observables `o` is unstable, or "" when it is not. A run that blows up passes through
  // densities of 1e10 and supersonic speeds long before NaN: those states are unstable too, so that the fields kept
  // at exit 3 are the last physical ones. Observables are global sums, so every rank reaches the same verdict.
  const double rho0 = c.initial.density;
  const double fluidCells = static_cast<double>(std::max<long long>(1, sim.fluidCellCount()));
  auto instability = [&](const Observables& o) -> std::string {
    const double meanDensity = o.mass / fluidCells;
    if (!std::isfinite(o.mass) || !std::isfinite(o.kineticEnergy) || !std::isfinite(o.maxSpeed))
      return fmt::format("NaN or infinite observables (mass {}, kinetic energy {}, maximum speed {})", o.mass,
                         o.kineticEnergy, o.maxSpeed);
    if (meanDensity < kMinDensityRatio * rho0 || meanDensity > kMaxDensityRatio * rho0)
      return fmt::format("the mean density {:.6g} left the band {:.3g} .. {:.3g} (the initial density {} times {} .. {})",
                         meanDensity, kMinDensityRatio * rho0, kMaxDensityRatio * rho0, rho0, kMinDensityRatio,
                         kMaxDensityRatio);
    if (o.maxSpeed > kLatticeSoundSpeed)
      return fmt::format("the maximum speed {:.6g} exceeds the lattice speed of sound 1/sqrt(3) = {:.6g}", o.maxSpeed,
                         kLatticeSoundSpeed);
    if (o.kineticEnergy < 0)
      return fmt::format("the kinetic energy {:.6g} is negative (negative densities)", o.kineticEnergy);
    return {};
  };
  // Observables are sampled without waiting (on a GPU into a device-side ring) and read back once per chunk of
  // steps: each sample is checked in step order, and the good ones before the first bad one become rows. The chunk
  // ends before any field output or checkpoint, so those are written only from a state whose samples all passed.
  struct Sample {
    long long step;
    bool row;  // a row of observables.csv; otherwise only the check before field output
  };
  std::vector<Sample> samples;
  std::vector<long long> forceSteps;  // the steps of the forces sampled since the last read
  std::string unstableWhy;
  long long unstableStep = -1;
  // The dissipation rate of a row is -dE/dt over the interval since the row before (E: kinetic energy per fluid
  // volume), from the two rows' kinetic energies as written: second order at the interval's midpoint, and a
  // continued run, which reads the row before from the file, writes the rows of the uninterrupted one. The first
  // row has none (NaN). Fluid volume in m^3 with units (2-D: m^2 per metre of depth), so that J / m^3 / s = W/m^3.
  const double fluidVolume = fluidCells * units.factor(Quantity::Energy) / units.factor(Quantity::Pressure);
  const auto dissipationSince = [&](const std::vector<std::string>& before, long long step, double energy) {
    if (before.empty()) return std::numeric_limits<double>::quiet_NaN();
    const long long earlier = std::stoll(before[0]);
    const double earlierEnergy = std::stod(before[units.isPhysical() ? 3 : 2]);
    return -(energy - earlierEnergy) / (fluidVolume * (units.time(step) - units.time(earlier)));
  };
  bool enstrophyWarned = false;
  auto sample = [&](long long step, bool row) {
    ScopedPhase t(timers, kObservables);
    sim.sampleObservables();
    samples.push_back({step, row});
  };
  auto sampleForces = [&](long long step) {
    ScopedPhase t(timers, kObservables);
    sim.sampleForces();
    forceSteps.push_back(step);
  };
  // Reads back the samples and forces queued since the last read. False at the first unstable sample
  // (unstableStep, unstableWhy). The rows are those the per-sample path writes: forces up to and including that
  // step, observables before it.
  auto readSamples = [&]() -> bool {
    ScopedPhase t(timers, kObservables);
    const std::vector<Observables> got = sim.readObservables();
    const std::vector<std::vector<std::array<double, 3>>> gotForces = sim.readForces();
    if (got.size() != samples.size() || gotForces.size() != forceSteps.size())
      throw std::logic_error(fmt::format("{} observables and {} forces read back for {} and {} samples", got.size(),
                                         gotForces.size(), samples.size(), forceSteps.size()));
    std::vector<Sample> taken;
    taken.swap(samples);
    std::vector<long long> forceTaken;
    forceTaken.swap(forceSteps);
    std::size_t good = 0;
    for (; good < got.size(); ++good)
      if (std::string why = instability(got[good]); !why.empty()) {
        unstableWhy = std::move(why);
        unstableStep = taken[good].step;
        break;
      }
    for (std::size_t k = 0; k < gotForces.size(); ++k) {
      if (unstableStep >= 0 && forceTaken[k] > unstableStep) break;
      const auto& f = gotForces[k];
      for (std::size_t ob = 0; ob < f.size() && forces; ++ob)
        forces->row({io::CsvSeries::cell(forceTaken[k]), c.obstacles[ob].name,
                     io::CsvSeries::cell(f[ob][0] * forceScale), io::CsvSeries::cell(f[ob][1] * forceScale),
                     io::CsvSeries::cell(f[ob][2] * forceScale),
                     io::CsvSeries::cell(f[ob][0] * cdScale), io::CsvSeries::cell(f[ob][1] * cdScale)});
    }
    for (std::size_t k = 0; k < good; ++k) {
      if (!taken[k].row || !observables) continue;
      const long long step = taken[k].step;
      const double energy = units.toPhysical(Quantity::Energy, got[k].kineticEnergy);
      if (c.output.enstrophy && std::isnan(got[k].enstrophy) && !enstrophyWarned && root) {
        log::warning("observables.csv: no enstrophy (nan) on this decomposed run: the curl needs the velocities of "
                     "the cells beyond each rank's faces, and its ghost layers carry only the populations that "
                     "stream inwards; run on one rank for it (the dissipation rate is there either way)");
        enstrophyWarned = true;
      }
      std::vector<std::string> row{
          io::CsvSeries::cell(step), io::CsvSeries::cell(units.toPhysical(Quantity::Mass, got[k].mass)),
          io::CsvSeries::cell(energy), io::CsvSeries::cell(units.toPhysical(Quantity::Velocity, got[k].maxSpeed))};
      if (c.output.enstrophy)
        row.push_back(io::CsvSeries::cell(units.toPhysical(Quantity::Enstrophy, got[k].enstrophy / fluidCells)));
      row.push_back(io::CsvSeries::cell(dissipationSince(observables->lastRow(), step, energy)));
      if (units.isPhysical()) row.insert(row.begin() + 1, io::CsvSeries::cell(units.time(step)));
      observables->row(row);
    }
    return good == got.size();
  };
  auto writeFields = [&]() {
    if (!fields) return;
    ScopedPhase t(timers, kOutput);
    fields->write();
    lastGood = sim.step();
    if (root) log::debug("fields of step {} taken for output", lastGood);
  };
  const CheckpointSpec& checkpoints = c.output.checkpoint;
  RunControl control(sim.comm(), checkpoints);
  long long lastCheckpoint = restarted ? firstStep : -1;
  auto writeCheckpoint = [&]() {
    if (!writes || lastCheckpoint == sim.step()) return;
    ScopedPhase t(timers, kOutput);
    // The fields of this step (and every earlier one) on disk and in the series first: a restart from this
    // checkpoint lists them and does not write them again.
    if (fields) fields->settle();
    io::CheckpointPart part = checkpointPart(doc, c, sim);
    {
      // The field writer thread may be in HDF5 (not thread-safe) meanwhile.
      std::lock_guard hdf5(io::h5::libraryMutex());
      io::writeCheckpoint(outDir, sim.step(), part, sim.comm());
    }
    log::info("checkpoint {}", io::checkpointFolder(outDir, sim.step()).string());
    lastCheckpoint = sim.step();
    control.checkpointed();
  };

  // A restarted run has its first step's row and fields from the run that wrote the checkpoint.
  sample(firstStep, !restarted);
  if (!readSamples()) status = kExitUnstable;
  if (status == 0 && !restarted) writeFields();
  const long long obsEvery = c.output.observablesEvery;
  // At most this many samples between two reads (one more is the check before field output at the chunk's end).
  const long long ring = std::max(2, sim.observableRingCapacity());
  while (status == 0 && sim.step() < total) {
    const long long s = sim.step();
    long long next = total;
    // Chunks end at field output and checkpoints; observables and forces are sampled inside a chunk, except on the
    // reference path (HOPSIM_SYNC_OUTPUT=1), which reads each sample back at once as before.
    for (long long every : {static_cast<long long>(c.output.every), checkpoints.every, syncOutput ? obsEvery : 0LL,
                            syncOutput ? static_cast<long long>(fr.every) : 0LL})
      if (every > 0) next = std::min(next, nextMultiple(s, every));
    // Chunks of about 0.25 s of work, so that the progress line stays alive and a signal ends the run soon: from a
    // CPU's rate (~80 MLUPS) at first, then from the rate measured so far (a GPU steps a 256^3 lattice in under a
    // millisecond, and a chunk of one step would synchronise with the host every step).
    // Every rank must end its chunk at the same step (the chunk's end meets the other ranks in collectives): the
    // slowest rank's time decides, the same number everywhere.
    const double updateSeconds =
        sim.decomposed() ? sim.comm().allreduceMax(timers.seconds(kUpdate)) : timers.seconds(kUpdate);
    const long long stepped = s - firstStep;
    long long chunk = std::max<long long>(1, static_cast<long long>(2e7 / static_cast<double>(sim.cellCount())));
    if (stepped > 0 && updateSeconds > 0)
      chunk = std::max<long long>(1, static_cast<long long>(0.25 * static_cast<double>(stepped) / updateSeconds));
    long long target = std::min(next, s + chunk);
    // No more samples in a chunk than the rings hold.
    for (long long every : {obsEvery, static_cast<long long>(fr.every)})
      if (every > 0) target = std::min(target, std::max(s + 1, (s / every + ring - 1) * every));
    const bool fieldsDue = (c.output.every > 0 && target % c.output.every == 0) || target == total;
    const auto forcesAt = [&](long long step) { return fr.every > 0 && step % fr.every == 0; };
    for (long long at = s; at < target;) {
      long long stop = target;
      for (long long every : {obsEvery, static_cast<long long>(fr.every)})
        if (every > 0) stop = std::min(stop, nextMultiple(at, every));
      const bool rowDue = (obsEvery > 0 && stop % obsEvery == 0) || stop == total;
      // The state fields are written from is checked first, so that the last files stay good.
      const bool sampleDue = rowDue || (stop == target && fieldsDue);
      // Where the last step samples as it goes, the sample is part of the update's time.
      const bool sampledInStep = sampleDue && sim.samplesInStep();
      {
        ScopedPhase t(timers, kUpdate);
        if (sampledInStep) sim.advanceSampled(stop - at, forcesAt(stop));
        else sim.advance(stop - at, forcesAt(stop));
      }
      at = stop;
      if (forcesAt(at)) sampleForces(at);
      if (sampledInStep) samples.push_back({at, rowDue});
      else if (sampleDue) sample(at, rowDue);
    }
    {
      // The update's time ends when the GPU has done it, not when its launches are queued. (On a GPU the
      // observables' reductions queued between the steps run in this time too.)
      ScopedPhase t(timers, kUpdate);
      sim.finish();
    }
    const long long now = sim.step();
    progress.update(now - firstStep);
    if (!readSamples()) {
      status = kExitUnstable;
      break;
    }
    if (fields) fields->check();  // a failed write ends a run on one rank here, soon after it failed
    if (fieldsDue) writeFields();
    // Once per chunk (at most ~0.25 s of work), so that a signal ends the run soon and costs one reduction.
    const RunControl::Verdict verdict = control.poll();
    if ((checkpoints.every > 0 && now % checkpoints.every == 0) || verdict.wallCheckpointDue) writeCheckpoint();
    if (verdict.signal != 0) {
      stopSignal = verdict.signal;
      // SIGUSR1 asks for a checkpoint to continue from; SIGINT and SIGTERM leave one where the case wants them.
      if (stopSignal == SIGUSR1 || checkpoints.enabled()) writeCheckpoint();
      status = exitCodeForSignal(stopSignal);
      break;
    }
  }
  progress.finish(sim.step() - firstStep);
  if (fields) {
    ScopedPhase t(timers, kOutput);
    fields->finish();
  }
  if (writes && root) {
    ScopedPhase t(timers, kOutput);
    if (observables) observables->finish();
    if (forces) forces->finish();
  }

  // Every rank reached the same end: rank 0 reports it.
  if (stopSignal != 0 && root)
    log::warning("hopsim: {} received, stopped at step {} of {}; {}", interrupt::signalName(stopSignal), sim.step(),
                 total,
                 !writes ? "nothing was written"
                 : lastCheckpoint == sim.step()
                     ? fmt::format("checkpoint {}; continue with --restart {}",
                                   io::checkpointFolder(outDir, sim.step()).string(), outDir.string())
                     : fmt::format("the series and run.json are in {}", outDir.string()));
  if (status == kExitUnstable && root)
    log::error("error: the simulation became unstable by step {}: {}; {}. Lower the velocities or raise tau "
               "(viscosity), or refine the grid.",
               unstableStep, unstableWhy,
               lastGood >= 0 ? fmt::format("the last good fields are from step {}", lastGood)
                             : "no fields were written");
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
  const double updateTime = timers.seconds(kUpdate);
  const double cellUpdates = static_cast<double>(sim.cellCount()) * static_cast<double>(sim.step() - firstStep);
  const double mlups = updateTime > 0 ? cellUpdates / updateTime / 1e6 : 0.0;  // the update alone
  const double wallMlups = wall > 0 ? cellUpdates / wall / 1e6 : 0.0;          // the whole run, output included
  timers.add(kOther, std::max(0.0, wall - timers.total()));
  const double haloSeconds = sim.decomposed() ? sim.comm().allreduceMax(sim.haloSeconds()) : 0.0;
  // The field writer on this rank (rank 0's figures where several write): how long the run waited for it, how long
  // it wrote while the run went on, and what.
  const double writerWaited = fields ? fields->waitedSeconds() : 0.0;
  const double writerSeconds = fields ? fields->writerSeconds() : 0.0;
  const double writerBytes = fields ? fields->bytesWritten() : 0.0;
  const char* writerMode = !fields ? "none"
                           : fields->mode() == LbmFieldOutput::Mode::MainThread
                               ? "main thread (one file written collectively by every rank)"
                           : syncOutput ? "main thread (HOPSIM_SYNC_OUTPUT=1)"
                                        : "writer thread, overlapping the steps";

  // run.json is written after the wall clock stops: the phases it records add up to the wall time it records.
  if (writes && root) {
    nlohmann::json run;
    run["case"] = doc.toJson();
    run["case_file"] = c.sourceFile;
    run["build"] = buildInfo();
    run["host"] = hostInfo();
    run["devices"] = devicesInfo();
    run["backend"] = sim.backend().name();
    run["backend_description"] = sim.backend().description();
    run["device_plan"] = planJson(sim.devicePlan());
    run["steps"] = sim.step();
    if (restarted) run["restarted_from_step"] = firstStep;
    if (lastCheckpoint >= 0) run["last_checkpoint"] = io::checkpointFolder(outDir, lastCheckpoint).string();
    run["cells"] = sim.cellCount();
    run["units"] = unitsJson(c);
    run["status"] = stopSignal != 0 ? "interrupted" : status == 0 ? "completed" : "unstable";
    if (stopSignal != 0) run["signal"] = interrupt::signalName(stopSignal);
    run["timings"] = {{"wall_seconds", wall}, {"mlups", mlups}, {"mlups_wall", wallMlups}};
    if (const Decomposition* d = sim.decomposition()) {
      run["ranks"] = d->size();
      run["process_grid"] = d->dims();
      run["timings"]["halo_exchange_seconds_max_rank"] = haloSeconds;
    }
    for (const auto& [name, secs] : timers.table()) run["timings"]["phases"][name] = secs;
    if (fields)
      run["field_output"] = {{"steps", fields->stepsWritten()}, {"bytes", writerBytes},
                             {"writer_seconds", writerSeconds}, {"waited_seconds", writerWaited},
                             {"how", writerMode}};
    writeRunJson(outDir / "run.json", run);
  }

  log::info("done: {} steps in {}, {:.3g} cell updates: {:.1f} MLUPS in the update, {:.1f} MLUPS over the whole run",
            sim.step(), formatDuration(wall), cellUpdates, mlups, wallMlups);
  for (const auto& [name, secs] : timers.table())
    log::info("  {:<28} {:9.3f} s  {:5.1f}%", name, secs, wall > 0 ? 100.0 * secs / wall : 0.0);
  if (sim.decomposed()) log::info("  of which halo exchange       {:9.3f} s  (slowest rank)", haloSeconds);
  if (fields && fields->mode() != LbmFieldOutput::Mode::MainThread && !syncOutput)
    log::info("  of which waiting for writer  {:9.3f} s  (a full buffer behind, and the last files)", writerWaited);
  if (fields && fields->stepsWritten() > 0)
    log::info("fields: {} steps, {:.3g} GB in {:.3f} s ({:.2f} GB/s) by the {}", fields->stepsWritten(),
              writerBytes * 1e-9, writerSeconds, writerSeconds > 0 ? writerBytes * 1e-9 / writerSeconds : 0.0,
              writerMode);
  if (writes) {
    const std::string script = shellWord((outDir / io::kViewScriptName).string());
    log::info("{}", outputHint(outDir, fmt::format("pvpython {} or paraview --script={}", script, script)));
  }
  return status;
}

}  // namespace

int runCase(const io::CaseDocument& doc, const RunOptions& options) {
  log::RunLog runLog(options, mpi::Comm::world());
  try {
    return run(doc, options, runLog);
  } catch (const std::exception& e) {
    runLog.failed(e.what());
    throw;
  }
}

}  // namespace hopsim::lbm
