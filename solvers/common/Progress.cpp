// Progress line and periodic log lines.
#include "solvers/common/Progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

#include "core/Log.h"

namespace hopsim {
namespace {

// How often the live line is redrawn, and how often a line goes to the log: often enough to see a run move, rarely
// enough that a day's run leaves a log one can read.
constexpr double kLiveSeconds = 0.25, kLogSeconds = 5.0;

double secondsBetween(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

}  // namespace

std::string formatDuration(double s) {
  if (s < 60) return fmt::format("{:.1f} s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  return fmt::format("{}h{:02}m", static_cast<int>(s) / 3600, (static_cast<int>(s) % 3600) / 60);
}

Progress::Progress(long long totalSteps, double workPerStep, std::string rateUnit, bool enabled)
    : total_(totalSteps), work_(workPerStep), unit_(std::move(rateUnit)), enabled_(enabled),
      // The live line is for a person at a terminal that shows info lines (not --quiet).
      live_(enabled && ::isatty(STDERR_FILENO) != 0 && log::terminalShows(log::Level::Info)),
      start_(std::chrono::steady_clock::now()), lastShown_(start_), lastLogged_(start_) {}

void Progress::update(long long step) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (live_ && secondsBetween(lastShown_, now) >= kLiveSeconds) {
    lastShown_ = now;
    showLive(step, false);
  }
  if (secondsBetween(lastLogged_, now) >= kLogSeconds) {
    lastLogged_ = now;
    // The terminal has the live line already.
    if (live_) log::toFile(log::Level::Info, line(step));
    else log::info("{}", line(step));
  }
}

void Progress::finish(long long step) {
  if (live_) showLive(step, true);
}

std::string Progress::line(long long step) const {
  const double elapsed = secondsBetween(start_, std::chrono::steady_clock::now());
  const double rate = elapsed > 0 ? static_cast<double>(step - startStep_) * work_ / elapsed / 1e6 : 0.0;
  const double eta = step > 0 ? elapsed * static_cast<double>(total_ - step) / static_cast<double>(step) : 0.0;
  const int pct = total_ > 0 ? static_cast<int>(100.0 * static_cast<double>(step) / static_cast<double>(total_)) : 100;
  return fmt::format("step {}/{} ({}%)  {:.1f} {}  elapsed {}  ETA {}", step, total_, pct, rate, unit_,
                     formatDuration(elapsed), formatDuration(eta));
}

void Progress::showLive(long long step, bool final) const {
  std::fprintf(stderr, "\r\033[K%s%s", line(step).c_str(), final ? "\n" : "");
  std::fflush(stderr);
}

}  // namespace hopsim
