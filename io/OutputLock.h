// The lock that keeps two runs out of one output directory: `hopsim.lock` names the run that holds it.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "core/Mpi.h"

namespace hopsim::io {

// Who holds a lock, as its file says.
struct LockHolder {
  std::string host;
  long pid = 0;
  std::string started;          // UTC, ISO 8601
  long long processStart = -1;  // the process's start time in clock ticks since boot (Linux), -1 when unknown
  std::string describe() const;  // "host h, PID p, started t"
};

// Held for a run's lifetime; the file is removed when the lock is destroyed (normal end, an exception passing by)
// or by the immediate exit of a second SIGINT (core/Interrupt.h). A run killed with SIGKILL leaves it behind: the
// next run finds it stale (this host, the process gone) and takes it over.
class OutputLock {
 public:
  static constexpr const char* kFileName = "hopsim.lock";

  // Takes dir/hopsim.lock. Throws InputError naming the holder when a live run holds it (or a run on another host,
  // which cannot be checked), std::runtime_error when the file cannot be written. A stale lock is taken over and
  // `notice` says whose it was.
  static std::unique_ptr<OutputLock> acquire(const std::filesystem::path& dir, std::string& notice);
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

  const std::filesystem::path& path() const { return path_; }
  const LockHolder& holder() const { return self_; }

  // The holder a lock file names; empty when the file is missing or not a hopsim lock.
  static std::optional<LockHolder> read(const std::filesystem::path& lockFile);
  // This process as a lock names it.
  static LockHolder thisProcess();
  // Whether the holder is a live process (on this host: its PID exists and, where known, started when the lock says).
  // A holder on another host is taken as alive: nothing here can look.
  static bool alive(const LockHolder& holder);

 private:
  OutputLock(std::filesystem::path path, LockHolder self);
  std::filesystem::path path_;
  LockHolder self_;
  int removeSlot_ = -1;
};

// Collective over comm: rank 0 takes the lock of `dir` (which exists) and every rank learns the outcome; a refusal
// throws InputError on every rank with rank 0's message, a failure std::runtime_error. Rank 0 gets the lock, the
// others nullptr. A stale lock taken over is logged as a warning by rank 0.
std::unique_ptr<OutputLock> lockOutputDirectory(const std::filesystem::path& dir, const mpi::Comm& comm);

}  // namespace hopsim::io
