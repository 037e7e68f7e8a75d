// Runs commands from the integration tests: the exit code and what the command printed.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>

#include "CatchCompat.h"

struct CommandResult {
  int code;            // the exit status, -1 when the command did not exit normally
  std::string output;  // stdout, and stderr where the command line redirects it
};

// `command` through the shell (popen).
inline CommandResult runCommand(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  REQUIRE(pipe);
  std::string out;
  std::array<char, 4096> buf;
  while (std::fgets(buf.data(), buf.size(), pipe.get())) out += buf.data();
  const int status = pclose(pipe.release());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// The hopsim binary built with the tests (HOPSIM_BINARY) with `args`, stdout and stderr together.
inline CommandResult runHopsim(const std::string& args) {
  return runCommand(std::string(HOPSIM_BINARY) + " " + args + " 2>&1");
}

// hopsim `args` with --quiet, refused with exit 2 (a case, or a checkpoint to restart from, that hopsim will not run)
// and saying each of `says`. Tests that a refusal changed nothing compare the output folder before and after.
inline void checkRefused(const std::string& args, std::initializer_list<std::string_view> says) {
  const CommandResult r = runHopsim(args + " --quiet");
  INFO(args << "\n" << r.output);
  CHECK(r.code == 2);
  for (const std::string_view s : says) {
    INFO("expected to say: " << s);
    CHECK(r.output.find(s) != std::string::npos);
  }
}
