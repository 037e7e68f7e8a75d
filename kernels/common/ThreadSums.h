// Sums over an OpenMP loop that come out the same, bit for bit, on every run with the same number of threads: each
// thread keeps its own partial sums, added in thread order after the parallel region. An OpenMP
// `reduction(+ : ...)` combines the threads in the order they finish, so two such runs can differ in the last bit
// (seen: the CPU MD engine's same-thread-count test failed once in CI, 3 threads on 2 cores), and a sum that feeds
// back into the state (a thermostat's kinetic energy) then changes the trajectory.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include <omp.h>

namespace hopsim {

template <int N>
class ThreadSums {
 public:
  // Before the parallel region: room for every thread it may have (unused slots stay zero).
  explicit ThreadSums(int threads = omp_get_max_threads())
      : parts_(static_cast<std::size_t>(threads > 0 ? threads : 1)) {}

  // Inside the region, once per thread: its partial sums.
  void put(const std::array<double, N>& mine) { parts_.at(static_cast<std::size_t>(omp_get_thread_num())) = mine; }

  // After the region: sum k over the threads, in thread order.
  double total(int k) const {
    double s = 0;
    for (const auto& p : parts_) s += p[static_cast<std::size_t>(k)];
    return s;
  }

 private:
  std::vector<std::array<double, N>> parts_;
};

}  // namespace hopsim
