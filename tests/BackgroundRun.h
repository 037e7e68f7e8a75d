// hopsim started in the background, for the tests that signal or kill a run while it goes on (test_long_runs,
// test_md_checkpoint): the child is killed and reaped when the test ends early, so no endless run outlives it.
#pragma once

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>

#include "CatchCompat.h"

extern char** environ;

// hopsim started in the background with its stdout and stderr in `log`.
class Child {
 public:
  Child(const std::string& args, const std::filesystem::path& log) : log_(log) {
    const std::string command = "exec " + std::string(HOPSIM_BINARY) + " " + args + " >" + log.string() + " 2>&1";
    const char* argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
    REQUIRE(posix_spawn(&pid_, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ) == 0);
  }
  ~Child() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  pid_t pid() const { return pid_; }
  void signal(int s) const { REQUIRE(::kill(pid_, s) == 0); }
  // The exit code, or -(signal) when a signal ended it.
  int wait() {
    int status = 0;
    REQUIRE(::waitpid(pid_, &status, 0) == pid_);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  }
  std::string log() const {
    std::ifstream in(log_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

 private:
  pid_t pid_ = -1;
  std::filesystem::path log_;
};

// Waits up to a minute for `ready`; false if it never came.
inline bool waitFor(const std::function<bool()>& ready) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < until) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}
