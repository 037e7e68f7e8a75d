// view.py, the ParaView script hopsim writes into every LBM output folder: the template io/ViewScript.py (carried in
// the binary) with the case's facts filled in.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/lbm/LbmCase.h"

namespace hopsim::io {

// The file name in the output folder.
inline constexpr const char* kViewScriptName = "view.py";

// The axis ('x', 'y' or 'z') normal to the mid-plane a 3-D view shows: one that the main flow lies in, and that
// does not cut a moving wall's motion off (the vortex under a lid turns in the plane of the lid's motion and normal).
char sliceNormal(const lbm::LbmCase& c);

// The script for case `c` whose fields are listed in `series` (file names in `dir`, in the order view.py tries
// them), to be written into `dir`: the template with its CASE block replaced.
std::string viewScript(const lbm::LbmCase& c, const std::vector<std::string>& series, const std::filesystem::path& dir);

// Writes dir/view.py whole or not at all. One process writes it (rank 0 of a decomposed run).
void writeViewScript(const lbm::LbmCase& c, const std::vector<std::string>& series, const std::filesystem::path& dir);

}  // namespace hopsim::io
