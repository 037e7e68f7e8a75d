// The bytes of a file as a string: tests compare output files whole.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace hopsim::testing {

inline std::string fileText(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace hopsim::testing
