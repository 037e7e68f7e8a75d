// Stopping a run cleanly on SIGINT, SIGTERM and SIGUSR1: the handler only records the signal, the run loops look at
// it between steps and wind the run down (README, "Long runs").
#pragma once

#include <string>

namespace hopsim::interrupt {

// Installs the handlers (hopsim run). The first SIGINT, SIGTERM or SIGUSR1 is recorded and returned by requested();
// a second SIGINT removes the files registered below and ends the process at once with exit code 130.
void installHandlers();

// The signal received first, 0 when none was.
int requested();

// Tests: behave as if `signal` had arrived, or as if none had.
void request(int signal);
void clear();

// Files that must not outlive an immediate exit (the output lock, CSV `.part` files). register returns a slot for
// unregister, or -1 when every slot is taken (the file then merely stays behind after a second SIGINT).
int registerFileToRemove(const std::string& path);
void unregisterFileToRemove(int slot);

// "SIGINT", "SIGTERM", "SIGUSR1", or "signal <n>".
std::string signalName(int signal);

}  // namespace hopsim::interrupt
