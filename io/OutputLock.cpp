// The output-directory lock: written whole under a temporary name and linked into place, so that exactly one run
// creates it and nobody reads half of it.
#include "io/OutputLock.h"

#include <fmt/format.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "core/ExitCode.h"
#include "core/Interrupt.h"
#include "core/Log.h"
#include "io/AtomicFile.h"

namespace hopsim::io {
namespace {

// Field 22 of /proc/<pid>/stat: the process's start time. A PID reused by another process has another one.
long long processStartTicks(long pid) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string stat;
  if (!in || !std::getline(in, stat)) return -1;
  // The command name (field 2) may hold spaces and parentheses: count fields after its closing parenthesis.
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream rest(stat.substr(close + 1));
  std::string field;
  for (int k = 3; k <= 22; ++k)
    if (!(rest >> field)) return -1;
  try {
    return std::stoll(field);
  } catch (const std::exception&) {
    return -1;
  }
}

std::string utcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::string contentOf(const LockHolder& h) {
  const nlohmann::json j = {{"host", h.host}, {"pid", h.pid}, {"started", h.started},
                            {"process_start", h.processStart}, {"program", "hopsim"}};
  return j.dump() + "\n";
}

bool sameHolder(const LockHolder& a, const LockHolder& b) {
  return a.host == b.host && a.pid == b.pid && a.started == b.started && a.processStart == b.processStart;
}

void writeWhole(const std::filesystem::path& file, const std::string& content) {
  std::ofstream out(file, std::ios::trunc);
  out << content;
  out.close();
  if (!out) throw std::runtime_error(fmt::format("cannot write the output lock {}", file.string()));
}

// Places `content` at `lock` unless a file is there: true when this call created it. Linking a complete temporary
// file is atomic and refuses an existing name; file systems without hard links get O_EXCL and a write.
bool createExclusive(const std::filesystem::path& lock, const std::string& content) {
  const std::filesystem::path tmp = temporaryPathFor(lock);
  writeWhole(tmp, content);
  const int linked = ::link(tmp.c_str(), lock.c_str());
  const int linkError = errno;
  std::error_code ignored;
  std::filesystem::remove(tmp, ignored);
  if (linked == 0) return true;
  if (linkError == EEXIST) return false;
  std::FILE* f = nullptr;
  if (const int fd = ::open(lock.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644); fd >= 0) {
    f = ::fdopen(fd, "w");
  } else if (errno == EEXIST) {
    return false;
  }
  if (!f || std::fputs(content.c_str(), f) < 0 || std::fclose(f) != 0) {
    std::filesystem::remove(lock, ignored);
    throw std::runtime_error(fmt::format("cannot create the output lock {}: {}", lock.string(), std::strerror(errno)));
  }
  return true;
}

// Removes what the dead holder left half-written at the top of dir: files and checkpoint folders named
// `*.tmp-<pid>` (io/AtomicFile.h). Returns how many.
int removeTemporariesOf(const std::filesystem::path& dir, long pid) {
  const std::string tail = temporaryPathFor("", pid).string();
  int removed = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() <= tail.size() || name.compare(name.size() - tail.size(), tail.size(), tail) != 0) continue;
    std::error_code ignored;
    if (std::filesystem::remove_all(e.path(), ignored) > 0) ++removed;
  }
  return removed;
}

}  // namespace

std::string LockHolder::describe() const { return fmt::format("host {}, PID {}, started {}", host, pid, started); }

LockHolder OutputLock::thisProcess() {
  LockHolder h;
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "unknown");
  h.host = host;
  h.pid = processId();
  h.started = utcNow();
  h.processStart = processStartTicks(h.pid);
  return h;
}

std::optional<LockHolder> OutputLock::read(const std::filesystem::path& lockFile) {
  std::ifstream in(lockFile);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  try {
    const nlohmann::json j = nlohmann::json::parse(text.str());
    LockHolder h;
    h.host = j.at("host").get<std::string>();
    h.pid = j.at("pid").get<long>();
    h.started = j.at("started").get<std::string>();
    h.processStart = j.value("process_start", -1LL);
    return h;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

bool OutputLock::alive(const LockHolder& holder) {
  if (holder.host != thisProcess().host) return true;
  if (holder.pid <= 0) return false;
  if (::kill(static_cast<pid_t>(holder.pid), 0) != 0 && errno != EPERM) return false;
  if (holder.processStart < 0) return true;
  const long long start = processStartTicks(holder.pid);
  return start < 0 || start == holder.processStart;
}

OutputLock::OutputLock(std::filesystem::path path, LockHolder self)
    : path_(std::move(path)), self_(std::move(self)), removeSlot_(interrupt::registerFileToRemove(path_.string())) {}

OutputLock::~OutputLock() {
  interrupt::unregisterFileToRemove(removeSlot_);
  // Only our own file: had another run taken the directory over meanwhile (it found us dead), the lock is its.
  if (const auto h = read(path_); h && sameHolder(*h, self_)) {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
}

std::unique_ptr<OutputLock> OutputLock::acquire(const std::filesystem::path& dir, std::string& notice) {
  const std::filesystem::path lock = dir / kFileName;
  const LockHolder self = thisProcess();
  const std::string content = contentOf(self);
  // A few rounds: the holder may end, or another run take over a stale lock, between our looks.
  for (int round = 0; round < 4; ++round) {
    if (createExclusive(lock, content)) return std::unique_ptr<OutputLock>(new OutputLock(lock, self));
    const std::optional<LockHolder> holder = read(lock);
    if (!holder) {
      if (!std::filesystem::exists(lock)) continue;  // released between our two looks
      throw InputError(fmt::format("the output directory {} is locked by {}, which is not a hopsim lock file this "
                                   "version can read; remove it if no run uses the directory",
                                   dir.string(), lock.string()));
    }
    if (alive(*holder))
      throw InputError(fmt::format(
          "the output directory {} is in use by another hopsim run ({}; lock file {}). Wait for it to end, or give "
          "this run another directory (--output DIR){}",
          dir.string(), holder->describe(), lock.string(),
          holder->host == self.host ? "" : "; the run is on another host, so if it is gone, remove the lock file"));
    // Stale: move it aside under a name of our own and check that what moved is what we judged; a run that took
    // the directory over between our read and the rename would otherwise lose its lock.
    const std::filesystem::path aside = dir / fmt::format("{}.stale-{}", kFileName, self.pid);
    std::error_code ec;
    std::filesystem::rename(lock, aside, ec);
    if (ec) continue;
    const std::optional<LockHolder> moved = read(aside);
    if (moved && sameHolder(*moved, *holder)) {
      const int removed = removeTemporariesOf(dir, holder->pid);
      notice = fmt::format("taking over the stale lock of {} in {} (that process no longer exists{})",
                           holder->describe(), dir.string(),
                           removed > 0 ? fmt::format("; removed {} unfinished file(s) of it", removed) : "");
    } else {
      [[maybe_unused]] const int restored = ::link(aside.c_str(), lock.c_str());
    }
    std::filesystem::remove(aside, ec);
  }
  throw std::runtime_error(fmt::format("cannot take the output lock {}: other runs keep taking and releasing it",
                                       lock.string()));
}

std::unique_ptr<OutputLock> lockOutputDirectory(const std::filesystem::path& dir, const mpi::Comm& comm) {
  std::unique_ptr<OutputLock> lock;
  // Rank 0 decides; "" (taken), "refused: ..." or "failed: ..." travels to every rank.
  std::string outcome;
  if (comm.isRoot()) {
    try {
      std::string notice;
      lock = OutputLock::acquire(dir, notice);
      if (!notice.empty()) log::warning("hopsim: {}", notice);
    } catch (const InputError& e) {
      outcome = std::string("refused: ") + e.what();
    } catch (const std::exception& e) {
      outcome = std::string("failed: ") + e.what();
    }
  }
  outcome = comm.broadcast(outcome);
  if (outcome.rfind("refused: ", 0) == 0) throw InputError(outcome.substr(9));
  if (outcome.rfind("failed: ", 0) == 0) throw std::runtime_error(outcome.substr(8));
  return lock;
}

}  // namespace hopsim::io
