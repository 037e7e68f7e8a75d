// Signal handlers that record, and the one immediate exit they take (a second SIGINT).
#include "core/Interrupt.h"

#include <unistd.h>

#include <array>
#include <csignal>
#include <cstring>

#include "core/ExitCode.h"

namespace hopsim::interrupt {
namespace {

volatile std::sig_atomic_t pending = 0;

// Fixed storage, because the handler may neither allocate nor look at a std::string that is being changed.
constexpr std::size_t kSlots = 16, kPathBytes = 4096;
std::array<std::array<char, kPathBytes>, kSlots> paths{};
std::array<volatile std::sig_atomic_t, kSlots> used{};

void onSignal(int signal) {
  if (pending == 0) {
    pending = signal;
    return;
  }
  if (signal != SIGINT) return;
  // Only async-signal-safe calls from here on: unlink, write, _exit.
  for (std::size_t k = 0; k < kSlots; ++k)
    if (used[k]) ::unlink(paths[k].data());
  static const char message[] = "hopsim: second SIGINT, stopping at once (no checkpoint, CSV series not kept)\n";
  [[maybe_unused]] const auto written = ::write(STDERR_FILENO, message, sizeof message - 1);
  ::_exit(kExitInterrupted);
}

}  // namespace

void installHandlers() {
  struct sigaction action {};
  action.sa_handler = onSignal;
  sigemptyset(&action.sa_mask);
  // SA_RESTART: a signal must not make a write or an MPI call in progress fail with EINTR.
  action.sa_flags = SA_RESTART;
  for (int signal : {SIGINT, SIGTERM, SIGUSR1}) sigaction(signal, &action, nullptr);
}

int requested() { return pending; }

void request(int signal) { pending = signal; }
void clear() { pending = 0; }

int registerFileToRemove(const std::string& path) {
  if (path.size() >= kPathBytes) return -1;
  for (std::size_t k = 0; k < kSlots; ++k) {
    if (used[k]) continue;
    std::memcpy(paths[k].data(), path.c_str(), path.size() + 1);
    used[k] = 1;  // after the path is complete, so the handler never sees half of it
    return static_cast<int>(k);
  }
  return -1;
}

void unregisterFileToRemove(int slot) {
  if (slot >= 0 && static_cast<std::size_t>(slot) < kSlots) used[static_cast<std::size_t>(slot)] = 0;
}

std::string signalName(int signal) {
  switch (signal) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGUSR1: return "SIGUSR1";
    default: return "signal " + std::to_string(signal);
  }
}

}  // namespace hopsim::interrupt
