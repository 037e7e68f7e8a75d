// Progress of a run: a live line on a terminal, a log line every few seconds otherwise.
#pragma once

#include <chrono>
#include <string>

namespace hopsim {

class Progress {
 public:
  // workPerStep: cells (LBM) or atoms (MD) updated per step; rateUnit: "MLUPS" or "Matom-steps/s".
  Progress(long long totalSteps, double workPerStep, std::string rateUnit, bool enabled);
  void update(long long step);  // cheap: looks at the clock, prints only when due
  void finish(long long step);  // ends the live line

 private:
  void print(long long step, bool final);
  long long total_;
  double work_;
  std::string unit_;
  bool enabled_, tty_;
  std::chrono::steady_clock::time_point start_, last_;
  long long startStep_ = 0;
};

std::string formatDuration(double seconds);

}  // namespace hopsim
