// The last line of a run that wrote output: where it is, and the commands that draw and show it.
#pragma once

#include <filesystem>
#include <string>

namespace hopsim {

// A path as a shell command names it: as is when it holds only safe characters, else in single quotes.
std::string shellWord(const std::string& s);

// "output in DIR; plots: hopsim plot DIR; view: VIEW", VIEW being the run's own way to show its fields (e.g.
// "pvpython DIR/view.py"), given with paths already in shell words.
std::string outputHint(const std::filesystem::path& dir, const std::string& view);

}  // namespace hopsim
