// Wall time split into named phases of a run (collide+stream, boundaries, output, ...), for the end-of-run table.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace hopsim {

class PhaseTimers {
 public:
  explicit PhaseTimers(std::vector<std::string> phases);
  void add(std::size_t phase, double seconds) { seconds_[phase] += seconds; }
  double seconds(std::size_t phase) const { return seconds_[phase]; }
  double total() const;
  const std::vector<std::string>& names() const { return names_; }
  std::vector<std::pair<std::string, double>> table() const;

 private:
  std::vector<std::string> names_;
  std::vector<double> seconds_;
};

// Adds the time between construction and destruction to one phase.
class ScopedPhase {
 public:
  ScopedPhase(PhaseTimers& t, std::size_t phase) : t_(t), phase_(phase), start_(std::chrono::steady_clock::now()) {}
  ~ScopedPhase() { t_.add(phase_, std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count()); }
  ScopedPhase(const ScopedPhase&) = delete;
  ScopedPhase& operator=(const ScopedPhase&) = delete;

 private:
  PhaseTimers& t_;
  std::size_t phase_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace hopsim
