// Turns a `solver: md` YAML case into a validated MdCase, reading the data file it names (if any).
#pragma once

#include "io/CaseReader.h"
#include "core/md/MdCase.h"

namespace hopsim::io::md {
// Every problem is an io::CaseError at the offending key (or inside the data file it names).
hopsim::md::MdCase parseMdCase(const CaseDocument& doc);
}  // namespace hopsim::io::md
