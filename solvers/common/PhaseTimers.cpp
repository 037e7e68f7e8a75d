// Phase timers.
#include "solvers/common/PhaseTimers.h"

#include <numeric>

namespace hopsim {

PhaseTimers::PhaseTimers(std::vector<std::string> phases) : names_(std::move(phases)), seconds_(names_.size(), 0.0) {}

double PhaseTimers::total() const { return std::accumulate(seconds_.begin(), seconds_.end(), 0.0); }

std::vector<std::pair<std::string, double>> PhaseTimers::table() const {
  std::vector<std::pair<std::string, double>> out;
  for (std::size_t i = 0; i < names_.size(); ++i) out.emplace_back(names_[i], seconds_[i]);
  return out;
}

}  // namespace hopsim
