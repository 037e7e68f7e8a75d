// The subcommands of the hopsim command line; each returns the process exit code (core/ExitCode.h).
#pragma once

#include <string>
#include <vector>

#include "core/ExitCode.h"
#include "core/RunOptions.h"

namespace hopsim::app {

int runCommand(const std::string& caseFile, const std::vector<std::string>& overrides, const RunOptions& options);
int validateCommand(const std::vector<std::string>& names, const RunOptions& options, bool all, bool list);
int infoCommand();

struct BenchArgs {
  std::string caseFile;                 // empty: the built-in default case
  std::vector<std::string> overrides;
  long long steps = 0;
  int repeats = 5;
  std::string json;                     // write the JSON here too
  std::vector<std::string> kernels;     // portable, hopper
  std::vector<std::string> layouts;     // two-lattice, in-place
  std::string suite;                    // a named suite (standard) in place of a case
  std::string outDir = ".";             // where a suite's JSON file goes (unless `json` names the file)
  std::string scale = "full";           // full, tiny (a suite for CI)
  bool withOutput = false;              // LBM: also run the case with its output, timed whole (run_with_output)
};
int benchCommand(const BenchArgs& args, const RunOptions& options);

struct CompareArgs {
  std::vector<std::string> files;  // bench documents; the first is the baseline unless `baseline` names another
  std::string baseline;            // a file's label (its name without .json) or path
  std::string format = "table";    // table, markdown, csv, json
  std::string json;                // write the comparison as JSON here too
  std::string project;             // a GPU of knownGpus(): project the one file given onto it
  std::string plot;                // a bar chart of the comparison (.svg, .png or .pdf), drawn by matplotlib
};
int compareCommand(const CompareArgs& args);

struct PlotArgs {
  std::string outDir;        // a run's output folder
  bool ifAvailable = false;  // no matplotlib or nothing to draw: a one-line note and exit 0 (the end of a run)
  bool quiet = false;        // print only errors, not the paths written
};
int plotCommand(const PlotArgs& args);

}  // namespace hopsim::app
