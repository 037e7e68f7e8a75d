// The bench document (solvers/common/BenchSchema), `hopsim compare`'s arithmetic (BenchCompare) on crafted
// documents whose numbers are known, and the standard suite's plan (BenchSuite) for GPUs of several memory sizes.
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "CatchCompat.h"
#include "ScratchDir.h"
#include "core/ExitCode.h"
#include "solvers/common/BenchCompare.h"
#include "solvers/common/BenchSchema.h"
#include "solvers/common/BenchSuite.h"

using namespace hopsim;

namespace {

nlohmann::json timing(double median, double low, double high) {
  return {{"median", median}, {"min", low}, {"max", high}, {"spread", (high - low) / median}};
}

// An LBM run of 1e6 cells at `ms` per step (min, max), 152 bytes per cell-step.
nlohmann::json lbmRun(const std::string& id, double ms, double low, double high, double copyGBs) {
  const double mlups = 1e6 / (ms * 1e-3) / 1e6;
  return {
      {"id", id},
      {"solver", "lbm"},
      {"description", "crafted"},
      {"kernels", id.find("/hopper/") != std::string::npos ? "hopper" : "portable"},
      {"precision", "single"},
      {"device_plan", {{"backend", "cuda"}}},
      {"steps", 100},
      {"repeats", 3},
      {"step_time_ms", timing(ms, low, high)},
      {"throughput", {{"median", mlups}, {"min", 1e3 / high}, {"max", 1e3 / low}, {"spread", 0.1}, {"unit", "MLUPS"}}},
      {"fraction_of_copy_bandwidth", mlups * 1e6 * 152 / 1e9 / copyGBs},
      {"lattice", "D3Q19"},
      {"layout", "two-lattice"},
      {"domain", {100, 100, 100}},
      {"cells", 1e6},
      {"bytes_per_cell_step", 152}};
}

nlohmann::json mdRun(double ms) {
  return {{"id", "md/lj/mixed/portable/32000"},
          {"solver", "md"},
          {"description", "crafted"},
          {"kernels", "portable"},
          {"precision", "mixed"},
          {"device_plan", {{"backend", "cuda"}}},
          {"steps", 100},
          {"repeats", 3},
          {"step_time_ms", timing(ms, ms, ms)},
          {"throughput",
           {{"median", 32000 / (ms * 1e-3)}, {"min", 1}, {"max", 1}, {"spread", 0}, {"unit", "atom-steps/s"}}},
          {"fraction_of_copy_bandwidth", nullptr},
          {"atoms", 32000}};
}

nlohmann::json document(const std::string& gpu, const std::string& commit, double copyGBs, nlohmann::json runs) {
  const nlohmann::json provenance = {
      {"hopsim_version", "0.1.0"},
      {"git_commit", commit},
      {"build", {{"build_type", "Release"}, {"compiler", "gcc 12.2.0"}, {"cuda_architectures", "80,90"}}},
      {"host", {{"hostname", "node1"}}},
      {"date_utc", "2026-12-01T12:00:00Z"},
      {"backend", "cuda"},
      {"mpi_ranks", 1},
      {"gpu", {{"name", gpu}, {"multiprocessors", 132}, {"memory_bytes", 150000000000LL}, {"form_factor", "SXM"}}},
      {"cuda_runtime", "13.0"},
      {"cuda_driver", "13.0"}};
  const nlohmann::json copy = {
      {"median_gbs", copyGBs}, {"min_gbs", copyGBs}, {"max_gbs", copyGBs}, {"memory", "device"}};
  return benchDocument(provenance, copy, std::move(runs));
}

bool mentions(const std::vector<std::string>& problems, const std::string& part) {
  for (const auto& p : problems)
    if (p.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("benchSpread: median (mean of the middle two for an even count), extremes and relative spread",
          "[unit][bench]") {
  const nlohmann::json odd = benchSpread({3.0, 1.0, 2.0});
  CHECK(odd["median"] == 2.0);
  CHECK(odd["min"] == 1.0);
  CHECK(odd["max"] == 3.0);
  CHECK(odd["spread"].get<double>() == Approx(1.0));
  const nlohmann::json even = benchSpread({4.0, 1.0, 2.0, 3.0});
  CHECK(even["median"] == 2.5);
  CHECK(even["spread"].get<double>() == Approx(3.0 / 2.5));
}

TEST_CASE("a bench document passes the schema check; each required key of docs/bench-schema.json is checked",
          "[unit][bench]") {
  const nlohmann::json valid =
      document("NVIDIA H200", std::string(40, 'a'), 4000,
               {lbmRun("lbm/periodic/D3Q19/single/portable/two-lattice/100x100x100", 2, 1.9, 2.2, 4000),
                mdRun(0.1),
                {{"id", "lbm/failed"}, {"solver", "lbm"}, {"error", "out of memory"}}});
  INFO(valid.dump(2));
  CHECK(checkBenchDocument(valid).empty());
  CHECK(valid["schema_version"] == benchSchemaVersion());

  // The JSON Schema that documents the format and the C++ check must agree on what is required.
  std::ifstream in(std::string(HOPSIM_SOURCE_DIR) + "/docs/bench-schema.json");
  REQUIRE(in);
  const nlohmann::json schema = nlohmann::json::parse(in);
  const auto dropEach = [&](const nlohmann::json& required, const auto& pick, const std::string& where) {
    REQUIRE(required.is_array());
    REQUIRE(!required.empty());
    for (const auto& key : required) {
      nlohmann::json broken = valid;
      pick(broken).erase(key.get<std::string>());
      INFO(where << key.get<std::string>());
      CHECK(!checkBenchDocument(broken).empty());
    }
  };
  dropEach(
      schema["required"], [](nlohmann::json& d) -> nlohmann::json& { return d; }, "");
  dropEach(
      schema["properties"]["provenance"]["required"],
      [](nlohmann::json& d) -> nlohmann::json& { return d["provenance"]; }, "provenance.");
  dropEach(
      schema["properties"]["provenance"]["properties"]["build"]["required"],
      [](nlohmann::json& d) -> nlohmann::json& { return d["provenance"]["build"]; }, "provenance.build.");
  dropEach(
      schema["properties"]["provenance"]["properties"]["gpu"]["required"],
      [](nlohmann::json& d) -> nlohmann::json& { return d["provenance"]["gpu"]; }, "provenance.gpu.");
  dropEach(
      schema["properties"]["copy_bandwidth"]["required"],
      [](nlohmann::json& d) -> nlohmann::json& { return d["copy_bandwidth"]; }, "copy_bandwidth.");
  const nlohmann::json& run = schema["$defs"]["run"];
  dropEach(
      run["required"], [](nlohmann::json& d) -> nlohmann::json& { return d["runs"][0]; }, "runs[0].");
  dropEach(
      run["then"]["required"], [](nlohmann::json& d) -> nlohmann::json& { return d["runs"][0]; }, "runs[0].");
  dropEach(
      run["then"]["then"]["required"], [](nlohmann::json& d) -> nlohmann::json& { return d["runs"][0]; }, "runs[0].");
  dropEach(
      run["then"]["else"]["required"], [](nlohmann::json& d) -> nlohmann::json& { return d["runs"][1]; }, "runs[1].");
  dropEach(
      schema["$defs"]["spread"]["required"],
      [](nlohmann::json& d) -> nlohmann::json& { return d["runs"][0]["step_time_ms"]; }, "step_time_ms.");

  // Types, and where the problem is.
  nlohmann::json wrong = valid;
  wrong["runs"][0]["step_time_ms"]["median"] = "2 ms";
  const auto problems = checkBenchDocument(wrong);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0] == "runs[0].step_time_ms.median: string where a number is required");
  // Null is allowed for a GPU and a copy bandwidth (the cpu backend of a build without CUDA), not for a run's time.
  nlohmann::json cpu = valid;
  cpu["provenance"]["gpu"] = nullptr;
  cpu["copy_bandwidth"] = nullptr;
  CHECK(checkBenchDocument(cpu).empty());
}

TEST_CASE("the schema check refuses another major version and documents without a schema", "[unit][bench]") {
  nlohmann::json d = document("NVIDIA H200", "x", 4000, {mdRun(0.1)});
  d["schema_version"] = "1.7";  // a newer minor version adds keys a reader may ignore
  CHECK(checkBenchDocument(d).empty());
  d["schema_version"] = "2.0";
  auto problems = checkBenchDocument(d);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find("schema_version: 2.0 has another major version") != std::string::npos);
  d["schema_version"] = "one";
  CHECK(mentions(checkBenchDocument(d), "major.minor"));
  // What `hopsim bench` wrote before the schema: {"solver": "lbm", "runs": [...]} without "schema".
  problems = checkBenchDocument({{"solver", "lbm"}, {"runs", nlohmann::json::array()}});
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find("not a hopsim bench document") != std::string::npos);
}

TEST_CASE("compare: ratios, their range, the bandwidth prediction, missing runs, Hopper gain and warnings",
          "[unit][bench]") {
  const std::string x = "lbm/periodic/D3Q19/single/portable/two-lattice/100x100x100";
  const std::string xHopper = "lbm/periodic/D3Q19/single/hopper/two-lattice/100x100x100";
  BenchFile a{"a100.json", "a100",
              document("NVIDIA A100-SXM4-80GB", std::string(40, 'a'), 2000,
                       {lbmRun(x, 2.0, 1.9, 2.2, 2000), lbmRun("lbm/only-in-a", 1, 1, 1, 2000), mdRun(0.2)})};
  BenchFile b{"h100.json", "h100",
              document("NVIDIA H100 80GB HBM3", std::string(40, 'b'), 3000,
                       {lbmRun(x, 1.0, 0.95, 1.1, 3000), lbmRun(xHopper, 0.8, 0.8, 0.8, 3000), mdRun(0.08)})};
  const nlohmann::json c = compareBench({a, b});
  INFO(c.dump(2));
  REQUIRE(c["runs"].size() == 4);  // the baseline's three in its order, then the one only h100 has
  const nlohmann::json& row = c["runs"][0];
  CHECK(row["id"] == x);
  CHECK(row["ratios"][0].is_null());  // the baseline against itself
  const nlohmann::json& r = row["ratios"][1];
  CHECK(r["speed"].get<double>() == Approx(2.0));
  CHECK(r["speed_low"].get<double>() == Approx(1.9 / 1.1));
  CHECK(r["speed_high"].get<double>() == Approx(2.2 / 0.95));
  CHECK(r["bandwidth_predicted"].get<double>() == Approx(1.5));
  CHECK(r["measured_over_predicted"].get<double>() == Approx(2.0 / 1.5));
  CHECK(r["predicted_step_time_ms"].get<double>() == Approx(2.0 * 2000 / 3000));
  CHECK(row["per_file"][1]["fraction_of_copy_bandwidth"].get<double>() == Approx(152.0 / 3000));
  CHECK(c["runs"][2]["ratios"][1]["speed"].get<double>() == Approx(2.5));  // MD 0.2 ms vs 0.08 ms
  // Runs one side lacks: listed, with the files that lack them.
  REQUIRE(c["missing"].size() == 2);
  CHECK(c["missing"][0]["id"] == "lbm/only-in-a");
  CHECK(c["missing"][0]["missing_in"] == nlohmann::json::array({"h100"}));
  CHECK(c["missing"][1]["id"] == xHopper);
  CHECK(c["missing"][1]["missing_in"] == nlohmann::json::array({"a100"}));
  // The Hopper kernels against the portable ones on the same GPU: 1.0 ms / 0.8 ms.
  REQUIRE(c["hopper_gain"].size() == 1);
  CHECK(c["hopper_gain"][0]["file"] == "h100");
  CHECK(c["hopper_gain"][0]["gain"].get<double>() == Approx(1.25));
  bool commits = false;
  for (const auto& w : c["warnings"])
    commits = commits || w.get<std::string>().find("hopsim commits differ") != std::string::npos;
  CHECK(commits);

  const std::string table = formatComparison(c, "table");
  INFO(table);
  CHECK(table.find("2.000") != std::string::npos);         // speed
  CHECK(table.find("1.727..2.316") != std::string::npos);  // its range
  CHECK(table.find("1.500") != std::string::npos);         // bandwidth prediction
  CHECK(table.find("1.333") != std::string::npos);         // measured over predicted
  CHECK(table.find("not in h100: lbm/only-in-a") != std::string::npos);
  CHECK(table.find("warning: a100 and h100: hopsim commits differ") != std::string::npos);
  const std::string csv = formatComparison(c, "csv");
  CHECK(csv.rfind("run,a100 ms/step,", 0) == 0);
  CHECK(formatComparison(c, "markdown").find("|---") != std::string::npos);
}

TEST_CASE("compare warns when the same GPU model ran at different clocks or power limits", "[unit][bench]") {
  const std::string x = "lbm/periodic/D3Q19/single/portable/two-lattice/100x100x100";
  BenchFile a{"a.json", "a", document("NVIDIA H100 80GB HBM3", "x", 3000, {lbmRun(x, 1.0, 1.0, 1.0, 3000)})};
  BenchFile b{"b.json", "b", document("NVIDIA H100 80GB HBM3", "x", 3000, {lbmRun(x, 1.2, 1.2, 1.2, 3000)})};
  a.doc["provenance"]["gpu"]["power_limit_w"] = 700.0;
  b.doc["provenance"]["gpu"]["power_limit_w"] = 500.0;
  a.doc["provenance"]["gpu"]["sm_clock_application_mhz"] = 1980;
  b.doc["provenance"]["gpu"]["sm_clock_application_mhz"] = 1980;
  const nlohmann::json c = compareBench({a, b});
  REQUIRE(c["warnings"].size() == 1);
  CHECK(c["warnings"][0] ==
        "a and b: the same GPU model with different clocks or power limits (power_limit_w 700 vs 500)");
}

TEST_CASE("compare refuses files that share no run, and bad or truncated JSON with the file and position",
          "[unit][bench]") {
  BenchFile a{"a.json", "a", document("GPU A", "x", 2000, {lbmRun("lbm/one", 1, 1, 1, 2000)})};
  BenchFile b{"b.json", "b", document("GPU B", "x", 3000, {lbmRun("lbm/two", 1, 1, 1, 3000)})};
  try {
    compareBench({a, b});
    FAIL("no exception");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(what.find("b.json: no run matches a measured run of a.json") != std::string::npos);
    CHECK(what.find("lbm/two") != std::string::npos);
  }

  ScratchDir dir("bench_files");
  std::filesystem::create_directories(dir.path());
  const std::string good = document("GPU A", "x", 2000, {mdRun(0.1)}).dump(2);
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir.path() / name) << text;
    return (dir.path() / name).string();
  };
  const std::string truncated = write("truncated.json", good.substr(0, good.size() / 2));
  try {
    readBenchFile(truncated);
    FAIL("no exception");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(what.rfind(truncated + ": not valid JSON: parse error at line ", 0) == 0);
  }
  nlohmann::json newer = nlohmann::json::parse(good);
  newer["schema_version"] = "2.1";
  const std::string newerFile = write("newer.json", newer.dump());
  try {
    readBenchFile(newerFile);
    FAIL("no exception");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find(newerFile + ": not a usable bench document: schema_version: 2.1") == 0);
  }
  CHECK(readBenchFile(write("good.json", good)).label == "good");
}

TEST_CASE("compare --project: step times scaled by datasheet bandwidths, Hopper kernels only on Hopper GPUs",
          "[unit][bench]") {
  const std::string portable = "lbm/periodic/D3Q19/single/portable/two-lattice/100x100x100";
  const std::string hopper = "lbm/periodic/D3Q19/single/hopper/two-lattice/100x100x100";
  const BenchFile h200{
      "h200.json", "h200",
      document("NVIDIA H200", "x", 4000,
               {lbmRun(portable, 1.0, 1.0, 1.0, 4000), lbmRun(hopper, 0.9, 0.9, 0.9, 4000), mdRun(0.1)})};
  // An A100 80GB SXM: 2,039 GB/s against the H200's 4,800; no clusters or TMA.
  nlohmann::json p = projectBench(h200, "a100-80gb");
  INFO(p.dump(2));
  REQUIRE(p["runs"].size() == 2);
  CHECK(p["runs"][0]["id"] == portable);
  CHECK(p["runs"][0]["projected_step_time_ms"].get<double>() == Approx(4800.0 / 2039));
  CHECK(p["runs"][0]["projected_throughput"].get<double>() == Approx(1000.0 * 2039 / 4800));  // MLUPS of 1e6 cells
  CHECK(p["runs"][1]["projected_step_time_ms"].get<double>() == Approx(0.1 * 4800 / 2039));
  REQUIRE(p["left_out"].size() == 1);
  CHECK(p["left_out"][0]["id"] == hopper);
  CHECK(p["left_out"][0]["why"].get<std::string>().find("no thread block clusters or TMA") != std::string::npos);
  CHECK(p["target_copy_gbs_assumed"].get<double>() == Approx(4000.0 * 2039 / 4800));
  CHECK(formatProjection(p, "table").rfind("PROJECTION for NVIDIA A100 80GB SXM4", 0) == 0);
  // An H100 SXM has the Hopper features: the Hopper run is projected too.
  p = projectBench(h200, "h100-sxm");
  REQUIRE(p["runs"].size() == 3);
  CHECK(p["runs"][1]["projected_step_time_ms"].get<double>() == Approx(0.9 * 4800 / 3350));
  CHECK_THROWS_AS(projectBench(h200, "b200"), InputError);
  // A run that needs more memory than the target has is left out, not projected: D3Q19 FP32 on 1024 x 1024 x 512
  // cells needs 2 x 19 x 4 + 1 = 153 bytes per cell, 82 GB: on an H100 (80 GB) the suite sizes it down.
  BenchFile large = h200;
  const std::string big = "lbm/periodic/D3Q19/single/portable/two-lattice/1024x1024x512";
  large.doc["runs"].push_back(lbmRun(big, 20.0, 20.0, 20.0, 4000));
  large.doc["runs"].back()["cells"] = 1024.0 * 1024 * 512;  // lbmRun's lattice and precision: D3Q19, single
  p = projectBench(large, "h100-sxm");
  REQUIRE(p["left_out"].size() == 1);
  CHECK(p["left_out"][0]["id"] == big);
  CHECK(p["left_out"][0]["why"].get<std::string>().find("needs about 82.1 GB of the target's 80 GB") !=
        std::string::npos);
  CHECK(projectBench(large, "h200")["runs"].size() == 4);  // 141 GB: it fits
  // A GPU outside the table: its datasheet figure from clocks and bus width, when the file has them.
  BenchFile other = h200;
  other.doc["provenance"]["gpu"]["name"] = "NVIDIA L40S";
  CHECK_THROWS_AS(projectBench(other, "h200"), InputError);
  other.doc["provenance"]["gpu"]["theoretical_bandwidth_gbs"] = 864.0;
  CHECK(projectBench(other, "h200")["runs"][0]["projected_step_time_ms"].get<double>() == Approx(864.0 / 4800));
}

namespace {

const SuiteCase* findCase(const SuitePlan& plan, const std::string& label) {
  for (const auto& c : plan.cases)
    if (c.label == label) return &c;
  return nullptr;
}

}  // namespace

TEST_CASE("the standard suite: every case on a GPU with room, sized down or left out where memory is short",
          "[unit][bench]") {
  constexpr double GiB = double(1ull << 30);
  // 141 GiB free (an H200): everything at full size, FP32 storage of the large grid too (153 B per cell: 76.5 GiB).
  SuitePlan plan = planStandardSuite(Backend::Cuda, SuiteScale::Full, 139 * GiB, true);
  CHECK(plan.notes.empty());
  CHECK(plan.cases.size() == 2 * 5 + 2 + 3);  // 5 cases x 2 precisions, the large grid twice, MD at 3 sizes
  REQUIRE(findCase(plan, "lbm periodic D3Q19 single 1024x1024x512"));
  REQUIRE(findCase(plan, "lbm periodic D3Q19 half 1024x1024x512"));
  REQUIRE(findCase(plan, "lbm cavity3d D3Q19 half 256x256x256"));
  REQUIRE(findCase(plan, "lbm cylinder2d D2Q9 single 9600x1984"));
  CHECK(findCase(plan, "lbm periodic D2Q9 single 4096x4096")->variants ==
        std::vector{KernelVariant::Portable, KernelVariant::Hopper});
  CHECK(findCase(plan, "lbm cavity3d D3Q19 half 256x256x256")->variants ==
        std::vector{KernelVariant::Portable, KernelVariant::Hopper});
  // No Hopper kernel is built for D3Q27: kernels hopper would time the portable bulk update a second time.
  CHECK(findCase(plan, "lbm periodic D3Q27 single 256x256x256")->variants == std::vector{KernelVariant::Portable});
  CHECK(findCase(plan, "md lj mixed 32000 atoms"));
  CHECK(findCase(plan, "md lj mixed 1048576 atoms"));
  CHECK(findCase(plan, "md lj mixed 16384000 atoms"));

  // 79 GiB free (an H100 80 GB, no Hopper kernels asked): FP32 storage of the large grid does not fit (0.85 of the
  // free memory is 67 GiB), FP16 storage (77 B per cell: 38.5 GiB) does.
  plan = planStandardSuite(Backend::Cuda, SuiteScale::Full, 79 * GiB, false);
  CHECK(!findCase(plan, "lbm periodic D3Q19 single 1024x1024x512"));
  CHECK(findCase(plan, "lbm periodic D3Q19 half 1024x1024x512"));
  REQUIRE(plan.notes.size() == 1);
  CHECK(plan.notes[0].find("left out: lbm periodic D3Q19 single 1024x1024x512") == 0);
  CHECK(findCase(plan, "lbm periodic D2Q9 single 4096x4096")->variants == std::vector{KernelVariant::Portable});

  // 39 GiB free (an A100 40 GB): FP16 storage of the large grid is halved along its largest axis (y of the equal x
  // and y), and says so.
  plan = planStandardSuite(Backend::Cuda, SuiteScale::Full, 39 * GiB, false);
  CHECK(findCase(plan, "lbm periodic D3Q19 half 1024x512x512"));
  REQUIRE(plan.notes.size() == 2);
  CHECK(plan.notes[0].find("sized down: lbm periodic D3Q19 half from 1024x1024x512 to 1024x512x512") == 0);

  // 139 GiB of GPU memory but 16 GiB of host memory: the initial state of the large box (33 B per cell in double,
  // 16.5 GiB at 1024 x 1024 x 512) must fit in 0.85 of the host's too: FP16 storage is halved once, FP32 storage
  // (which runs only whole) is left out.
  plan = planStandardSuite(Backend::Cuda, SuiteScale::Full, 139 * GiB, true, 16 * GiB);
  CHECK(findCase(plan, "lbm periodic D3Q19 half 1024x512x512"));
  CHECK(findCase(plan, "lbm periodic D3Q19 single 1024x1024x512") == nullptr);
  CHECK(plan.notes.size() == 2);

  // The cpu backend: single precision only, smaller sizes, the MD sizes of a workstation.
  plan = planStandardSuite(Backend::Cpu, SuiteScale::Full, 0, false);
  CHECK(plan.cases.size() == 5 + 1 + 2);
  CHECK(findCase(plan, "lbm periodic D3Q19 single 128x128x128"));
  CHECK(findCase(plan, "md lj mixed 256000 atoms"));
  for (const auto& c : plan.cases) CHECK(c.label.find("half") == std::string::npos);
}

TEST_CASE("the reference results in docs/bench are valid bench documents of the current suite version",
          "[unit][bench]") {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(HOPSIM_SOURCE_DIR) / "docs" /
                                                               "bench")) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    INFO(entry.path().string());
    const BenchFile f = readBenchFile(entry.path().string());
    std::string problems;
    for (const auto& p : checkBenchDocument(f.doc)) problems += p + "\n";
    CHECK(problems == "");
    // A suite of another version times other cases: the reference must be measured again when the suite changes.
    CHECK(f.doc["suite"]["version"] == kStandardSuiteVersion);
    CHECK(f.doc["provenance"]["gpu"].is_object());
    // Compared with itself, every run matches at a speed ratio of 1.
    const nlohmann::json c = compareBench({f, f});
    CHECK(c["missing"].empty());
    for (const auto& run : c["runs"])
      if (!run["ratios"][1].is_null()) CHECK(run["ratios"][1]["speed"].get<double>() == Approx(1.0));
  }
  CHECK(files >= 1);
}
