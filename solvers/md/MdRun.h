// Entry point of the molecular dynamics solver: runs a case read from YAML (`solver: md`).
#pragma once

#include "io/CaseReader.h"
#include "core/RunOptions.h"

namespace hopsim::md {
// Returns the process exit code (0 on success). Case errors are thrown as io::CaseError.
int runCase(const io::CaseDocument& doc, const RunOptions& options);
}  // namespace hopsim::md
