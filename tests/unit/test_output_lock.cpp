// The output-directory lock: one holder at a time, the holder named in the refusal, stale locks taken over, and a
// lock that is not ours left alone.
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "CatchCompat.h"
#include "ScratchDir.h"
#include "core/ExitCode.h"
#include "io/OutputLock.h"

using hopsim::io::LockHolder;
using hopsim::io::OutputLock;

namespace {

void writeLock(const std::filesystem::path& file, const LockHolder& h) {
  std::ofstream out(file);
  out << nlohmann::json{{"host", h.host}, {"pid", h.pid}, {"started", h.started}, {"process_start", h.processStart}}
             .dump();
}

// The PID of a process that has ended (and been reaped): a holder that no longer exists.
long endedProcessId() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return static_cast<long>(child);
}

// The message acquire throws as InputError, or "" when it takes the lock.
std::string refusal(const std::filesystem::path& dir) {
  std::string notice;
  try {
    auto lock = OutputLock::acquire(dir, notice);
  } catch (const hopsim::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a held output lock refuses a second holder and names the first", "[unit][lock]") {
  ScratchDir dir("lock_held");
  std::filesystem::create_directories(dir.path());
  const auto file = dir.path() / OutputLock::kFileName;
  std::string notice;
  {
    auto lock = OutputLock::acquire(dir.path(), notice);
    CHECK(notice.empty());
    const std::optional<LockHolder> written = OutputLock::read(file);
    REQUIRE(written);
    CHECK(written->pid == static_cast<long>(::getpid()));
    CHECK(written->host == OutputLock::thisProcess().host);
    CHECK(written->started.size() == 20);  // 2026-12-01T16:00:00Z
    CHECK(written->processStart >= 0);

    const std::string why = refusal(dir.path());
    CHECK(why.find("in use by another hopsim run") != std::string::npos);
    CHECK(why.find("PID " + std::to_string(::getpid())) != std::string::npos);
    CHECK(why.find(written->host) != std::string::npos);
    // The refused attempt left the holder's file as it was.
    REQUIRE(OutputLock::read(file));
    CHECK(OutputLock::read(file)->started == written->started);
  }
  CHECK_FALSE(std::filesystem::exists(file));
  CHECK(refusal(dir.path()).empty());
  CHECK_FALSE(std::filesystem::exists(file));
}

TEST_CASE("a stale output lock is reported and taken over", "[unit][lock]") {
  ScratchDir dir("lock_stale");
  std::filesystem::create_directories(dir.path());
  const auto file = dir.path() / OutputLock::kFileName;
  LockHolder old = OutputLock::thisProcess();

  SECTION("the holder's process has ended") {
    old.pid = endedProcessId();
    old.processStart = -1;
  }
  SECTION("the holder's PID now belongs to another process (this one, started at another time)") {
    old.processStart += 12345;
  }
  old.started = "2026-01-02T03:04:05Z";
  writeLock(file, old);
  REQUIRE_FALSE(OutputLock::alive(old));
  // What the dead run left half-written goes with its lock; another process's temporaries stay.
  const std::string deadTail = ".tmp-" + std::to_string(old.pid);
  std::ofstream(dir.path() / ("fields_000000100.h5" + deadTail)) << "cut";
  std::filesystem::create_directories(dir.path() / ("checkpoint_000000000100" + deadTail));
  const auto otherTemporary = dir.path() / ("run.json.tmp-" + std::to_string(old.pid + 1));
  std::ofstream(otherTemporary) << "{}";

  std::string notice;
  {
    auto lock = OutputLock::acquire(dir.path(), notice);
    CHECK(notice.find("stale lock") != std::string::npos);
    CHECK(notice.find("PID " + std::to_string(old.pid)) != std::string::npos);
    CHECK(notice.find("2026-01-02T03:04:05Z") != std::string::npos);
    CHECK(notice.find("removed 2 unfinished file(s)") != std::string::npos);
    REQUIRE(OutputLock::read(file));
    CHECK(OutputLock::read(file)->pid == static_cast<long>(::getpid()));
    CHECK(OutputLock::read(file)->started != old.started);
  }
  CHECK_FALSE(std::filesystem::exists(file));
  // Nothing of the takeover or of the dead run is left beside the lock.
  std::filesystem::remove(otherTemporary);
  CHECK(std::filesystem::is_empty(dir.path()));
}

TEST_CASE("a lock of another host or of unknown form is refused, not taken over", "[unit][lock]") {
  ScratchDir dir("lock_foreign");
  std::filesystem::create_directories(dir.path());
  const auto file = dir.path() / OutputLock::kFileName;

  SECTION("another host") {
    LockHolder other{"node17.cluster.invalid", 4242, "2026-11-30T10:00:00Z", 99};
    writeLock(file, other);
    const std::string why = refusal(dir.path());
    CHECK(why.find("host node17.cluster.invalid, PID 4242") != std::string::npos);
    CHECK(why.find("remove the lock file") != std::string::npos);
  }
  SECTION("not a hopsim lock") {
    std::ofstream(file) << "something else";
    CHECK(refusal(dir.path()).find("not a hopsim lock file") != std::string::npos);
  }
  CHECK(std::filesystem::exists(file));
}

TEST_CASE("releasing an output lock leaves a lock that another run has taken over", "[unit][lock]") {
  ScratchDir dir("lock_taken");
  std::filesystem::create_directories(dir.path());
  const auto file = dir.path() / OutputLock::kFileName;
  const LockHolder other{OutputLock::thisProcess().host, 1, "2026-11-30T10:00:00Z", 7};
  {
    std::string notice;
    auto lock = OutputLock::acquire(dir.path(), notice);
    writeLock(file, other);
  }
  REQUIRE(OutputLock::read(file));
  CHECK(OutputLock::read(file)->pid == 1);
}
