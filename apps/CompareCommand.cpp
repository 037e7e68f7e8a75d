// `hopsim compare A.json B.json ...`: bench results of several machines side by side, or one file projected onto a
// GPU known by its datasheet (solvers/common/BenchCompare).
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "apps/Commands.h"
#include "io/AtomicFile.h"
#include "solvers/common/BenchCompare.h"

extern char** environ;

namespace hopsim::app {

namespace {

namespace fs = std::filesystem;

// scripts/plot_compare.py: installed beside the binary's prefix (share/hopsim), else in the source tree it was built
// from.
fs::path plotScript() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path().parent_path() / "share" / "hopsim" / "plot_compare.py";
    if (fs::exists(installed, ec)) return installed;
  }
  const fs::path source = fs::path(HOPSIM_SOURCE_DIR) / "scripts" / "plot_compare.py";
  if (fs::exists(source, ec)) return source;
  throw std::runtime_error(fmt::format("--plot: plot_compare.py is neither in share/hopsim beside this binary nor in "
                                       "{}; reinstall hopsim",
                                       source.parent_path().string()));
}

// Runs `python` on `args` (argv[0] left to it), its stderr to /dev/null when `quiet`; returns the exit status, or
// -1 when the interpreter cannot be started.
int runPython(const std::string& python, std::vector<std::string> args, bool quiet = false) {
  args.insert(args.begin(), python);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  if (quiet) ::posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int spawned = ::posix_spawnp(&pid, python.c_str(), &actions, nullptr, argv.data(), environ);
  ::posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return -1;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The interpreter that draws: $HOPSIM_PYTHON, else the first of python3 on the PATH and the system's
// /usr/bin/python3 that imports matplotlib (a pyenv or venv python3 next to Debian's python3-matplotlib).
std::string plotPython() {
  if (const char* chosen = std::getenv("HOPSIM_PYTHON"); chosen && *chosen) return chosen;
  for (const std::string python : {"python3", "/usr/bin/python3"})
    if (runPython(python, {"-c", "import matplotlib"}, true) == 0) return python;
  throw std::runtime_error("--plot: the chart needs python3 with matplotlib (apt-get install python3-matplotlib, or "
                           "pip install matplotlib; HOPSIM_PYTHON names the interpreter to use)");
}

// The bar chart of `comparison`, drawn by matplotlib through plot_compare.py into `out` (SVG, PNG or PDF by its
// extension), whole or not at all.
void plotComparison(const nlohmann::json& comparison, const fs::path& out) {
  std::string format = out.extension().string();
  if (!format.empty()) format.erase(0, 1);
  if (format != "svg" && format != "png" && format != "pdf")
    throw InputError(fmt::format("--plot {}: the chart's file must end in .svg, .png or .pdf", out.string()));
  const fs::path script = plotScript();
  const std::string python = plotPython();
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
