// `hopsim plot OUTDIR`: PNG plots of a run's observables, forces and thermo series, drawn by the Python package's
// plot module (python/hopsim/plot.py) with the python3 that has matplotlib.
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <stdexcept>
#include <system_error>

#include "apps/Commands.h"
#include "apps/PythonScript.h"

namespace hopsim::app {

int plotCommand(const PlotArgs& args) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(args.outDir, ec)) throw InputError(fmt::format("plot {}: no such output folder", args.outDir));
  // The package shipped with this binary, whether or not pip installed one: its reader matches this binary's files.
  const fs::path package = shippedPath("python", "python", "plot");
  const std::string python = findPython({"matplotlib", "pandas"});
  if (python.empty()) {
    const std::string why =
        "no python3 with matplotlib and pandas (apt-get install python3-matplotlib python3-pandas, or "
        "pip install './python[plot]'; HOPSIM_PYTHON names the interpreter to use)";
    if (!args.ifAvailable) throw std::runtime_error("plot: " + why);
    std::fprintf(stderr, "hopsim plot: no plots: %s\n", why.c_str());
    return kExitOk;
  }
  std::vector<std::string> command{"-m", "hopsim.plot", args.outDir};
  if (args.ifAvailable) command.push_back("--if-available");
  if (args.quiet) command.push_back("--quiet");
  const int status = runPython(python, command, false, package);
  if (status == -1) throw std::runtime_error(fmt::format("plot: cannot start {}", python));
  // The module's own codes: 0 written, 1 nothing to draw or no matplotlib (it said why), 2 bad input.
  return status;
}

}  // namespace hopsim::app
