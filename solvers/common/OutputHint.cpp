// The closing line of `hopsim run` (see OutputHint.h).
#include "solvers/common/OutputHint.h"

#include <fmt/format.h>

namespace hopsim {

std::string shellWord(const std::string& s) {
  const bool safe = !s.empty() && s.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                      "0123456789_./-+=:,@%") == std::string::npos;
  if (safe) return s;
  std::string quoted = "'";
  for (const char ch : s) quoted += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return quoted + "'";
}

std::string outputHint(const std::filesystem::path& dir, const std::string& view) {
  const std::string d = shellWord(dir.string());
  return fmt::format("output in {}; plots: hopsim plot {}; view: {}", d, d, view);
}

}  // namespace hopsim
