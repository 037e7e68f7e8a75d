// The output writer thread: jobs in order, the first error kept for the submitting thread (a copy of async-output's
// io/BackgroundWriter.cpp until the branches meet).
#include "io/md/BackgroundWriter.h"

#include <chrono>

namespace hopsim::io::md {

BackgroundWriter::BackgroundWriter(bool inline_) {
  if (!inline_) thread_ = std::thread([this] { loop(); });
}

BackgroundWriter::~BackgroundWriter() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
    queue_.clear();
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void BackgroundWriter::runOne(std::function<void()>& job, Ticket ticket) {
  const auto t0 = std::chrono::steady_clock::now();
  std::exception_ptr failure;
  try {
    job();
  } catch (...) {
    failure = std::current_exception();
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::lock_guard lock(mutex_);
  busy_ += seconds;
  ++run_;
  if (failure && !error_) {
    error_ = failure;
    failedTicket_ = ticket;
  }
}

void BackgroundWriter::loop() {
  for (;;) {
    std::function<void()> job;
    Ticket ticket;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stop_ with nothing queued (the destructor clears the queue)
      job = std::move(queue_.front());
      queue_.pop_front();
      ticket = completed_ + 1;  // jobs run in the order of their tickets
      if (error_) job = nullptr;  // skipped: nothing is written after a failure
    }
    if (job) runOne(job, ticket);
    {
      std::lock_guard lock(mutex_);
      ++completed_;
    }
    finished_.notify_all();
  }
}

BackgroundWriter::Ticket BackgroundWriter::submit(std::function<void()> job) {
  if (!thread_.joinable()) {
    Ticket t;
    bool skip;
    {
      std::lock_guard lock(mutex_);
      t = ++submitted_;
      skip = error_ != nullptr;
    }
    if (!skip) runOne(job, t);
    std::lock_guard lock(mutex_);
    completed_ = t;
    return t;
  }
  Ticket t;
  {
    std::lock_guard lock(mutex_);
    t = ++submitted_;
    queue_.push_back(std::move(job));
  }
  wake_.notify_one();
  return t;
}

double BackgroundWriter::wait(Ticket ticket) {
  std::unique_lock lock(mutex_);
  if (completed_ >= ticket) return 0;
  const auto t0 = std::chrono::steady_clock::now();
  finished_.wait(lock, [&] { return completed_ >= ticket; });
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double BackgroundWriter::drain() {
  Ticket last;
  {
    std::lock_guard lock(mutex_);
    last = submitted_;
  }
  return wait(last);
}

bool BackgroundWriter::done(Ticket ticket) const {
  std::lock_guard lock(mutex_);
  return completed_ >= ticket;
}

std::exception_ptr BackgroundWriter::error() const {
  std::lock_guard lock(mutex_);
  return error_;
}

void BackgroundWriter::rethrowOnce() {
  std::exception_ptr e;
  {
    std::lock_guard lock(mutex_);
    if (!error_ || reported_) return;
    reported_ = true;
    e = error_;
  }
  std::rethrow_exception(e);
}

BackgroundWriter::Ticket BackgroundWriter::failedTicket() const {
  std::lock_guard lock(mutex_);
  return failedTicket_;
}

double BackgroundWriter::busySeconds() const {
  std::lock_guard lock(mutex_);
  return busy_;
}

long long BackgroundWriter::jobsRun() const {
  std::lock_guard lock(mutex_);
  return run_;
}

}  // namespace hopsim::io::md
