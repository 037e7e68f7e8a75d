// `hopsim compare A.json B.json ...`: bench results of several machines side by side, or one file projected onto a
// GPU known by its datasheet (solvers/common/BenchCompare).
#include <cstdio>

#include "apps/Commands.h"
#include "io/AtomicFile.h"
#include "solvers/common/BenchCompare.h"

namespace hopsim::app {

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
  const std::string text = args.format == "json" ? json : formatComparison(comparison, args.format);
  std::fputs(text.c_str(), stdout);
  return 0;
}

}  // namespace hopsim::app
