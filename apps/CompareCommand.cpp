// `hopsim compare A.json B.json ...`: bench results of several machines side by side, or one file projected onto a
// GPU known by its datasheet (solvers/common/BenchCompare).
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "apps/Commands.h"
#include "apps/PythonScript.h"
#include "io/AtomicFile.h"
#include "solvers/common/BenchCompare.h"

namespace hopsim::app {

namespace {

namespace fs = std::filesystem;

// The bar chart of `comparison`, drawn by matplotlib through plot_compare.py into `out` (SVG, PNG or PDF by its
// extension), whole or not at all.
void plotComparison(const nlohmann::json& comparison, const fs::path& out) {
  std::string format = out.extension().string();
  if (!format.empty()) format.erase(0, 1);
  if (format != "svg" && format != "png" && format != "pdf")
    throw InputError(fmt::format("--plot {}: the chart's file must end in .svg, .png or .pdf", out.string()));
  const fs::path script = shippedPath("scripts/plot_compare.py", "plot_compare.py", "--plot");
  const std::string python = findPython({"matplotlib"});
  if (python.empty())
    throw std::runtime_error("--plot: the chart needs python3 with matplotlib (apt-get install python3-matplotlib, or "
                             "pip install matplotlib; HOPSIM_PYTHON names the interpreter to use)");
  const fs::path data = io::temporaryPathFor(fs::path(out) += ".json");
  const fs::path tmp = io::temporaryPathFor(out);
  io::writeFileAtomic(data, comparison.dump());
  const int status = runPython(python, {script.string(), data.string(), tmp.string(), format});
  std::error_code ec;
  fs::remove(data, ec);
  if (status != 0) {
    fs::remove(tmp, ec);
    throw std::runtime_error(fmt::format("--plot: {} {} failed ({}); no chart written", python, script.string(),
                                         status == -1 ? "cannot start" : fmt::format("exit {}", status)));
  }
  io::commitFile(tmp, out);
}

}  // namespace

int compareCommand(const CompareArgs& args) {
  std::vector<BenchFile> files;
  for (const auto& path : args.files) files.push_back(readBenchFile(path));
  if (!args.project.empty()) {
    if (files.size() != 1) throw InputError("--project takes one measured file, not " + std::to_string(files.size()));
    const nlohmann::json projection = projectBench(files[0], args.project);
    const std::string json = projection.dump(2) + "\n";
    if (!args.json.empty()) io::writeFileAtomic(args.json, json);
    const std::string text = args.format == "json" ? json : formatProjection(projection, args.format);
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  if (files.size() < 2) throw InputError("compare needs two or more bench files (or --project GPU and one file)");
  std::size_t baseline = 0;
  if (!args.baseline.empty()) {
    baseline = files.size();
    for (std::size_t k = 0; k < files.size(); ++k)
      if (files[k].label == args.baseline || files[k].path == args.baseline) baseline = k;
    if (baseline == files.size()) {
      std::string names;
      for (const auto& f : files) names += (names.empty() ? "" : ", ") + f.label;
      throw InputError("--baseline " + args.baseline + ": not one of the files compared (" + names + ")");
    }
  }
  const nlohmann::json comparison = compareBench(files, baseline);
  const std::string json = comparison.dump(2) + "\n";
  if (!args.json.empty()) io::writeFileAtomic(args.json, json);
  if (!args.plot.empty()) plotComparison(comparison, args.plot);
  const std::string text = args.format == "json" ? json : formatComparison(comparison, args.format);
  std::fputs(text.c_str(), stdout);
  return 0;
}

}  // namespace hopsim::app
