// hopsim's messages: the terminal and a run's log file (`hopsim.log` in its output directory), through spdlog.
#pragma once

#include <fmt/format.h>

#include <filesystem>
#include <string_view>
#include <utility>

#include "core/Mpi.h"
#include "core/RunOptions.h"

namespace hopsim::log {

enum class Level { Debug, Info, Warning, Error };

// What the terminal shows: warnings and errors (--quiet), info and up (the default), debug and up (--verbose).
enum class Verbosity { Quiet, Normal, Verbose };
// RunOptions::quiet and verbose (--quiet, --verbose) as a verbosity.
Verbosity verbosityOf(const RunOptions& options);

// Sets the terminal for the commands that log without a run (hopsim bench): its verbosity, and whether stdout is
// kept for the command's data (then info and debug lines go to stderr too). Warnings and errors go to stderr.
void setTerminal(Verbosity verbosity, bool stdoutIsData);

// One message, one line: to the terminal as written, to the log file with its time, level and (under MPI) rank.
// Under MPI rank 0 speaks for the run: another rank's info lines go nowhere, its warnings and errors go to stderr
// (as "[rank N] ...") and to the file, and its debug lines to the file with --verbose.
void write(Level level, std::string_view message);
// The log file alone: what the terminal shows in another form (the live progress line).
void toFile(Level level, std::string_view message);
// Whether the terminal shows messages of `level` on this rank.
bool terminalShows(Level level);

template <class... Args>
void debug(fmt::format_string<Args...> format, Args&&... args) {
  write(Level::Debug, fmt::format(format, std::forward<Args>(args)...));
}
template <class... Args>
void info(fmt::format_string<Args...> format, Args&&... args) {
  write(Level::Info, fmt::format(format, std::forward<Args>(args)...));
}
template <class... Args>
void warning(fmt::format_string<Args...> format, Args&&... args) {
  write(Level::Warning, fmt::format(format, std::forward<Args>(args)...));
}
template <class... Args>
void error(fmt::format_string<Args...> format, Args&&... args) {
  write(Level::Error, fmt::format(format, std::forward<Args>(args)...));
}

// The log of one run, from its start to its end (LbmRun, MdSimulation): the terminal as the run's options ask
// (RunOptions::quiet, verbose), the ranks of `comm` (rank 0 speaks; the others' lines are prefixed by their rank),
// and `hopsim.log` once the run holds its output directory. Messages logged before the file opens (the case's
// warnings, a stale lock taken over) go into it when it does. Every line is flushed as it is written, so that the
// file holds everything up to a crash.
class RunLog {
 public:
  RunLog(const RunOptions& options, const mpi::Comm& comm);
  ~RunLog();
  RunLog(const RunLog&) = delete;
  RunLog& operator=(const RunLog&) = delete;

  // Opens `dir`/hopsim.log on every rank of the run (collective): a new file, or the one an earlier run wrote when
  // this one continues it (`append`, a restart).
  void openFile(const std::filesystem::path& dir, bool append);
  // Records in the file why the run ended with an exception (the terminal's message is the command's to print).
  void failed(std::string_view what);

 private:
  mpi::Comm comm_;
  Verbosity outerVerbosity_;  // the terminal's before the run, restored after it
};

}  // namespace hopsim::log
