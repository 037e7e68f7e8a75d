// Runs a lattice Boltzmann case from its YAML file: parameters, time loop, outputs, summary.
#pragma once

#include "io/CaseReader.h"
#include "core/RunOptions.h"
#include "core/lbm/LbmCase.h"

namespace hopsim::lbm {

// Returns the process exit code: 0 on success, 3 when the simulation became unstable (NaN).
int runCase(const io::CaseDocument& doc, const RunOptions& options);

// Applies the command-line options (backend, kernels, output directory) to a parsed case.
void applyOptions(LbmCase& c, const RunOptions& options);

// Reynolds number with the velocity and length it uses, when the case defines a reference; empty otherwise.
std::string reynoldsDescription(const LbmCase& c);

}  // namespace hopsim::lbm
