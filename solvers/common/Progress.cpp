// Progress line and periodic log lines.
#include "solvers/common/Progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace hopsim {

std::string formatDuration(double s) {
  if (s < 60) return fmt::format("{:.1f} s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  return fmt::format("{}h{:02}m", static_cast<int>(s) / 3600, (static_cast<int>(s) % 3600) / 60);
}

Progress::Progress(long long totalSteps, double workPerStep, std::string rateUnit, bool enabled)
    : total_(totalSteps), work_(workPerStep), unit_(std::move(rateUnit)), enabled_(enabled),
      tty_(::isatty(STDERR_FILENO) != 0), start_(std::chrono::steady_clock::now()), last_(start_) {}

void Progress::update(long long step) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  const double since = std::chrono::duration<double>(now - last_).count();
  if (since < (tty_ ? 0.25 : 5.0)) return;
  last_ = now;
  print(step, false);
}

void Progress::finish(long long step) {
  if (!enabled_) return;
  if (tty_) print(step, true);
}

void Progress::print(long long step, bool final) {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double rate = elapsed > 0 ? static_cast<double>(step - startStep_) * work_ / elapsed / 1e6 : 0.0;
  const double eta = step > 0 ? elapsed * static_cast<double>(total_ - step) / static_cast<double>(step) : 0.0;
  const int pct = total_ > 0 ? static_cast<int>(100.0 * static_cast<double>(step) / static_cast<double>(total_)) : 100;
  const std::string line = fmt::format("step {}/{} ({}%)  {:.1f} {}  elapsed {}  ETA {}", step, total_, pct, rate,
                                       unit_, formatDuration(elapsed), formatDuration(eta));
  if (tty_)
    std::fprintf(stderr, "\r\033[K%s%s", line.c_str(), final ? "\n" : "");
  else
    std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

}  // namespace hopsim
