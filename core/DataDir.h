// Where hopsim finds the files it ships beside the binary: validation cases and reference tables, example inputs,
// the Python scripts and package.
#pragma once

#include <filesystem>

namespace hopsim {

// <prefix>/share/hopsim for a binary installed as <prefix>/bin/hopsim, found from the running binary's own path (so
// a prefix that was moved, or a package unpacked anywhere, works as well as the prefix it was configured for); empty
// when that folder does not exist, as for a binary in its build folder.
std::filesystem::path installedDataDir();

// The folder that holds validation/ and inputs/ as they are laid out in the source tree: $HOPSIM_DATA_DIR when set,
// else installedDataDir(), else the source tree this binary was built from. Throws std::runtime_error naming the
// places it looked when none of them exists.
std::filesystem::path dataDir();

}  // namespace hopsim
