// The MD trajectory written by a writer thread and thermo read back in batches (issue 22): the same thermo.csv and
// H5MD datasets as the synchronous path (HOPSIM_SYNC_OUTPUT=1: each frame written and each sample read before the run
// goes on), byte for byte, on a stable and on a blowing-up run; single precision stored as float; a write that fails in the writer
// thread ends the run with its error, once, exit 1, and no trajectory under its final name; the phases add up.
#include <hdf5.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "CatchCompat.h"
#include "FileText.h"
#include "CommandRun.h"
#include "ScratchDir.h"
#include "io/CaseReader.h"
#include "io/md/H5mdReader.h"
#include "io/md/MdCaseParser.h"
#include "solvers/md/MdOutputBench.h"
#include "solvers/md/MdSimulation.h"
#include "solvers/md/MdTrajectoryOutput.h"

namespace fs = std::filesystem;

using hopsim::testing::fileText;

namespace {

// 256 atoms (fcc 4^3), thermo every 10 steps, a frame every 20: 100 steps take ~0.1 s on 2 cores.
std::string ljCase(const std::string& precision, long long steps, double dt = 0.005, int frameEvery = 20) {
  return "solver: md\nprecision: " + precision +
         "\nsystem: {lattice: {type: fcc, density: 0.8442, cells: [4, 4, 4]}}\n"
         "potential: {type: lj, cutoff: 2.5}\nneighbor: {skin: 0.3}\nvelocity: {temperature: 1.44, seed: 5}\n"
         "integrator: {type: nve, dt: " + std::to_string(dt) + "}\nrun: {steps: " + std::to_string(steps) +
         "}\nthermo: {every: 10}\noutput: {dir: unused, every: " + std::to_string(frameEvery) +
         ", formats: [h5md]}\ndevice: {backend: cpu}\n";
}

// HOPSIM_SYNC_OUTPUT for the runs in its scope.
class SyncOutput {
 public:
  explicit SyncOutput(bool on) {
    if (on) ::setenv("HOPSIM_SYNC_OUTPUT", "1", 1);
    else ::unsetenv("HOPSIM_SYNC_OUTPUT");
  }
  ~SyncOutput() { ::unsetenv("HOPSIM_SYNC_OUTPUT"); }
};

hopsim::md::MdRunResult run(const std::string& yaml, const fs::path& out, bool sync) {
  SyncOutput env(sync);
  const auto doc = hopsim::io::CaseDocument::fromString(yaml, "case.yaml");
  hopsim::RunOptions o;
  o.quiet = true;
  o.outputDir = out.string();
  return hopsim::md::runMd(hopsim::io::md::parseMdCase(doc), o, doc.toJson());
}

struct Dataset {
  std::vector<unsigned long long> dims;
  std::size_t typeSize = 0;
  H5T_class_t typeClass = H5T_NO_CLASS;
  std::vector<unsigned char> bytes;  // as stored
};

Dataset readDataset(const fs::path& file, const std::string& name) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);
  const hid_t ds = H5Dopen2(f, name.c_str(), H5P_DEFAULT);
  INFO(file.string() << ":" << name);
  REQUIRE(ds >= 0);
  Dataset d;
  const hid_t type = H5Dget_type(ds), space = H5Dget_space(ds);
  d.typeSize = H5Tget_size(type);
  d.typeClass = H5Tget_class(type);
  const int rank = H5Sget_simple_extent_ndims(space);
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  std::size_t count = 1;
  for (hsize_t v : dims) d.dims.push_back(v), count *= v;
  d.bytes.resize(count * d.typeSize);
  if (count > 0) REQUIRE(H5Dread(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, d.bytes.data()) >= 0);
  H5Sclose(space);
  H5Tclose(type);
  H5Dclose(ds);
  H5Fclose(f);
  return d;
}

const std::vector<std::string>& trajectoryDatasets() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const char* g : {"particles/all/position", "particles/all/velocity", "particles/all/id",
                          "particles/all/box/edges", "observables/temperature", "observables/potential_energy",
                          "observables/kinetic_energy", "observables/total_energy", "observables/pressure"})
      for (const char* d : {"step", "time", "value"}) v.push_back(std::string(g) + "/" + d);
    return v;
  }();
  return names;
}

// The two runs' files byte for byte (the H5MD file records no modification times), and every H5MD dataset value for
// value as stored, which says where a difference is.
void checkSameFiles(const fs::path& a, const fs::path& b) {
  REQUIRE(fs::exists(a / "thermo.csv"));
  CHECK(fileText(a / "thermo.csv") == fileText(b / "thermo.csv"));
  CHECK(fileText(a / "trajectory.xmf") == fileText(b / "trajectory.xmf"));
  CHECK(fileText(a / "trajectory.h5") == fileText(b / "trajectory.h5"));
  for (const std::string& name : trajectoryDatasets()) {
    INFO(name);
    const Dataset x = readDataset(a / "trajectory.h5", name), y = readDataset(b / "trajectory.h5", name);
    CHECK(x.dims == y.dims);
    CHECK(x.typeSize == y.typeSize);
    CHECK(x.bytes == y.bytes);
  }
}

}  // namespace

TEST_CASE("md output: the writer thread and the thermo batches give the synchronous path's files", "[md][integration]") {
  for (const std::string precision : {"single", "mixed"}) {
    INFO(precision);
    ScratchDir dir("md_async_output");
    const auto sync = run(ljCase(precision, 100), dir.path() / "sync", true);
    const auto async = run(ljCase(precision, 100), dir.path() / "async", false);
    REQUIRE(sync.ok);
    REQUIRE(async.ok);
    REQUIRE(async.thermo.size() == 11);
    CHECK(async.lastStep == sync.lastStep);
    checkSameFiles(dir.path() / "sync", dir.path() / "async");
    // 6 frames (0, 20, ..., 100) of 256 atoms; single precision stored as float, and read back as written.
    const Dataset pos = readDataset(dir.path() / "async" / "trajectory.h5", "particles/all/position/value");
    CHECK(pos.dims == std::vector<unsigned long long>{6, 256, 3});
    CHECK(pos.typeSize == (precision == "single" ? 4u : 8u));
    const auto frame = hopsim::io::md::readH5mdFrame((dir.path() / "async" / "trajectory.h5").string(), -1);
    REQUIRE(frame.state.size() == 256);
    CHECK((frame.state.x == async.final.x));
    CHECK((frame.state.vz == async.final.vz));
    CHECK((frame.state.id == async.final.id));
    const auto json = nlohmann::json::parse(fileText(dir.path() / "async" / "run.json"));
    CHECK(json["trajectory_output"]["frames"] == 6);
    CHECK(json["trajectory_output"]["how"] == "writer thread, overlapping the steps");
  }
}

TEST_CASE("md output: a run that blows up keeps the same rows, last good step and frames both ways", "[md][integration]") {
  // dt 0.03 at T 1.44: the forces turn NaN near step 300 (on the CPU engine's half list; the step depends on the
  // rounding, 290 or 300 with the builds seen, with and without FMA contraction), at a sample between two frames
  // (every 40 steps); the batched path reads it back only at the next frame, having run on to there, and must keep
  // the state of the last good sample all the same.
  ScratchDir dir("md_async_unstable");
  const auto sync = run(ljCase("double", 400, 0.03, 40), dir.path() / "sync", true);
  const auto async = run(ljCase("double", 400, 0.03, 40), dir.path() / "async", false);
  REQUIRE_FALSE(sync.ok);
  REQUIRE_FALSE(async.ok);
  CHECK(async.failure == sync.failure);
  CHECK(async.lastStep == sync.lastStep);
  CHECK(async.lastStep >= 200);
  CHECK((async.lastStep + 10) % 40 != 0);  // the failing sample is no frame's: the batched path ran on past it
  REQUIRE(async.thermo.size() == sync.thermo.size());
  for (std::size_t k = 0; k < sync.thermo.size(); ++k) {
    CHECK(async.thermo[k].step == sync.thermo[k].step);
    CHECK(async.thermo[k].etotal == sync.thermo[k].etotal);
  }
  // The state kept, the same both ways.
  REQUIRE(async.final.size() == 256);
  CHECK(async.final.step == async.lastStep);
  CHECK((async.final.x == sync.final.x));
  CHECK((async.final.vx == sync.final.vx));
  checkSameFiles(dir.path() / "sync", dir.path() / "async");
}

TEST_CASE("md output: a write that fails in the writer thread ends the run, once, with whole files only",
          "[md][integration]") {
  for (const bool sync : {false, true}) {
    INFO((sync ? "synchronous" : "writer thread"));
    ScratchDir dir("md_async_write_failure");
    fs::create_directories(dir.path());
    const fs::path caseFile = dir.path() / "case.yaml";
    std::ofstream(caseFile) << ljCase("mixed", 400);
    const fs::path out = dir.path() / "out";
    // The frame of step 60 fails halfway; `timeout` turns a hang into a failure rather than a stuck CI job.
    const CommandResult r = runCommand(std::string("HOPSIM_INJECT_TRAJECTORY_WRITE_FAILURE=60 OMP_NUM_THREADS=2 ") +
                                       (sync ? "HOPSIM_SYNC_OUTPUT=1 " : "") + "timeout 60 " + HOPSIM_BINARY +
                                       " run " + caseFile.string() + " --output " + out.string() + " 2>&1");
    INFO(r.output);
    CHECK(r.code == 1);
    std::size_t reports = 0;
    for (std::size_t at = r.output.find("injected by"); at != std::string::npos; at = r.output.find("injected by", at + 1))
      ++reports;
    CHECK(reports == 1);
    // No final name holds a partial trajectory; the unfinished file is kept as .part.
    CHECK_FALSE(fs::exists(out / "trajectory.h5"));
    CHECK_FALSE(fs::exists(out / "trajectory.xmf"));
    CHECK(fs::exists(out / "trajectory.h5.part"));
    // The synchronous path stops at the failed frame; the writer thread's run stops at the next check, which may
    // come as late as the end (the error is thrown then, the same way).
    if (sync) CHECK(r.output.find("       400 ") == std::string::npos);
  }
}

TEST_CASE("md output: the loop's phases add up to its wall time", "[md][integration]") {
  ScratchDir dir("md_async_phases");
  REQUIRE(run(ljCase("mixed", 100), dir.path(), false).ok);
  const auto json = nlohmann::json::parse(fileText(dir.path() / "run.json"));
  const auto& t = json["timings"];
  double sum = 0;
  for (const auto& [name, seconds] : t["phases"].items()) {
    INFO(name);
    CHECK(seconds.get<double>() >= 0.0);
    sum += seconds.get<double>();
  }
  const double loop = t["loop_seconds"].get<double>();
  CHECK(sum == Approx(loop).epsilon(0.05));
  CHECK(t["phases"]["steps"].get<double>() > 0.0);
}

TEST_CASE("md output: particles in id order from any engine order", "[md][unit]") {
  std::vector<std::size_t> order;
  const std::vector<long long> dense{5, 3, 4, 1, 2};
  hopsim::md::orderById(dense.data(), dense.size(), order);
  CHECK(order == std::vector<std::size_t>{4, 2, 3, 0, 1});
  const std::vector<long long> sparse{40, 10, 30};
  hopsim::md::orderById(sparse.data(), sparse.size(), order);
  CHECK(order == std::vector<std::size_t>{2, 0, 1});
  // Three ids in a range of three, one repeated: not a permutation, sorted instead (stable enough to be a bijection).
  const std::vector<long long> repeated{3, 1, 1};
  hopsim::md::orderById(repeated.data(), repeated.size(), order);
  CHECK(order[0] == 2);
  CHECK(((order[1] == 0 && order[2] == 1) || (order[1] == 1 && order[2] == 0)));
}

TEST_CASE("md bench with output: the run's rate over wall and update time beside the disk's", "[md][integration]") {
  ScratchDir dir("md_bench_with_output");
  fs::create_directories(dir.path());
  const fs::path caseFile = dir.path() / "case.yaml";
  std::ofstream(caseFile) << ljCase("mixed", 10);
  hopsim::md::OutputBenchOptions o;
  o.steps = 100;
  o.dir = dir.path();
  o.diskBytes = std::size_t(16) << 20;
  hopsim::RunOptions options;
  const nlohmann::json j = hopsim::md::benchWithOutput(caseFile.string(), {}, options, o);
  INFO(j.dump(2));
  CHECK(j["atoms"] == 256);
  CHECK(j["trajectory_output"]["frames"] == 3);  // steps 0, 50, 100
  CHECK(j["trajectory_output"]["bytes"].get<double>() == Approx(3 * 256 * (6 * 8 + 8)));
  const double wall = j["atom_steps_per_second_wall"], update = j["atom_steps_per_second_update"];
  CHECK(wall > 0);
  CHECK(update >= wall);
  CHECK(j["wall_over_update"].get<double>() >= 1.0);
  CHECK(j["disk_write"]["GBs"].get<double>() > 0);
  CHECK(j["disk_write"]["bytes"] == std::size_t(16) << 20);
  // The scratch folder of the run is gone; the case file stays.
  std::size_t entries = 0;
  for (const auto& e : fs::directory_iterator(dir.path())) entries += e.path() != caseFile;
  CHECK(entries == 0);
}
