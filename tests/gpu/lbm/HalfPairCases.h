// Cases for the FP16 two-cells-per-thread bulk kernel (kernels/lbm/cuda/HalfPairKernel.cuh) against the one-cell
// kernel: every lattice, both collision models, every boundary type, and the same boxes with an odd number of
// cells along x (rows then start at odd indices every other row, and the last pair of a row has one cell).
#pragma once

#include <string>
#include <vector>

#include "LbmAgreementCases.h"

namespace hopsim::lbm::testing {

struct HalfPairCase {
  std::string label;
  std::string yaml;  // precision: half
};

// The case with one more cell along x (the first "cells: [" entry).
inline std::string withOneMoreCellAlongX(std::string yaml) {
  const std::string key = "cells: [";
  const std::size_t at = yaml.find(key) + key.size();
  const std::size_t comma = yaml.find(',', at);
  return yaml.replace(at, comma - at, std::to_string(std::stoi(yaml.substr(at, comma - at)) + 1));
}

inline std::vector<HalfPairCase> halfPairCases() {
  std::vector<HalfPairCase> out;
  for (const std::string lattice : {"D2Q9", "D3Q19", "D3Q27"})
    for (const std::string collision : {"bgk", "trt"})
      for (const Flow flow : flowsFor(lattice)) {
        const std::string yaml = caseYaml(lattice, "half", collision, flow);
        const std::string label = lattice + " " + collision + " " + flowName(flow);
        out.push_back({label + ", even nx", yaml});
        out.push_back({label + ", odd nx", withOneMoreCellAlongX(yaml)});
      }
  return out;
}

}  // namespace hopsim::lbm::testing
