// The terminal and log-file sinks behind core/Log.h.
#include "core/Log.h"

#include <spdlog/logger.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/ringbuffer_sink.h>

#include <cstdio>
#include <memory>
#include <mutex>
#include <stdexcept>

namespace hopsim::log {
namespace {

// Lines as the command always printed them: info and debug on stdout (unless stdout carries the command's data),
// warnings and errors on stderr; each flushed, so that the two streams keep their order on a shared terminal.
class TerminalSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  void setStdoutIsData(bool isData) {
    std::lock_guard lock(mutex_);
    stdoutIsData_ = isData;
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t line;
    formatter_->format(msg, line);
    std::FILE* out = msg.level >= spdlog::level::warn || stdoutIsData_ ? stderr : stdout;
    std::fwrite(line.data(), 1, line.size(), out);
    std::fflush(out);
  }
  void flush_() override {}

 private:
  bool stdoutIsData_ = false;
};

// Enough for what a run logs before it holds its output directory (a few dozen lines); older lines are dropped.
constexpr std::size_t kBacklogLines = 1000;

struct State {
  Verbosity verbosity = Verbosity::Normal;
  int rank = mpi::rank(), ranks = mpi::size();  // of the run, or of the world outside one
  std::shared_ptr<TerminalSink> terminal = std::make_shared<TerminalSink>();
  // The lines for the log file before it opens, and between runs (a process may run several: tests, validation).
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> backlog;
  std::shared_ptr<spdlog::sinks::basic_file_sink_mt> file;
  std::shared_ptr<spdlog::logger> everywhere, fileOnly;

  State() { restartBacklog(); }

  spdlog::sink_ptr fileSide() const {
    if (file) return file;
    return backlog;
  }
  std::string filePattern() const {
    const std::string rankTag = ranks > 1 ? fmt::format("[rank {}] ", rank) : "";
    return "[%Y-%m-%d %H:%M:%S.%e %z] " + rankTag + "[%l] %v";
  }
  spdlog::level::level_enum fileLevel() const {
    if (verbosity == Verbosity::Verbose) return spdlog::level::debug;
    return rank == 0 ? spdlog::level::info : spdlog::level::warn;
  }
  // Applies the verbosity and the rank to the sinks, and rebuilds the loggers over them.
  void configure() {
    terminal->set_pattern(rank != 0 ? fmt::format("[rank {}] %v", rank) : "%v");
    terminal->set_level(rank != 0 || verbosity == Verbosity::Quiet ? spdlog::level::warn
                        : verbosity == Verbosity::Verbose         ? spdlog::level::debug
                                                                  : spdlog::level::info);
    const spdlog::sink_ptr fileSink = fileSide();
    fileSink->set_pattern(filePattern());
    fileSink->set_level(fileLevel());
    everywhere = std::make_shared<spdlog::logger>("hopsim", spdlog::sinks_init_list{terminal, fileSink});
    fileOnly = std::make_shared<spdlog::logger>("hopsim.file", fileSink);
    for (auto* logger : {everywhere.get(), fileOnly.get()}) {
      logger->set_level(spdlog::level::debug);
      logger->flush_on(spdlog::level::debug);  // every line: a crash or MPI_Abort loses none
    }
  }
  void restartBacklog() {
    file.reset();
    backlog = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(kBacklogLines);
    configure();
  }
};

State& state() {
  static State s;
  return s;
}

spdlog::level::level_enum toSpdlog(Level level) {
  switch (level) {
    case Level::Debug: return spdlog::level::debug;
    case Level::Info: return spdlog::level::info;
    case Level::Warning: return spdlog::level::warn;
    case Level::Error: return spdlog::level::err;
  }
  return spdlog::level::err;
}

// Rank 0's info lines speak for the run; the other ranks' would repeat them (debug lines are each rank's own: the
// sinks' levels decide those).
bool spokenHere(Level level) { return level != Level::Info || state().rank == 0; }

// Opens the file, writes the backlog into it, and makes it the file side of the loggers.
void attachFile(const std::filesystem::path& path, bool truncate) {
  State& s = state();
  auto file = std::make_shared<spdlog::sinks::basic_file_sink_mt>(path.string(), truncate);
  file->set_pattern(s.filePattern());
  file->set_level(s.fileLevel());
  for (const auto& msg : s.backlog->last_raw())
    if (file->should_log(msg.level)) file->log(msg);
  file->flush();
  s.file = std::move(file);
  s.backlog.reset();
  s.configure();
}

}  // namespace

Verbosity verbosityOf(const RunOptions& options) {
  if (options.verbose) return Verbosity::Verbose;
  return options.quiet ? Verbosity::Quiet : Verbosity::Normal;
}

void setTerminal(Verbosity verbosity, bool stdoutIsData) {
  State& s = state();
  s.verbosity = verbosity;
  s.terminal->setStdoutIsData(stdoutIsData);
  s.configure();
}

void write(Level level, std::string_view message) {
  if (spokenHere(level))
    state().everywhere->log(toSpdlog(level), spdlog::string_view_t(message.data(), message.size()));
}

void toFile(Level level, std::string_view message) {
  if (spokenHere(level))
    state().fileOnly->log(toSpdlog(level), spdlog::string_view_t(message.data(), message.size()));
}

bool terminalShows(Level level) { return state().terminal->should_log(toSpdlog(level)); }

RunLog::RunLog(const RunOptions& options, const mpi::Comm& comm)
    : comm_(comm), outerVerbosity_(state().verbosity) {
  State& s = state();
  s.verbosity = verbosityOf(options);
  s.rank = comm.rank();
  s.ranks = comm.size();
  s.configure();
}

RunLog::~RunLog() {
  State& s = state();
  s.verbosity = outerVerbosity_;
  s.rank = mpi::rank();
  s.ranks = mpi::size();
  s.restartBacklog();  // closes the file
}

void RunLog::openFile(const std::filesystem::path& dir, bool append) {
  const std::filesystem::path path = dir / "hopsim.log";
  // Rank 0 creates (or, continuing a run, reopens) the file before the others append to it; every rank learns
  // whether it could.
  std::string failure;
  if (comm_.isRoot()) {
    try {
      attachFile(path, !append);
    } catch (const spdlog::spdlog_ex& e) {
      failure = e.what();
    }
  }
  failure = comm_.broadcast(failure);
  if (!failure.empty())
    throw std::runtime_error(fmt::format("cannot open the log file {}: {}", path.string(), failure));
  if (!comm_.isRoot()) attachFile(path, false);
}

void RunLog::failed(std::string_view what) { toFile(Level::Error, fmt::format("the run stopped: {}", what)); }

}  // namespace hopsim::log
