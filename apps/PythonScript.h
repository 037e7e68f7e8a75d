// The Python side of the command line (`hopsim compare --plot`, `hopsim plot`): where hopsim's scripts and Python
// package are, which python3 runs them, and running it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace hopsim::app {

// A file or folder shipped with hopsim, by its path in the source tree (e.g. "scripts/plot_compare.py",
// "python"): installed beside the binary's prefix as share/hopsim/<installed>, else in the source tree it was built
// from. Throws std::runtime_error naming both places when neither has it; `what` names the caller (--plot, plot).
std::filesystem::path shippedPath(const std::string& sourcePath, const std::string& installed,
                                  const std::string& what);

// Runs `python` on `args` (argv[0] left to it), its stderr to /dev/null when `quiet`, with `pythonPath` (when not
// empty) in front of $PYTHONPATH; returns the exit status, or -1 when the interpreter cannot be started.
int runPython(const std::string& python, std::vector<std::string> args, bool quiet = false,
              const std::filesystem::path& pythonPath = {});

// The interpreter to run with: $HOPSIM_PYTHON, else the first of python3 on the PATH and the system's
// /usr/bin/python3 that finds every module of `modules` (a pyenv or venv python3 next to Debian's
// python3-matplotlib). Empty when none does.
std::string findPython(const std::vector<std::string>& modules);

}  // namespace hopsim::app
