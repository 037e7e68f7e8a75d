// Instruction sets a CPU kernel compiled for the x86-64 baseline (packages: HOPSIM_NATIVE=OFF) may add at run time.
// HOPSIM_CPU_AVX2_VARIANT is 1 where the translation unit targets less than AVX2, so that a kernel's loop has an AVX2
// variant (a [[gnu::target("avx2")]] function) worth compiling; hasAvx2() says whether this CPU runs it.
#pragma once

namespace hopsim {

#if defined(__x86_64__) && !defined(__AVX2__)
#define HOPSIM_CPU_AVX2_VARIANT 1
inline bool hasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}
// AVX2 with FMA (every CPU with AVX2 that hopsim knows of has it; the two are separate CPUID bits).
inline bool hasAvx2Fma() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}
#else
#define HOPSIM_CPU_AVX2_VARIANT 0
inline bool hasAvx2() { return false; }
inline bool hasAvx2Fma() { return false; }
#endif

}  // namespace hopsim
