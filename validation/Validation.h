// Validation cases: each runs a case and compares a measured quantity with an analytic solution or a
// published table, against a stated tolerance. `hopsim validate` and the Catch2 suite run the same cases.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/DeviceSpec.h"

namespace hopsim::validation {

struct Row {
  std::string caseName;
  std::string quantity;   // e.g. "L2 error of u(y)", "decay rate / analytic - 1"
  double measured = 0;    // the error measure that is compared with the tolerance
  double tolerance = 0;
  bool pass = false;
  bool skipped = false;   // could not be checked here (a peer program is missing): neither pass nor fail
  std::string detail;     // resolution, reference, extra numbers
};

struct Context {
  Backend backend = Backend::Cpu;
  KernelVariant kernels = KernelVariant::Auto;
  std::string dataDir;    // holds validation/*.yaml and validation/reference/*.csv: hopsim::dataDir()
};

struct Case {
  std::string name;         // e.g. "lbm.poiseuille2d"
  std::string description;
  bool quick = true;        // false: too slow for CI (run by `hopsim validate NAME` or `--all`)
  std::function<std::vector<Row>(const Context&)> run;
};

// Helper for checkers: a row with pass = measured <= tolerance (NaN fails).
Row makeRow(std::string caseName, std::string quantity, double measured, double tolerance, std::string detail = {});

// A row for a check that cannot run on this machine, with the reason.
Row skippedRow(std::string caseName, std::string reason, std::string detail = {});

// All registered cases, LBM then MD.
std::vector<Case> allCases();

}  // namespace hopsim::validation
