// The data movement of a CPU LBM update without its arithmetic, on one core: Q population streams read and Q
// written, interleaved `chunk` cells at a time (each stream advanced by `chunk` cells in turn, as a vectorised row
// update advances all of them), between two lattices or in place (each stream written where it was read, as an
// in-place streaming layout does), against memcpy of the same bytes. Bytes counted as read + written, like the
// bench's copy bandwidth and its LBM model (2 Q sizeof(float) per cell). docs/performance.md, "Where a core of the
// workstation stops" (issue 21). Not part of the build:
//   g++ -O3 -march=native -o cpu_streams bench/cpu_streams.cpp && ./cpu_streams 19 2000000 16
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

template <class Body>
double medianSeconds(Body body) {
  std::vector<double> t;
  for (int r = 0; r < 7; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    body();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s Q cells chunk\n", argv[0]);
    return 2;
  }
  const int q = std::atoi(argv[1]);
  const std::size_t n = std::strtoull(argv[2], nullptr, 10), chunk = std::strtoull(argv[3], nullptr, 10);
  if (q < 1 || n < 1 || chunk < 1) return 2;
  const std::size_t stride = n + 80;  // streams a cache line and a bit apart from a multiple of 4 KiB, as CpuLbm.h
  std::vector<float> a(q * stride, 1.0f), b(q * stride, 2.0f);
  const auto sweep = [&](const float* from, float* to) {
    for (std::size_t x0 = 0; x0 < n; x0 += chunk) {
      const std::size_t end = std::min(n, x0 + chunk);
      for (int k = 0; k < q; ++k) {
        const float* __restrict__ src = from + k * stride;
        float* __restrict__ dst = to + k * stride;
#pragma GCC ivdep
        for (std::size_t x = x0; x < end; ++x) dst[x] = src[x] * 0.5f;
      }
    }
  };
  const double bytes = 2.0 * q * n * sizeof(float);
  const double twoLattice = medianSeconds([&] { sweep(a.data(), b.data()); std::swap(a, b); });
  const double inPlace = medianSeconds([&] { sweep(a.data(), a.data()); });
  const double copy = medianSeconds([&] { std::memcpy(b.data(), a.data(), q * n * sizeof(float)); });
  std::printf("Q %d, %zu cells, chunk %zu: two lattices %.1f GB/s (%.1f Mcells/s), in place %.1f GB/s (%.1f), "
              "memcpy %.1f GB/s\n", q, n, chunk, bytes / twoLattice / 1e9, n / twoLattice / 1e6, bytes / inPlace / 1e9,
              n / inPlace / 1e6, bytes / copy / 1e9);
}
