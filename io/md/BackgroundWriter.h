// A thread that writes output files in the order they were handed over, while the thread that hands them over goes
// on computing (issue 22: an MD run's trajectory frames and thermo samples written while the GPU runs the next steps).
// The same class as io/BackgroundWriter.h of branch async-output (the LBM half of issue 22), copied unchanged into
// hopsim::io::md until the two branches meet; then this file goes and MD uses io::BackgroundWriter (the one alias in
// solvers/md/MdTrajectoryOutput.h).
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace hopsim::io::md {

class BackgroundWriter {
 public:
  using Ticket = long long;

  // `inline_`: no thread; submit() runs each job at once on the caller's thread (HOPSIM_SYNC_OUTPUT=1, the
  // reference path the tests compare the thread with). Errors are kept alike either way.
  explicit BackgroundWriter(bool inline_ = false);
  // Waits for the job under way (so that its files are whole, or its temporary file removed) and drops those not
  // started: a run that is unwinding writes no more. Never throws.
  ~BackgroundWriter();
  BackgroundWriter(const BackgroundWriter&) = delete;
  BackgroundWriter& operator=(const BackgroundWriter&) = delete;

  // Queues `job` and returns its ticket without waiting. After a job has failed, later jobs are not run (the run
  // ends on the first error; nothing is written after it).
  Ticket submit(std::function<void()> job);
  // Returns once job `ticket` has run (or was skipped after an earlier failure); the seconds waited.
  double wait(Ticket ticket);
  // Waits for every job submitted so far; the seconds waited.
  double drain();
  bool done(Ticket ticket) const;

  // The first job's error, as the exception the job threw; null while every job has succeeded.
  std::exception_ptr error() const;
  bool failed() const { return error() != nullptr; }
  // The ticket of the job that failed (0: none): the jobs before it succeeded, it and those after it wrote nothing.
  Ticket failedTicket() const;
  // Rethrows error() on the calling thread, once: a run reports its write error once.
  void rethrowOnce();

  // Seconds the jobs have run (on the writer's thread, overlapping the caller), and how many have run.
  double busySeconds() const;
  long long jobsRun() const;
  bool threaded() const { return thread_.joinable(); }

 private:
  void loop();
  void runOne(std::function<void()>& job, Ticket ticket);

  mutable std::mutex mutex_;
  std::condition_variable wake_, finished_;
  std::deque<std::function<void()>> queue_;
  Ticket submitted_ = 0, completed_ = 0;  // jobs 1..completed_ have run or were skipped
  bool stop_ = false;
  bool reported_ = false;
  std::exception_ptr error_;
  Ticket failedTicket_ = 0;
  double busy_ = 0;
  long long run_ = 0;
  std::thread thread_;
};

}  // namespace hopsim::io::md
