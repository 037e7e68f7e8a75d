// Finding hopsim's Python scripts and package, and the python3 that runs them.
#include "apps/PythonScript.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <stdexcept>
#include <system_error>

#include "core/DataDir.h"

extern char** environ;

namespace hopsim::app {

namespace fs = std::filesystem;

fs::path shippedPath(const std::string& sourcePath, const std::string& installed, const std::string& what) {
  std::error_code ec;
  if (const fs::path share = installedDataDir(); !share.empty() && fs::exists(share / installed, ec))
    return share / installed;
  const fs::path source = fs::path(HOPSIM_SOURCE_DIR) / sourcePath;
  if (fs::exists(source, ec)) return source;
  throw std::runtime_error(fmt::format("{}: {} is neither in share/hopsim beside this binary nor in {}; reinstall "
                                       "hopsim",
                                       what, installed, source.parent_path().string()));
}

int runPython(const std::string& python, std::vector<std::string> args, bool quiet, const fs::path& pythonPath) {
  args.insert(args.begin(), python);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // The environment, PYTHONPATH put in front when asked.
  std::string path;
  std::vector<char*> env;
  if (!pythonPath.empty()) {
    const char* old = std::getenv("PYTHONPATH");
    path = "PYTHONPATH=" + pythonPath.string() + (old && *old ? std::string(":") + old : std::string());
    env.push_back(path.data());
  }
  for (char** e = environ; *e; ++e)
    if (pythonPath.empty() || std::strncmp(*e, "PYTHONPATH=", 11) != 0) env.push_back(*e);
  env.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  if (quiet) ::posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int spawned = ::posix_spawnp(&pid, python.c_str(), &actions, nullptr, argv.data(), env.data());
  ::posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return -1;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string findPython(const std::vector<std::string>& modules) {
  if (const char* chosen = std::getenv("HOPSIM_PYTHON"); chosen && *chosen) return chosen;
  // Looked up, not imported: importing matplotlib and pandas takes seconds, which the script then spends again.
  std::string names;
  for (const auto& m : modules) names += (names.empty() ? "'" : ", '") + m + "'";
  const std::string probe =
      "import importlib.util as u, sys; sys.exit(any(u.find_spec(m) is None for m in [" + names + "]))";
  for (const std::string python : {"python3", "/usr/bin/python3"})
    if (runPython(python, {"-c", probe}, true) == 0) return python;
  return {};
}

}  // namespace hopsim::app
