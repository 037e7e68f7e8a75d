// Progress of a run: a live line on a terminal, and a log line every few seconds (in the log file; on the terminal
// too when stderr is not one, as in a batch job's output file).
#pragma once

#include <chrono>
#include <string>

namespace hopsim {

class Progress {
 public:
  // workPerStep: cells (LBM) or atoms (MD) updated per step; rateUnit: "MLUPS" or "Matom-steps/s". `enabled`: the
  // rank that speaks for the run.
  Progress(long long totalSteps, double workPerStep, std::string rateUnit, bool enabled);
  void update(long long step);  // cheap: looks at the clock, prints only when due
  void finish(long long step);  // ends the live line

 private:
  std::string line(long long step) const;
  void showLive(long long step, bool final) const;
  long long total_;
  double work_;
  std::string unit_;
  bool enabled_, live_;
  std::chrono::steady_clock::time_point start_, lastShown_, lastLogged_;
  long long startStep_ = 0;
};

std::string formatDuration(double seconds);

}  // namespace hopsim
