// Matching bench runs across files and the tables of step times, ratios and bandwidth predictions.
#include "solvers/common/BenchCompare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/ExitCode.h"
#include "solvers/common/BenchSchema.h"
#include "solvers/common/BenchSuite.h"

namespace hopsim {
namespace {

// nlohmann's messages open with "[json.exception.parse_error.101] "; the user needs what follows.
std::string withoutExceptionTag(const std::string& what) {
  const auto close = what.find("] ");
  return what.rfind("[json.exception", 0) == 0 && close != std::string::npos ? what.substr(close + 2) : what;
}

double number(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0;
}

std::string text(const nlohmann::json& j, const char* key, const std::string& fallback = "") {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : fallback;
}

std::string gpuText(const nlohmann::json& provenance) {
  const nlohmann::json& gpu = provenance["gpu"];
  if (!gpu.is_object())
    return fmt::format("{} ({})", text(provenance, "backend"), text(provenance["host"], "cpu_model"));
  return fmt::format("{} ({}, {} SMs)", text(gpu, "name"), text(gpu, "form_factor", "unknown"),
                     gpu.value("multiprocessors", 0));
}

// The id with the kernel family replaced: lbm/<geometry>/<lattice>/<precision>/<kernels>/<layout>/<cells>.
std::string portableTwin(const std::string& id) {
  const std::string hopper = "/hopper/";
  const auto at = id.find(hopper);
  return at == std::string::npos ? std::string() : id.substr(0, at) + "/portable/" + id.substr(at + hopper.size());
}

std::string shortCommit(const std::string& commit) {
  const bool dirty = commit.size() > 6 && commit.compare(commit.size() - 6, 6, "-dirty") == 0;
  const std::string hash = dirty ? commit.substr(0, commit.size() - 6) : commit;
  return (hash.size() > 12 ? hash.substr(0, 12) : hash) + (dirty ? "-dirty" : "");
}

}  // namespace

BenchFile readBenchFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open the file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  BenchFile f;
  f.path = path;
  f.label = std::filesystem::path(path).stem().string();
  try {
    f.doc = nlohmann::json::parse(buffer.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(path + ": not valid JSON: " + withoutExceptionTag(e.what()) +
                     "; a bench file from `hopsim bench --json` or `hopsim bench --suite` is required");
  }
  const std::vector<std::string> problems = checkBenchDocument(f.doc);
  if (!problems.empty()) {
    std::string message = path + ": not a usable bench document: " + problems.front();
    if (problems.size() > 1) message += fmt::format(" (and {} more problems)", problems.size() - 1);
    throw InputError(message);
  }
  return f;
}

nlohmann::json compareBench(const std::vector<BenchFile>& inputFiles, std::size_t baseline) {
  if (inputFiles.size() < 2) throw InputError("compare needs at least two bench files");
  if (baseline >= inputFiles.size()) throw InputError("the baseline is not one of the files");
  std::vector<BenchFile> files = inputFiles;
  // Labels are the file names; two files of the same name (a/bench.json, b/bench.json) get their position added.
  std::map<std::string, int> seen;
  for (const auto& f : inputFiles) ++seen[f.label];
  for (std::size_t k = 0; k < files.size(); ++k)
    if (seen[files[k].label] > 1) files[k].label += fmt::format("#{}", k + 1);

  nlohmann::json out;
  nlohmann::json warnings = nlohmann::json::array();
  out["baseline"] = baseline;
  out["files"] = nlohmann::json::array();
  // Per file: id -> run (the first of an id; a repeated id is a warning).
  std::vector<std::map<std::string, const nlohmann::json*>> byId(files.size());
  std::vector<std::string> order;
  std::set<std::string> known;
  const auto addIds = [&](std::size_t k) {
    for (const auto& run : files[k].doc["runs"]) {
      const std::string id = run["id"];
      if (byId[k].count(id)) {
        warnings.push_back(fmt::format("{}: run {} appears more than once; the first is compared", files[k].label, id));
        continue;
      }
      byId[k][id] = &run;
      if (run.contains("error"))
        warnings.push_back(fmt::format("{}: run {} failed: {}", files[k].label, id, run["error"].get<std::string>()));
      if (known.insert(id).second) order.push_back(id);
    }
  };
  addIds(baseline);
  for (std::size_t k = 0; k < files.size(); ++k)
    if (k != baseline) addIds(k);

  for (const auto& f : files) {
    const nlohmann::json& p = f.doc["provenance"];
    nlohmann::json entry = {{"label", f.label},
                            {"path", f.path},
                            {"gpu", gpuText(p)},
                            {"backend", p["backend"]},
                            {"copy_bandwidth_gbs", copyBandwidthGBs(f.doc["copy_bandwidth"])},
                            {"git_commit", p["git_commit"]},
                            {"build_type", p["build"]["build_type"]},
                            {"date_utc", p["date_utc"]}};
    if (f.doc.contains("suite")) {
      entry["suite"] = f.doc["suite"];
      for (const auto& note : f.doc["suite"]["notes"])
        warnings.push_back(fmt::format("{}: {}", f.label, note.get<std::string>()));
    }
    if (copyBandwidthGBs(f.doc["copy_bandwidth"]) <= 0)
      warnings.push_back(f.label + ": no copy bandwidth measured: no fractions or bandwidth predictions for it");
    out["files"].push_back(entry);
  }

  // Builds, backends and clocks that differ make the ratios mean something else than "this GPU against that one".
  const nlohmann::json& base = files[baseline].doc["provenance"];
  for (std::size_t k = 0; k < files.size(); ++k) {
    if (k == baseline) continue;
    const nlohmann::json& p = files[k].doc["provenance"];
    const auto differs = [&](const std::string& what, const std::string& a, const std::string& b) {
      if (a != b)
        warnings.push_back(fmt::format("{} and {}: {} differ ({} vs {})", files[baseline].label, files[k].label, what,
                                       a.empty() ? "?" : a, b.empty() ? "?" : b));
    };
    differs("hopsim commits", shortCommit(text(base, "git_commit")), shortCommit(text(p, "git_commit")));
    differs("build types", text(base["build"], "build_type"), text(p["build"], "build_type"));
    differs("compilers", text(base["build"], "compiler"), text(p["build"], "compiler"));
    differs("backends", text(base, "backend"), text(p, "backend"));
    if (base["gpu"].is_object() && p["gpu"].is_object() && base["gpu"]["name"] == p["gpu"]["name"]) {
      for (const char* setting : {"sm_clock_peak_mhz", "memory_clock_peak_mhz", "sm_clock_application_mhz",
                                  "memory_clock_application_mhz", "power_limit_w"}) {
        const double a = number(base["gpu"], setting), b = number(p["gpu"], setting);
        if (a > 0 && b > 0 && a != b)
          warnings.push_back(
              fmt::format("{} and {}: the same GPU model with different clocks or power limits ({} "
                          "{} vs {})",
                          files[baseline].label, files[k].label, setting, a, b));
      }
    }
  }

  const double baseCopy = copyBandwidthGBs(files[baseline].doc["copy_bandwidth"]);
  std::vector<int> shared(files.size(), 0);
  nlohmann::json runs = nlohmann::json::array();
  nlohmann::json missing = nlohmann::json::array();
  for (const std::string& id : order) {
    nlohmann::json row = {{"id", id}};
    nlohmann::json perFile = nlohmann::json::array();
    nlohmann::json lacking = nlohmann::json::array();
    for (std::size_t k = 0; k < files.size(); ++k) {
      const auto it = byId[k].find(id);
      if (it == byId[k].end()) {
        lacking.push_back(files[k].label);
        perFile.push_back(nullptr);
        continue;
      }
      const nlohmann::json& r = *it->second;
      row["solver"] = r["solver"];
      if (r.contains("error")) {
        perFile.push_back(nullptr);
        continue;
      }
      row["unit"] = r["throughput"]["unit"];
      perFile.push_back({{"step_time_ms", r["step_time_ms"]},
                         {"throughput", r["throughput"]["median"]},
                         {"fraction_of_copy_bandwidth", r["fraction_of_copy_bandwidth"]}});
    }
    if (!lacking.empty()) missing.push_back({{"id", id}, {"missing_in", lacking}});
    nlohmann::json ratios = nlohmann::json::array();
    const nlohmann::json& a = perFile[baseline];
    for (std::size_t k = 0; k < files.size(); ++k) {
      const nlohmann::json& b = perFile[k];
      if (k == baseline || a.is_null() || b.is_null()) {
        ratios.push_back(nullptr);
        continue;
      }
      ++shared[k];
      const nlohmann::json& ta = a["step_time_ms"];
      const nlohmann::json& tb = b["step_time_ms"];
      nlohmann::json ratio = {{"speed", ta["median"].get<double>() / tb["median"].get<double>()},
                              {"speed_low", ta["min"].get<double>() / tb["max"].get<double>()},
                              {"speed_high", ta["max"].get<double>() / tb["min"].get<double>()}};
      const double copy = copyBandwidthGBs(files[k].doc["copy_bandwidth"]);
      if (baseCopy > 0 && copy > 0) {
        // A run limited by memory bandwidth runs faster by the ratio of the copy bandwidths.
        ratio["bandwidth_predicted"] = copy / baseCopy;
        ratio["measured_over_predicted"] = ratio["speed"].get<double>() / (copy / baseCopy);
        ratio["predicted_step_time_ms"] = ta["median"].get<double>() * baseCopy / copy;
      } else {
        ratio["bandwidth_predicted"] = nullptr;
        ratio["measured_over_predicted"] = nullptr;
        ratio["predicted_step_time_ms"] = nullptr;
      }
      ratios.push_back(ratio);
    }
    row["per_file"] = perFile;
    row["ratios"] = ratios;
    runs.push_back(row);
  }
  for (std::size_t k = 0; k < files.size(); ++k) {
    if (k == baseline || shared[k] > 0) continue;
    const auto ids = [&](std::size_t f) {
      std::string list;
      for (const auto& [id, run] : byId[f]) list += (list.empty() ? "" : ", ") + id;
      return list.empty() ? std::string("none") : list;
    };
    throw InputError(
        fmt::format("{}: no run matches a measured run of {}, so there is nothing to compare; runs are "
                    "matched by id (its runs: {}; {}'s: {})",
                    files[k].path, files[baseline].path, ids(k), files[baseline].label, ids(baseline)));
  }

  // The Hopper kernels' gain over the portable ones on the same GPU, so that a comparison of a Hopper GPU with an
  // older one separates what bandwidth buys from what the Hopper features do.
  nlohmann::json gains = nlohmann::json::array();
  for (std::size_t k = 0; k < files.size(); ++k)
    for (const auto& [id, run] : byId[k]) {
      const std::string twin = portableTwin(id);
      const auto it = byId[k].find(twin);
      if (twin.empty() || run->contains("error") || it == byId[k].end() || it->second->contains("error")) continue;
      gains.push_back({{"file", files[k].label},
                       {"id", id},
                       {"portable_id", twin},
                       {"gain", (*it->second)["step_time_ms"]["median"].get<double>() /
                                    (*run)["step_time_ms"]["median"].get<double>()}});
    }

  out["runs"] = runs;
  out["hopper_gain"] = gains;
  out["missing"] = missing;
  out["warnings"] = warnings;
  return out;
}

namespace {

std::string fixed(const nlohmann::json& v, const char* format) {
  return v.is_number() ? fmt::format(fmt::runtime(format), v.get<double>()) : std::string("-");
}

// Rows of cells rendered as aligned columns, a markdown table or CSV.
std::string render(const std::vector<std::vector<std::string>>& rows, const std::string& format) {
  std::string out;
  if (format == "csv") {
    for (const auto& row : rows) {
      for (std::size_t c = 0; c < row.size(); ++c) {
        const bool quote = row[c].find_first_of(",\"") != std::string::npos;
        std::string cell = row[c];
        if (quote) {
          std::string escaped;
          for (const char ch : cell) escaped += ch == '"' ? std::string("\"\"") : std::string(1, ch);
          cell = "\"" + escaped + "\"";
        }
        out += (c ? "," : "") + cell;
      }
      out += "\n";
    }
    return out;
  }
  std::vector<std::size_t> width(rows.empty() ? 0 : rows[0].size(), 0);
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  const bool markdown = format == "markdown";
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::string line = markdown ? "| " : "";
    for (std::size_t c = 0; c < rows[r].size(); ++c) {
      // The first column (ids, labels) reads left-aligned, numbers right-aligned.
      line += c == 0 ? fmt::format("{:<{}}", rows[r][c], width[c]) : fmt::format("{:>{}}", rows[r][c], width[c]);
      if (c + 1 < rows[r].size()) line += markdown ? " | " : "  ";
    }
    out += line + (markdown ? " |" : "") + "\n";
    if (r == 0 && markdown) {
      // Numbers right-aligned: the colon takes the last dash's place.
      std::string rule = "|";
      for (std::size_t c = 0; c < width.size(); ++c)
        rule += c == 0 ? std::string(width[c] + 2, '-') + "|" : std::string(width[c] + 1, '-') + ":|";
      out += rule + "\n";
    } else if (r == 0) {
      std::size_t total = 0;
      for (const std::size_t w : width) total += w + 2;
      out += std::string(total - 2, '-') + "\n";
    }
  }
  return out;
}

}  // namespace

std::string formatComparison(const nlohmann::json& comparison, const std::string& format) {
  const auto& files = comparison["files"];
  const std::size_t baseline = comparison["baseline"];
  const std::string base = files[baseline]["label"];
  std::string out;
  const bool csv = format == "csv";

  // The columns name the files by letter (A, B, ...), the first table says which file each letter is.
  const auto key = [](std::size_t k) {
    return k < 26 ? std::string(1, static_cast<char>('A' + k)) : fmt::format("F{}", k + 1);
  };
  const std::string baseKey = key(baseline);
  if (!csv) {
    std::vector<std::vector<std::string>> about = {
        {"file", "name", "GPU / backend", "copy GB/s", "hopsim", "build", "date"}};
    for (std::size_t k = 0; k < files.size(); ++k) {
      const auto& f = files[k];
      about.push_back({key(k) + (k == baseline ? " (baseline)" : ""), f["label"].get<std::string>(),
                       f["gpu"].get<std::string>(), fixed(f["copy_bandwidth_gbs"], "{:.0f}"),
                       shortCommit(f["git_commit"]), f["build_type"].get<std::string>(),
                       f["date_utc"].get<std::string>()});
    }
    out += render(about, format) + "\n";
  }

  std::vector<std::string> header = {"run"};
  for (std::size_t k = 0; k < files.size(); ++k) {
    // CSV is read by programs: full names there, letters on screen.
    const std::string l = csv ? files[k]["label"].get<std::string>() : key(k);
    header.push_back(l + " ms/step");
    header.push_back(l + " spread");
    header.push_back(l + " rate");
    header.push_back(l + " of copy");
  }
  for (std::size_t k = 0; k < files.size(); ++k) {
    if (k == baseline) continue;
    const std::string l = csv ? files[k]["label"].get<std::string>() + "/" + base : key(k) + "/" + baseKey;
    header.push_back(l + " speed");
    header.push_back(l + " range");
    header.push_back(l + " bw predicts");
    header.push_back(l + " meas/pred");
  }
  std::vector<std::vector<std::string>> rows = {header};
  for (const auto& run : comparison["runs"]) {
    std::vector<std::string> row = {run["id"]};
    for (const auto& p : run["per_file"]) {
      if (p.is_null()) {
        row.insert(row.end(), {"-", "-", "-", "-"});
        continue;
      }
      row.push_back(fixed(p["step_time_ms"]["median"], "{:.4g}"));
      row.push_back(fixed(100.0 * p["step_time_ms"]["spread"].get<double>(), "{:.1f}%"));
      const double rate = p["throughput"];
      row.push_back(run.value("unit", "") == "MLUPS" ? fmt::format("{:.5g} MLUPS", rate)
                                                     : fmt::format("{:.4g} {}", rate, run.value("unit", "")));
      row.push_back(fixed(p["fraction_of_copy_bandwidth"], "{:.2f}"));
    }
    for (std::size_t k = 0; k < files.size(); ++k) {
      if (k == baseline) continue;
      const nlohmann::json& r = run["ratios"][k];
      if (r.is_null()) {
        row.insert(row.end(), {"-", "-", "-", "-"});
        continue;
      }
      row.push_back(fixed(r["speed"], "{:.3f}"));
      row.push_back(fixed(r["speed_low"], "{:.3f}") + ".." + fixed(r["speed_high"], "{:.3f}"));
      row.push_back(fixed(r["bandwidth_predicted"], "{:.3f}"));
      row.push_back(fixed(r["measured_over_predicted"], "{:.3f}"));
    }
    rows.push_back(row);
  }
  out += render(rows, format);
  if (csv) return out;

  if (!comparison["hopper_gain"].empty()) {
    std::vector<std::vector<std::string>> gains = {{"Hopper kernels over portable (same GPU)", "file", "gain"}};
    for (const auto& g : comparison["hopper_gain"]) gains.push_back({g["id"], g["file"], fixed(g["gain"], "{:.3f}")});
    out += "\n" + render(gains, format);
  }
  out += fmt::format(
      "\nspeed: {0}'s step time over the other file's (above 1: faster than {0}); range: from the "
      "repeats' extremes; bw predicts: the ratio of the copy bandwidths, what a run limited by memory "
      "bandwidth gains; meas/pred: speed over that prediction; of copy: the run's bytes per step over "
      "its own measured copy bandwidth (LBM; MD has no bytes model).\n",
      baseKey);
  for (const auto& m : comparison["missing"]) {
    std::string where;
    for (const auto& l : m["missing_in"]) where += (where.empty() ? "" : ", ") + l.get<std::string>();
    out += fmt::format("not in {}: {}\n", where, m["id"].get<std::string>());
  }
  for (const auto& w : comparison["warnings"]) out += "warning: " + w.get<std::string>() + "\n";
  return out;
}

const std::vector<GpuDatasheet>& knownGpus() {
  // NVIDIA datasheets: HBM bandwidth in GB/s, HBM capacity in GB.
  static const std::vector<GpuDatasheet> gpus = {
      {"a100-40gb", "NVIDIA A100 40GB (SXM4 or PCIe)", 1555, false, 40},
      {"a100-80gb-pcie", "NVIDIA A100 80GB PCIe", 1935, false, 80},
      {"a100-80gb", "NVIDIA A100 80GB SXM4", 2039, false, 80},
      {"h100-pcie", "NVIDIA H100 PCIe 80GB", 2000, true, 80},
      {"h100-sxm", "NVIDIA H100 SXM5 80GB", 3350, true, 80},
      {"h100-nvl", "NVIDIA H100 NVL 94GB", 3900, true, 94},
      {"h200", "NVIDIA H200 141GB (SXM or NVL)", 4800, true, 141},
  };
  return gpus;
}

namespace {

// The table's entry for a board name as the CUDA runtime reports it ("NVIDIA H100 80GB HBM3", "NVIDIA
// A100-PCIE-40GB"); null when the name is not one of them.
const GpuDatasheet* datasheetFor(std::string name) {
  for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  const auto has = [&](const char* part) { return name.find(part) != std::string::npos; };
  std::string key;
  if (has("h200"))
    key = "h200";
  else if (has("h100"))
    key = has("pcie") ? "h100-pcie" : has("nvl") ? "h100-nvl" : "h100-sxm";
  else if (has("a100"))
    key = has("40gb") ? "a100-40gb" : has("pcie") ? "a100-80gb-pcie" : "a100-80gb";
  for (const auto& g : knownGpus())
    if (g.key == key) return &g;
  return nullptr;
}

}  // namespace

nlohmann::json projectBench(const BenchFile& measured, const std::string& target) {
  const GpuDatasheet* to = nullptr;
  std::string keys;
  for (const auto& g : knownGpus()) {
    if (g.key == target) to = &g;
    keys += (keys.empty() ? "" : ", ") + g.key;
  }
  if (!to) throw InputError("--project " + target + ": not a GPU hopsim knows the datasheet of (" + keys + ")");
  const nlohmann::json& gpu = measured.doc["provenance"]["gpu"];
  if (!gpu.is_object())
    throw InputError(measured.path + ": measured on the cpu backend; a projection needs a file measured on a GPU");
  const GpuDatasheet* from = datasheetFor(gpu["name"].get<std::string>());
  const double fromBandwidth = from ? from->bandwidthGBs : number(gpu, "theoretical_bandwidth_gbs");
  if (fromBandwidth <= 0)
    throw InputError(measured.path + ": the datasheet bandwidth of " + gpu["name"].get<std::string>() +
                     " is not known and the file has no clocks to compute it from");
  const double copy = copyBandwidthGBs(measured.doc["copy_bandwidth"]);
  const double scale = fromBandwidth / to->bandwidthGBs;
  nlohmann::json runs = nlohmann::json::array();
  nlohmann::json left = nlohmann::json::array();
  for (const auto& run : measured.doc["runs"]) {
    if (run.contains("error")) continue;
    if (run.value("kernels", "") == "hopper" && !to->hopperFeatures) {
      left.push_back({{"id", run["id"]}, {"why", "Hopper kernels: the target has no thread block clusters or TMA"}});
      continue;
    }
    if (const double bytes = suiteRunDeviceBytes(run); bytes > kSuiteUsableShare * to->memoryGB * 1e9) {
      left.push_back({{"id", run["id"]},
                      {"why", fmt::format("needs about {:.1f} GB of the target's {:.0f} GB: the suite sizes it down "
                                          "there, so run the suite on that GPU",
                                          bytes / 1e9, to->memoryGB)}});
      continue;
    }
    const double ms = run["step_time_ms"]["median"];
    nlohmann::json row = {{"id", run["id"]},
                          {"measured_step_time_ms", ms},
                          {"projected_step_time_ms", ms * scale},
                          {"unit", run["throughput"]["unit"]},
                          {"projected_throughput", run["throughput"]["median"].get<double>() / scale}};
    runs.push_back(row);
  }
  return {
      {"projection",
       "step times scaled by the ratio of datasheet bandwidths: the target is assumed to reach "
       "the fraction of its datasheet bandwidth the measured GPU reached; a projection, not a "
       "measurement (MD is partly latency-bound: treat its figures as an upper estimate)"},
      {"measured_file", measured.path},
      {"measured_gpu", gpu["name"]},
      {"measured_datasheet_gbs", fromBandwidth},
      {"measured_datasheet_source", from ? "hopsim's table: " + from->name : std::string("clocks x bus width")},
      {"measured_copy_gbs", copy},
      {"target", to->key},
      {"target_gpu", to->name},
      {"target_datasheet_gbs", to->bandwidthGBs},
      {"target_copy_gbs_assumed", copy > 0 ? nlohmann::json(copy / scale) : nlohmann::json(nullptr)},
      {"runs", runs},
      {"left_out", left}};
}

std::string formatProjection(const nlohmann::json& p, const std::string& format) {
  std::vector<std::vector<std::string>> rows = {{"run", "measured ms/step", "projected ms/step", "projected rate"}};
  for (const auto& r : p["runs"]) {
    const double rate = r["projected_throughput"];
    rows.push_back({r["id"], fixed(r["measured_step_time_ms"], "{:.4g}"), fixed(r["projected_step_time_ms"], "{:.4g}"),
                    r["unit"] == "MLUPS" ? fmt::format("{:.5g} MLUPS", rate)
                                         : fmt::format("{:.4g} {}", rate, r["unit"].get<std::string>())});
  }
  std::string out;
  if (format != "csv")
    out += fmt::format(
        "PROJECTION for {} ({:.0f} GB/s datasheet) from {} measured on {} ({:.0f} GB/s datasheet, "
        "{:.0f} GB/s copy measured); not a measurement.\n\n",
        p["target_gpu"].get<std::string>(), p["target_datasheet_gbs"].get<double>(),
        p["measured_file"].get<std::string>(), p["measured_gpu"].get<std::string>(),
        p["measured_datasheet_gbs"].get<double>(), p["measured_copy_gbs"].get<double>());
  out += render(rows, format);
  if (format == "csv") return out;
  out += "\n" + p["projection"].get<std::string>() + "\n";
  for (const auto& l : p["left_out"])
    out += fmt::format("left out: {} ({})\n", l["id"].get<std::string>(), l["why"].get<std::string>());
  return out;
}

}  // namespace hopsim
