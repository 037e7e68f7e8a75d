// CPU backend: OpenMP loops over x rows, over two population arrays (read one, write the other) or one array updated
// in place (the AA pattern, as the GPU's in-place layout: kernels/lbm/cuda/StreamingAccess.cuh). Bulk cells (every
// upstream neighbour fluid) stream as vectorised runs; the other cells take the shared per-cell gather().
// Populations are stored as double, float or FP16 (FP32 arithmetic; F16C converts where the CPU has it).
// Included by the one source file of each storage type (CpuLbmDouble.cpp, CpuLbmSingle.cpp, CpuLbmHalf.cpp), which
// compile in parallel; CpuLbmBackend.cpp picks among them.
#pragma once

#include "kernels/lbm/cpu/CpuLbmBackend.h"

#include <omp.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "kernels/common/CpuFeatures.h"
#include "kernels/common/ThreadSums.h"
#include "kernels/lbm/Halo.h"
#include "kernels/lbm/StreamCollide.h"
#include "kernels/lbm/Vorticity.h"

namespace hopsim::lbm::cpu {

// How a shifted population is kept: as its arithmetic type, or as FP16 times kHalfStorageScale with FP32 arithmetic
// (the cuda backend's FP16 storage, value for value).
template <class S>
struct HostStorage {
  using Arith = S;
  static constexpr const char* name = sizeof(S) == 8 ? "double" : "single";
  static S encode(S v) { return v; }
  static S decode(S v) { return v; }
};

template <>
struct HostStorage<_Float16> {
  using Arith = float;
  static constexpr const char* name = "half";
  static constexpr float kInvScale = 1.0f / kHalfStorageScale;
  // Both round to nearest even, as F16C's conversions below do, and the scaling by a power of two is exact.
  static _Float16 encode(float v) { return static_cast<_Float16>(v * kHalfStorageScale); }
  static float decode(_Float16 h) { return static_cast<float>(h) * kInvScale; }
};

// decode()/encode() of `count` consecutive values, eight at a time by F16C (GCC 12 does not vectorise _Float16
// conversions itself); the same values as the scalar conversions. Compiled for F16C whatever the build targets, and
// called where the CPU has it (hasF16c()), so that a build for the x86-64 baseline (packages) converts in hardware too.
#if defined(__x86_64__)
[[gnu::target("avx,f16c")]] inline void decodeHalvesF16c(const _Float16* in, float* out, int count) {
  int k = 0;
  const __m256 inv = _mm256_set1_ps(HostStorage<_Float16>::kInvScale);
  for (; k + 8 <= count; k += 8)
    _mm256_storeu_ps(out + k, _mm256_mul_ps(_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + k))),
                                            inv));
  for (; k < count; ++k) out[k] = HostStorage<_Float16>::decode(in[k]);
}

[[gnu::target("avx,f16c")]] inline void encodeHalvesF16c(const float* in, _Float16* out, int count) {
  int k = 0;
  const __m256 scale = _mm256_set1_ps(kHalfStorageScale);
  for (; k + 8 <= count; k += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + k),
                     _mm256_cvtps_ph(_mm256_mul_ps(_mm256_loadu_ps(in + k), scale),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  for (; k < count; ++k) out[k] = HostStorage<_Float16>::encode(in[k]);
}
#endif

// Whether this CPU converts FP16 in hardware (F16C, with the AVX its instructions are encoded in).
inline bool hasF16c() {
#if defined(__F16C__)
  return true;
#elif defined(__x86_64__)
  static const bool has = __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c");
  return has;
#else
  return false;
#endif
}

inline void decodeHalves(const _Float16* in, float* out, int count) {
#if defined(__x86_64__)
  if (hasF16c()) return decodeHalvesF16c(in, out, count);
#endif
  for (int k = 0; k < count; ++k) out[k] = HostStorage<_Float16>::decode(in[k]);
}

inline void encodeHalves(const float* in, _Float16* out, int count) {
#if defined(__x86_64__)
  if (hasF16c()) return encodeHalvesF16c(in, out, count);
#endif
  for (int k = 0; k < count; ++k) out[k] = HostStorage<_Float16>::encode(in[k]);
}

// Cells [begin, end) of one x row that stream without boundaries. `rowEnd` 0 or 1: the run is the first (0) or last
// (1) cell of the box's row, whose populations across the x face come from the other end of the row (periodic x) or
// bounce back (a wall face).
struct BulkRun {
  int begin, end;
  int rowEnd = -1;
};

// Updates the bulk cells [begin, end) of one row: population i of cell x comes from in[from[i] + x] (plus add[i]
// where Moving: the term of a moving wall it bounced off, movingWallTerm(), zero for the others) and goes to
// out[to[i] + x]. The same pull and the same collideWith() as gather() + collide() on such a cell, so the results
// agree bitwise. With two lattices `in` and `out` are two arrays; in place they are one, and each cell reads and
// writes its own slots, which no other cell of the row touches (the AA pattern). `GCC ivdep` because the compiler
// cannot prove that the 2 Q streams of different cells do not overlap (they do not); `omp simd` would keep f[] in
// memory as a per-lane array, and GCC 12 then gives up on the loop (the loads in moments() are "not suitable for
// gather load"). Within one cell every store follows every load (each output depends on all inputs). Trt and the
// collision's terms are template parameters so that the vectorised body has no branch. The local copies let the
// compiler keep the parameters in registers.
template <class L, class T, bool Trt, int Terms, bool Moving>
[[gnu::always_inline]] inline void bulkRunLoop(const T* in, T* out, const long long* from, const long long* to,
                                               const T* add, int begin, int end, const CollisionParams<T>& params) {
  CollisionParams<T> local = params;
  local.trt = Trt ? 1 : 0;
  long long source[L::Q], target[L::Q];
  T term[L::Q];
  for (int i = 0; i < L::Q; ++i) {
    source[i] = from[i];
    target[i] = to[i];
    term[i] = Moving ? add[i] : T(0);
  }
#pragma GCC ivdep
  for (int x = begin; x < end; ++x) {
    T f[L::Q];
HOPSIM_UNROLL
    for (int i = 0; i < L::Q; ++i) {
      f[i] = in[source[i] + x];
      if constexpr (Moving) f[i] += term[i];
    }
    T rho, u[3];
    collideWith<L, Terms>(f, local, rho, u);
HOPSIM_UNROLL
    for (int i = 0; i < L::Q; ++i) out[target[i] + x] = f[i];
  }
}

// The runs' loop for the build's instruction set, and for AVX2 where the build targets less: eight floats or four
// doubles a vector instead of the baseline's four or two, 1.3-1.7x on the workstation's two cores (docs/performance.md,
// "The runs' loop in AVX2"). Without FMA: the kernels are compiled without contraction (CMakeLists.txt), and the
// wider loop computes each value with the same operations, so both agree bitwise with the per-cell update.
template <class L, class T, bool Trt, int Terms, bool Moving>
void updateBulkRun(const T* in, T* out, const long long* from, const long long* to, const T* add, int begin, int end,
                   const CollisionParams<T>& params) {
  bulkRunLoop<L, T, Trt, Terms, Moving>(in, out, from, to, add, begin, end, params);
}
#if HOPSIM_CPU_AVX2_VARIANT
template <class L, class T, bool Trt, int Terms, bool Moving>
[[gnu::target("avx2")]] void updateBulkRunAvx2(const T* in, T* out, const long long* from, const long long* to,
                                               const T* add, int begin, int end, const CollisionParams<T>& params) {
  bulkRunLoop<L, T, Trt, Terms, Moving>(in, out, from, to, add, begin, end, params);
}
#endif
// The runs' loop in AVX2 where Avx2 and the build compiled that variant, else the build's own.
template <class L, class T, bool Trt, int Terms, bool Moving, bool Avx2>
constexpr auto bulkRunVariant() {
#if HOPSIM_CPU_AVX2_VARIANT
  if constexpr (Avx2) return updateBulkRunAvx2<L, T, Trt, Terms, Moving>;
#endif
  return updateBulkRun<L, T, Trt, Terms, Moving>;
}

// updateBulkRun() for FP16 storage, in chunks of the row: each chunk's upstream rows are decoded into FP32 rows in
// L1 (one per population), updated by the FP32 loop and encoded back, so the collision vectorises as it does in
// FP32 and the conversions run eight values at a time. Bitwise the per-cell update's values: the same conversions
// and the same arithmetic. In place too: a chunk's cells read all their slots before any is written.
template <class L, bool Trt, int Terms, bool Moving, bool Avx2>
void updateBulkRunHalf(const _Float16* in, _Float16* out, const long long* from, const long long* to,
                       const float* add, int begin, int end, const CollisionParams<float>& params) {
  constexpr int kChunk = 64;
  alignas(64) float pre[L::Q * kChunk], post[L::Q * kChunk];
  long long chunkRows[L::Q];
  for (int i = 0; i < L::Q; ++i) chunkRows[i] = i * kChunk;
  for (int x0 = begin; x0 < end; x0 += kChunk) {
    const int count = std::min(kChunk, end - x0);
    for (int i = 0; i < L::Q; ++i) decodeHalves(in + from[i] + x0, pre + i * kChunk, count);
    bulkRunVariant<L, float, Trt, Terms, Moving, Avx2>()(pre, post, chunkRows, chunkRows, add, 0, count, params);
    for (int i = 0; i < L::Q; ++i) encodeHalves(post + i * kChunk, out + to[i] + x0, count);
  }
}

// OpenMP threads for a box of `cells`: all of them, but no more than one per `perThread` cells (0: all).
inline int threadsFor(long long cells, long long perThread) {
  const long long most = omp_get_max_threads();
  if (perThread == 0) return static_cast<int>(most);
  return static_cast<int>(std::clamp(cells / perThread, 1LL, most));
}

// The layout the setup asks of the cpu backend (which runs it where cpuTwoLatticeReason() is empty).
inline StreamingLayout cpuLayoutAsked(const LbmSetup& s) {
  return s.layout == StreamingLayout::Auto ? kCpuDefaultLayout : s.layout;
}

// Why this setup runs two lattices although its layout asks for one in place, or empty. The halo exchange moves
// planes of the current array, which only two lattices keep whole. Inlets and outlets run in place here (their
// ghost nodes read the face cells' values kept by the step before, keepOpenFaceCell()); interpolated bounce-back
// does not.
inline std::string cpuTwoLatticeReason(const LbmSetup& s) {
  if (cpuLayoutAsked(s) == StreamingLayout::TwoLattice) return "";
  if (s.domain.hasGhosts()) return "a decomposed box exchanges planes of two lattices";
  if (!s.curved.cells.empty()) return "interpolated bounce-back needs two lattices";
  return "";
}

// L: the lattice; S: the stored type of a population (double, float or _Float16).
template <class L, class S>
class CpuLbm final : public LbmBackend {
  using Store = HostStorage<S>;
  using T = typename Store::Arith;

 public:
  CpuLbm(const LbmSetup& s, CpuCellUpdate update)
      : p_(convertDomain<T>(s.domain)), flags_(s.flags), obstacles_(s.obstacles),
        threads_(threadsFor(s.domain.cells, s.cellsPerThread)), avx2_(update == CpuCellUpdate::BulkRows && hasAvx2()),
        twoLatticeReason_(cpuTwoLatticeReason(s)),
        inPlace_(cpuLayoutAsked(s) == StreamingLayout::InPlace && twoLatticeReason_.empty()),
        stride_(populationStride(s.domain.cells)),
        storage_(std::make_unique_for_overwrite<S[]>(inPlace_ ? L::Q * stride_ : 2 * L::Q * stride_ + kLatticeShift)),
        f_(storage_.get()), g_(inPlace_ ? f_ : storage_.get() + L::Q * stride_ + kLatticeShift), forces_(s.obstacles),
        haloAll_(s.haloAllPopulations), enstrophy_(s.enstrophy), bulkRuns_(ownedRows()), curvedCells_(s.curved.cells),
        curvedQ_(s.curved.q.begin(), s.curved.q.end()) {
    // Start from the equilibrium of the initial fields, shifted so that the moments give back u exactly. The
    // arrays are first written here, row by row by the threads and schedule of step(), so that on a NUMA machine
    // each row's pages sit on the node of the thread that updates it. Both arrays alike: the slots no step writes
    // (solid cells, populations no halo brings) then hold the same values whichever array is current, so the
    // current array alone is the whole state (savePopulations). In place: state 1, whose slots are the cell's own.
    const auto initialise = [&](int y, int z) {
      const long long n = stride_;
      for (int x = 0; x < p_.n[0]; ++x) {
        const long long c = p_.index(x, y, z);
        const T rho = static_cast<T>(s.density[c]);
        T u[3];
        for (int a = 0; a < 3; ++a)
          u[a] = static_cast<T>(s.velocity[3 * c + a]) + T(0.5) * p_.collision.force[a] / rho;
        for (int i = 0; i < L::Q; ++i) {
          const S value = Store::encode(equilibriumShifted<L>(i, rho - T(1), rho, u));
          if (inPlace_) f_[opposite(i) * n + c] = value;
          else f_[i * n + c] = g_[i * n + c] = value;
        }
      }
    };
    const int y0 = p_.ownLo(1), y1 = p_.ownHi(1), z0 = p_.ownLo(2), z1 = p_.ownHi(2);
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads_)
    for (int z = z0; z < z1; ++z)
      for (int y = y0; y < y1; ++y) {
        initialise(y, z);
        if (update != CpuCellUpdate::PerCell) bulkRuns_[ownedRow(y, z)] = findBulkRuns(y, z);
      }
    // Ghost rows of a decomposed run: only halo copies touch them.
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads_)
    for (int z = 0; z < p_.n[2]; ++z)
      for (int y = 0; y < p_.n[1]; ++y)
        if (y < y0 || y >= y1 || z < z0 || z >= z1) initialise(y, z);
    if (inPlace_) {
      for (int f = 0; f < 6; ++f) {
        const int a = f >> 1;
        if (p_.isOpen(f))
          for (auto& kept : openFaceCells_)
            kept[f].resize(static_cast<std::size_t>(p_.n[(a + 1) % 3]) * p_.n[(a + 2) % 3] * kFaceCellValues);
        openFacesInPlace_ = openFacesInPlace_ || !openFaceCells_[0][f].empty();
      }
    }
    updateBulkRun_ = pickBulkRun(false);
    updateMovingRun_ = pickBulkRun(true);
    if (update != CpuCellUpdate::PerCell) {
      bool known[kRowKinds] = {};
      for (int z = z0; z < z1; ++z)
        for (int y = y0; y < y1; ++y)
          if (!bulkRuns_[ownedRow(y, z)].empty() && !known[rowKind(y, z)]) {
            known[rowKind(y, z)] = true;
            rowOffsetsOf<kTwoLattice>(y, z, rowOffsets_[kTwoLattice][rowKind(y, z)]);
            rowOffsetsOf<kFromState0>(y, z, rowOffsets_[kFromState0][rowKind(y, z)]);
            rowOffsetsOf<kFromState1>(y, z, rowOffsets_[kFromState1][rowKind(y, z)]);
          }
    }
  }

  std::string name() const override { return "cpu"; }
  std::string description() const override {
    const std::string curved =
        curvedCells_.empty() ? "" : fmt::format(", interpolated bounce-back at {} cells", curvedCells_.size());
    const std::string layout = inPlace_ ? "one lattice in place (AA pattern)"
                                        : twoLatticeReason_.empty()
                                            ? "two lattices"
                                            : fmt::format("two lattices (in place not used: {})", twoLatticeReason_);
    return fmt::format("cpu, {} OpenMP threads, {} {}, {}, {}{}", threads_, L::name, Store::name, layout,
                       bulkCells() > 0 ? fmt::format("bulk cells in vectorised rows ({} of {} cells){}", bulkCells(),
                                                     ownedCells(), avx2_ ? ", AVX2 picked at run time" : "")
                                       : std::string("per cell"),
                       curved);
  }

  std::string layout() const override {
    return toString(inPlace_ ? StreamingLayout::InPlace : StreamingLayout::TwoLattice);
  }
  // The current post-collision populations, [q][cell] over the box with its ghost layers, as stored (S), each
  // population stored minus its lattice weight (equilibriumShifted); non-fluid cells hold the rest state (zero), as
  // no step reads theirs. The same for both layouts, so a checkpoint of either restores into the other.
  std::string populationLayout() const override {
    return fmt::format("cpu {} {} [q][cell] shifted, box with ghosts", L::name, Store::name);
  }
  void savePopulations(std::vector<std::byte>& out) override {
    out.resize(L::Q * p_.cells * sizeof(S));
    S* const to = reinterpret_cast<S*>(out.data());
    forEachCell([&](long long c, int x, int y, int z) {
      const bool fluid = flags_[c] == kFluid;
      for (int i = 0; i < L::Q; ++i) to[i * p_.cells + c] = fluid ? f_[postSlot(i, c, x, y, z)] : S(0);
    });
  }
  void loadPopulations(std::span<const std::byte> in) override {
    if (in.size() != L::Q * p_.cells * sizeof(S))
      throw std::invalid_argument(fmt::format("{} bytes of populations for a box that holds {}", in.size(),
                                              L::Q * p_.cells * sizeof(S)));
    const S* const from = reinterpret_cast<const S*>(in.data());
    openFacesKept_ = false;
    forEachCell([&](long long c, int x, int y, int z) {
      if (flags_[c] != kFluid) return;  // in place, a non-fluid cell's slots may be a fluid cell's in the other state
      for (int i = 0; i < L::Q; ++i) f_[postSlot(i, c, x, y, z)] = from[i * p_.cells + c];
    });
  }

  void advance(long long steps, bool forcesOnLastStep) override {
    for (long long s = 0; s < steps; ++s) {
      if (forcesOnLastStep && s == steps - 1) step<true>();
      else step<false>();
    }
  }

  void macroscopic(std::vector<double>& rho, std::vector<double>& u) override {
    rho.resize(static_cast<std::size_t>(ownedCells()));
    u.resize(3 * rho.size());
    ownedMoments(rho.data(), u.data());
  }

  // The copy is the moments themselves, into the slot in the backend's precision: the populations change with the
  // next step, so the fields are taken here, on the stepping thread, and only their writing overlaps the steps.
  void startFieldCopy(int slot) override {
    FieldCopy& s = copies_.at(static_cast<std::size_t>(slot));
    s.rho.resize(static_cast<std::size_t>(ownedCells()));
    s.u.resize(3 * s.rho.size());
    ownedMoments(s.rho.data(), s.u.data());
  }
  HostFields fieldCopy(int slot) override {
    const FieldCopy& s = copies_.at(static_cast<std::size_t>(slot));
    return {s.rho.data(), s.u.data(), static_cast<long long>(s.rho.size()), std::is_same_v<T, float>};
  }

  long long ownedCells() const {
    return static_cast<long long>(p_.ownHi(0) - p_.ownLo(0)) * (p_.ownHi(1) - p_.ownLo(1)) * (p_.ownHi(2) - p_.ownLo(2));
  }

  // Density and velocity of the owned cells (solid cells: 1 and 0) into rho and u (3 per cell), x fastest.
  template <class V>
  void ownedMoments(V* rho, V* u) const {
    const int ox = p_.ownLo(0), oy = p_.ownLo(1), oz = p_.ownLo(2);
    const int mx = p_.ownHi(0) - ox, my = p_.ownHi(1) - oy, mz = p_.ownHi(2) - oz;
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads_)
    for (int z = 0; z < mz; ++z)
      for (int y = 0; y < my; ++y)
        for (int x = 0; x < mx; ++x) {
          const long long c = p_.index(x + ox, y + oy, z + oz);
          const long long o = (static_cast<long long>(z) * my + y) * mx + x;
          if (flags_[c] != kFluid) {
            rho[o] = V(1);
            for (int a = 0; a < 3; ++a) u[3 * o + a] = V(0);
            continue;
          }
          T f[L::Q], r, v[3];
          for (int i = 0; i < L::Q; ++i) f[i] = Store::decode(f_[postSlot(i, c, x + ox, y + oy, z + oz)]);
          postCollisionMoments<L>(f, p_.collision.force, r, v);
          rho[o] = static_cast<V>(r);
          for (int a = 0; a < 3; ++a) u[3 * o + a] = static_cast<V>(v[a]);
        }
  }

  // One parallel region: the sums, each fluid cell's velocity into velocity_, then the enstrophy from them (each
  // velocity is read by seven cells). A sample is taken every few steps, and on a loaded machine each region's
  // barriers cost more than a small box's cells.
  Observables observables() override {
    const long long n = p_.cells;
    // Ghost cells' velocities are known only where the halo brings every population (LbmBackend's Observables).
    const bool vorticity = enstrophy_ && (!p_.hasGhosts() || haloAll_);
    if (vorticity) velocity_.resize(static_cast<std::size_t>(3 * n));
    T* const u = vorticity ? velocity_.data() : nullptr;
    // The sums added in thread order, so that a sample is the same on every run with the same threads (ThreadSums.h);
    // the count and the maximum come out the same in any order.
    ThreadSums<3> sums(threads_);
    double vmax = 0;
    long long fluid = 0;
#pragma omp parallel num_threads(threads_)
    {
      double dmass = 0, ke = 0, enstrophy = 0;
#pragma omp for schedule(static) reduction(+ : fluid) reduction(max : vmax)
      for (long long c = 0; c < n; ++c) {
        if (flags_[c] != kFluid) continue;
        T f[L::Q], r, own[3];
        T* const v = u ? &u[3 * c] : own;
        const long long nx = p_.n[0], ny = p_.n[1];
        const int x = static_cast<int>(c % nx), y = static_cast<int>(c / nx % ny), z = static_cast<int>(c / (nx * ny));
        for (int i = 0; i < L::Q; ++i) f[i] = Store::decode(f_[postSlot(i, c, x, y, z)]);
        postCollisionMoments<L>(f, p_.collision.force, r, v);
        if (!p_.owns(x, y, z)) continue;
        // Summing rho - 1 keeps the mass balance accurate to round-off of the deviations, not of 1.
        T drho = 0;
        for (int i = 0; i < L::Q; ++i) drho += f[i];
        dmass += static_cast<double>(drho);
        const double v2 = double(v[0]) * v[0] + double(v[1]) * v[1] + double(v[2]) * v[2];
        ke += 0.5 * static_cast<double>(r) * v2;
        vmax = std::max(vmax, std::sqrt(v2));
        ++fluid;
      }
      if (vorticity) {
#pragma omp for collapse(2) schedule(static)
        for (int z = p_.ownLo(2); z < p_.ownHi(2); ++z)
          for (int y = p_.ownLo(1); y < p_.ownHi(1); ++y)
            for (int x = p_.ownLo(0); x < p_.ownHi(0); ++x)
              if (flags_[p_.index(x, y, z)] == kFluid) enstrophy += halfVorticitySquaredAt(u, x, y, z);
      }
      sums.put({dmass, ke, enstrophy});
    }
    return {static_cast<double>(fluid) + sums.total(0), sums.total(1), vmax,
            vorticity ? sums.total(2) : std::numeric_limits<double>::quiet_NaN()};
  }

  std::vector<std::array<double, 3>> obstacleForces() override { return forces_; }

  double bytesPerCellUpdate() const override { return 2.0 * L::Q * sizeof(S); }

  std::span<const std::byte> packHalo(int face) override {
    const HaloPlane plane = haloPlane(p_, face, true);
    int pops[L::Q];
    const int count = haloPopulations<L>(face, true, haloAll_, pops);
    std::vector<S>& out = outbox_[face];
    out.resize(static_cast<std::size_t>(count * plane.cells()));
    copyPlane(plane, pops, count, [&](std::size_t k, std::size_t slot) { out[k] = f_[slot]; });
    return std::as_bytes(std::span<const S>(out));
  }

  std::span<std::byte> haloInbox(int face) override {
    int pops[L::Q];
    const int count = haloPopulations<L>(face, false, haloAll_, pops);
    std::vector<S>& in = inbox_[face];
    in.resize(static_cast<std::size_t>(count * haloPlane(p_, face, false).cells()));
    return std::as_writable_bytes(std::span<S>(in));
  }

  void unpackHalo(int face) override {
    const HaloPlane plane = haloPlane(p_, face, false);
    int pops[L::Q];
    const int count = haloPopulations<L>(face, false, haloAll_, pops);
    const std::vector<S>& in = inbox_[face];
    copyPlane(plane, pops, count, [&](std::size_t k, std::size_t slot) { f_[slot] = in[k]; });
  }

 private:
  struct FieldCopy {
    std::vector<T> rho, u;
  };
  std::array<FieldCopy, kFieldSlots> copies_;
  std::vector<T> velocity_;  // observables() with the enstrophy: the fluid cells' velocities, 3 per cell of the box

  // Calls move(k, slot) for each population of the plane: k indexes the buffer ([population][plane cell]), slot
  // the current population array.
  template <class Move>
  void copyPlane(const HaloPlane& plane, const int* pops, int count, const Move& move) const {
    const long long cells = plane.cells(), n = stride_;
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads_)
    for (int k = 0; k < count; ++k)
      for (long long j = 0; j < cells; ++j)
        move(static_cast<std::size_t>(k * cells + j), static_cast<std::size_t>(pops[k] * n + plane.cell(p_, j)));
  }

  // |curl u|^2 / 2 at fluid cell (x, y, z) from the velocities `u` (3 per cell of the box) of its axis neighbours
  // that are fluid, wrapped where the axis is periodic and not split (a split axis has its ghost layer inside the box).
  double halfVorticitySquaredAt(const T* u, int x, int y, int z) const {
    const int pos[3] = {x, y, z};
    double g[3][3] = {};
    for (int a = 0; a < L::D; ++a) {
      const T* side[2] = {nullptr, nullptr};
      for (int s = 0; s < 2; ++s) {
        int q[3] = {x, y, z};
        q[a] = pos[a] + (s ? 1 : -1);
        if (q[a] < 0 || q[a] >= p_.n[a]) {
          if (!p_.periodic[a]) continue;
          q[a] = q[a] < 0 ? q[a] + p_.n[a] : q[a] - p_.n[a];
        }
        const long long nb = p_.index(q[0], q[1], q[2]);
        if (flags_[nb] == kFluid) side[s] = &u[3 * nb];
      }
      axisGradient(a, &u[3 * p_.index(x, y, z)], side[0], side[1], g);
    }
    return halfVorticitySquared(g);
  }

  long long ownedRows() const {
    return static_cast<long long>(p_.ownHi(1) - p_.ownLo(1)) * (p_.ownHi(2) - p_.ownLo(2));
  }
  long long ownedRow(int y, int z) const {
    return static_cast<long long>(z - p_.ownLo(2)) * (p_.ownHi(1) - p_.ownLo(1)) + (y - p_.ownLo(1));
  }
  // The cells the vectorised rows update.
  long long bulkCells() const {
    long long cells = 0;
    for (const std::vector<BulkRun>& runs : bulkRuns_)
      for (const BulkRun& run : runs) cells += run.end - run.begin;
    return cells;
  }

  // The row (y, z) of population i's upstream cells, wrapped where the axis is periodic (as gather() wraps); false
  // when the row lies beyond a face of the box. A step calls it Q times per row: the wrap is a compare, not a
  // division (the upstream coordinate is at most one cell outside the box).
  bool upstreamRow(int i, int y, int z, int& ys, int& zs) const {
    const auto wrap = [](int s, int n) { return s < 0 ? s + n : (s >= n ? s - n : s); };
    ys = y - L::c(i, 1);
    zs = z - L::c(i, 2);
    if (p_.periodic[1]) ys = wrap(ys, p_.n[1]);
    if (p_.periodic[2]) zs = wrap(zs, p_.n[2]);
    return ys >= 0 && ys < p_.n[1] && zs >= 0 && zs < p_.n[2];
  }

  // Where population i of every cell x of row (y, z) comes from, as population `from` of cell `row` + x: its
  // upstream row (wrapped where the axis is periodic) shifted by -c_x; or, where that row lies beyond a wall face, the
  // cell itself in the opposite population, half-way bounce-back as gather() makes it, plus `add`, the term of the
  // wall where it moves (else zero). False where it lies beyond an inlet or an outlet.
  bool rowSource(int i, int y, int z, int& from, long long& row, T& add) const {
    add = T(0);
    int ys, zs;
    if (upstreamRow(i, y, z, ys, zs)) {
      from = i;
      row = p_.index(0, ys, zs) - L::c(i, 0);
      return true;
    }
    const int crossed = (ys < 0 ? 1 << 2 : 0) | (ys >= p_.n[1] ? 1 << 3 : 0) | (zs < 0 ? 1 << 4 : 0) |
                        (zs >= p_.n[2] ? 1 << 5 : 0);
    bool moving = false;
    const int wall = wallOfLink(p_, crossed, moving);
    if (wall < 0) return false;
    if (moving) add = movingWallTerm<L>(p_.face[wall], i);
    from = opposite(i);
    row = p_.index(0, y, z);
    return true;
  }

  // The runs of owned fluid cells of row (y, z) whose every population comes from a fluid cell of the box or bounces
  // at a wall face, moving or not (rowSource()). The first and last cell of the box's row are left out so that no x
  // wraps inside a run and no x face is crossed, but where x is periodic or the x face a wall (and the row reaches the
  // face), each of them that pulls from fluid cells only is a run of its own (endSources()), as gather() wraps or
  // bounces.
  std::vector<BulkRun> findBulkRuns(int y, int z) const {
    std::vector<BulkRun> runs;
    long long upstream[L::Q];
    int from[L::Q];
    T add;
    for (int i = 0; i < L::Q; ++i)
      if (!rowSource(i, y, z, from[i], upstream[i], add)) return runs;
    const auto pullsFluid = [&](int x, const long long* source) {
      bool bulk = flags_[p_.index(x, y, z)] == kFluid;
      for (int i = 0; i < L::Q && bulk; ++i) bulk = flags_[source[i] + x] == kFluid;
      return bulk;
    };
    long long ends[2][L::Q];
    int endFrom[2][L::Q];
    const std::array<bool, 2> usable = endSources(upstream, from, ends, endFrom);
    if (usable[0] && pullsFluid(0, ends[0])) runs.push_back({0, 1, 0});
    const int begin = std::max(p_.ownLo(0), 1), end = std::min(p_.ownHi(0), p_.n[0] - 1);
    for (int x = begin; x < end; ++x) {
      if (!pullsFluid(x, upstream)) continue;
      if (!runs.empty() && runs.back().end == x && runs.back().rowEnd < 0) ++runs.back().end;
      else runs.push_back({x, x + 1});
    }
    if (usable[1] && pullsFluid(p_.n[0] - 1, ends[1])) runs.push_back({p_.n[0] - 1, p_.n[0], 1});
    return runs;
  }

  // The sources of the box row's first (ends[0]) and last (ends[1]) cell, and whether each can be a bulk run (the
  // row reaches that x face, and x is periodic or the face a wall): `upstream` (of rowSource(), population from[i])
  // with the populations pulled across the x face (first cell: c_x > 0; last: c_x < 0) taken from the other end of
  // the row (shifted by +-n cells) where x is periodic, or bounced back from the cell's own opposite population
  // (endFrom = opposite, source the cell itself) at a wall. Populations bounced already stay so.
  std::array<bool, 2> endSources(const long long* upstream, const int* from, long long ends[2][L::Q],
                                 int endFrom[2][L::Q]) const {
    const long long row = upstream[0];  // population 0 rests: its source is the cell itself
    const bool reaches[2] = {p_.ownLo(0) == 0, p_.ownHi(0) == p_.n[0]};
    std::array<bool, 2> usable{};
    for (int e = 0; e < 2; ++e) {
      const bool wall = p_.face[e].type == kFaceWall;
      usable[e] = p_.n[0] >= 2 && reaches[e] && (p_.periodic[0] || wall);
      for (int i = 0; i < L::Q; ++i) {
        const bool crosses = from[i] == i && (e == 0 ? L::c(i, 0) > 0 : L::c(i, 0) < 0);
        endFrom[e][i] = crosses && wall ? opposite(i) : from[i];
        ends[e][i] = !crosses ? upstream[i] : wall ? row : upstream[i] + (e == 0 ? p_.n[0] : -p_.n[0]);
      }
    }
    return usable;
  }

  // Which slots a step reads and writes: two lattices, or in place from state 0 or from state 1 (pushedSlot()).
  enum Access { kTwoLattice, kFromState0, kFromState1 };

  // Where a bulk row's runs read and write, relative to the row's first cell: in[reads[k][i] + x] and
  // out[writes[k][i] + x] for population i of the row's cell x, k = 0 for the runs through the row, 1 and 2 for
  // the box row's first and last cell (BulkRun::rowEnd + 1). They depend on the row only through the faces of the box
  // it lies on (rowKind()), so the constructor works them out once per kind and a step adds the row's index.
  // adds[k][i]: the moving-wall term population i takes (rowSource()), zero on the box row's ends where the link
  // also crosses a wall x face, which wins as in gather() (wallOfLink()); `moving` where any is non-zero, and
  // `endsAsRow` where the ends' terms are the row's.
  struct RowOffsets {
    long long reads[3][L::Q], writes[3][L::Q];
    T adds[3][L::Q];
    bool moving = false, endsAsRow = true;
  };
  static constexpr int kRowKinds = 16;
  int rowKind(int y, int z) const {
    return (y == 0 ? 1 : 0) | (y == p_.n[1] - 1 ? 2 : 0) | (z == 0 ? 4 : 0) | (z == p_.n[2] - 1 ? 8 : 0);
  }
  // The offsets of bulk row (y, z), from rowSource() and endSources(): the upstream rows (wrapped or not), whose
  // population from[i] a two-lattice step reads. In place, a step from state 0 reads and writes the cell's own slots;
  // one from state 1 reads state 1 in the upstream rows and writes state 0 into the downstream ones, which are the
  // opposite populations' upstream rows (or the cell itself, reversed, where the opposite population bounces off a
  // wall face).
  template <int Access>
  void rowOffsetsOf(int y, int z, RowOffsets& o) const {
    const long long n = stride_, row = p_.index(0, y, z);
    long long cells[3][L::Q];
    int from[3][L::Q];
    for (int i = 0; i < L::Q; ++i) rowSource(i, y, z, from[0][i], cells[0][i], o.adds[0][i]);  // true: a bulk row
    endSources(cells[0], from[0], &cells[1], &from[1]);
    for (int e = 0; e < 2; ++e)
      for (int i = 0; i < L::Q; ++i) {
        const bool crossesWall = p_.face[e].type == kFaceWall && (e == 0 ? L::c(i, 0) > 0 : L::c(i, 0) < 0);
        o.adds[e + 1][i] = crossesWall ? T(0) : o.adds[0][i];
      }
    for (int k = 0; k < 3; ++k)
      for (int i = 0; i < L::Q; ++i) {
        o.moving = o.moving || o.adds[k][i] != T(0);
        o.endsAsRow = o.endsAsRow && o.adds[k][i] == o.adds[0][i];
      }
    for (int k = 0; k < 3; ++k)
      for (int i = 0; i < L::Q; ++i) {
        const int opp = opposite(i);
        if constexpr (Access == kTwoLattice) {
          o.reads[k][i] = from[k][i] * n + cells[k][i];
          o.writes[k][i] = i * n + row;
        } else if constexpr (Access == kFromState0) {
          o.reads[k][i] = i * n + row;
          o.writes[k][i] = opp * n + row;
        } else {
          o.reads[k][i] = opposite(from[k][i]) * n + cells[k][i];
          o.writes[k][i] = from[k][opp] == opp ? i * n + cells[k][opp] : opp * n + row;
        }
        o.reads[k][i] -= row;
        o.writes[k][i] -= row;
      }
  }

  using BulkRunUpdate = void (*)(const S*, S*, const long long*, const long long*, const T*, int, int,
                                 const CollisionParams<T>&);
  template <bool Trt, int Terms, bool Moving, bool Avx2>
  static constexpr BulkRunUpdate bulkRunOf() {
    if constexpr (std::is_same_v<S, _Float16>) return updateBulkRunHalf<L, Trt, Terms, Moving, Avx2>;
    else return bulkRunVariant<L, S, Trt, Terms, Moving, Avx2>();
  }
  template <bool Trt, int Terms, bool Moving>
  BulkRunUpdate bulkRunOf() const {
    if constexpr (HOPSIM_CPU_AVX2_VARIANT) {
      if (avx2_) return bulkRunOf<Trt, Terms, Moving, true>();
    }
    return bulkRunOf<Trt, Terms, Moving, false>();
  }
  template <bool Trt, int Terms>
  BulkRunUpdate bulkRunFor(bool moving) const {
    return moving ? bulkRunOf<Trt, Terms, true>() : bulkRunOf<Trt, Terms, false>();
  }
  // collide() picks the terms by withTerms(); so does this (the regularised operator has no TRT form). The rows
  // along a moving wall take the variant that adds its terms.
  BulkRunUpdate pickBulkRun(bool moving) const {
    BulkRunUpdate run = nullptr;
    withTerms(p_.collision, [&]<int Terms>() {
      if constexpr ((Terms & kRegularizedTerms) != 0) run = bulkRunFor<false, Terms>(moving);
      else run = p_.collision.trt ? bulkRunFor<true, Terms>(moving) : bulkRunFor<false, Terms>(moving);
    });
    return run;
  }

  // A link into obstacle `ob` whose populations carried m (gather()'s onLink): the obstacle gains -m c_i, into the
  // thread's forces `local` (3 per obstacle).
  static void creditLink(std::vector<double>& local, int ob, int i, T m) {
    local[3 * ob + 0] -= double(L::c(i, 0)) * m;
    local[3 * ob + 1] -= double(L::c(i, 1)) * m;
    local[3 * ob + 2] -= double(L::c(i, 2)) * m;
  }

  // gather() for a cell with links into obstacles with interpolated bounce-back (wall distances q): those links
  // replace what gather() bounced half-way, and credit their obstacle with the momentum of the populations that
  // actually crossed them (forces into `local`, 3 per obstacle, as step() sums them). Out of line: written inside
  // step()'s per-cell lambda it changed how GCC 12 compiled the other cells' update, and D3Q19 single-precision TRT
  // cells no longer matched the bulk rows bitwise (test_cpu_bulk_rows), though no case had such links.
  template <bool Forces>
  [[gnu::noinline]] void gatherCurved(const S* in, int x, int y, int z, long long c, const T* q, T* f,
                                      std::vector<double>& local) const {
    const long long n = stride_;
    const std::uint8_t* flags = flags_.data();
    const auto load = [in, n](int i, long long cell) { return Store::decode(in[i * n + cell]); };
    const auto halfWayLink = [&](int ob, int i, T m) {
      if (q[i] == T(0)) creditLink(local, ob, i, m);
    };
    gather<L, Forces>(p_, flags, load, x, y, z, c, f, halfWayLink);
    const int pos[3] = {x, y, z};
    const auto onLink = [&local](int ob, int i, T m) { creditLink(local, ob, i, m); };
    interpolatedLinks<L, Forces>(p_, flags, load, pos, c, q, f, onLink);
  }

  // The wall distances of cell c's links (CurvedLinks), or null when it has none.
  const T* curvedQ(long long c) const {
    const auto it = std::lower_bound(curvedCells_.begin(), curvedCells_.end(), c);
    if (it == curvedCells_.end() || *it != c) return nullptr;
    return curvedQ_.data() + (it - curvedCells_.begin()) * L::Q;
  }

  // In place (the AA pattern of StreamingAccess.cuh), the populations alternate between two states. In state 0 the
  // post-collision population i of cell (x, y, z) sits where it streams to, A[i][(x, y, z) + c_i] (wrapped where the
  // axis is periodic), or reversed in place, A[opp(i)][(x, y, z)], where that cell lies beyond a face; in state 1 in
  // A[opp(i)][(x, y, z)]. A step from state 0 reads and writes each cell's own slots (into state 1); a step from
  // state 1 reads from the upstream cells and writes into the downstream ones (state 0). Each state gives every slot
  // to one (population, cell), so cells never race. This is the state-0 slot.
  long long pushedSlot(int i, int x, int y, int z) const {
    const int pos[3] = {x, y, z};
    int to[3];
    for (int a = 0; a < 3; ++a) {
      to[a] = pos[a] + L::c(i, a);
      if (to[a] >= 0 && to[a] < p_.n[a]) continue;
      if (!p_.periodic[a]) return opposite(i) * stride_ + p_.index(x, y, z);
      to[a] = to[a] < 0 ? to[a] + p_.n[a] : to[a] - p_.n[a];
    }
    return i * stride_ + p_.index(to[0], to[1], to[2]);
  }
  // Where the current post-collision population i of cell c = (x, y, z) sits.
  long long postSlot(int i, long long c, int x, int y, int z) const {
    if (!inPlace_) return i * stride_ + c;
    return state_ == 0 ? pushedSlot(i, x, y, z) : opposite(i) * stride_ + c;
  }
  // fn(c, x, y, z) for every cell of the box, rows in parallel.
  template <class Fn>
  void forEachCell(const Fn& fn) const {
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads_)
    for (int z = 0; z < p_.n[2]; ++z)
      for (int y = 0; y < p_.n[1]; ++y)
        for (int x = 0; x < p_.n[0]; ++x) fn(p_.index(x, y, z), x, y, z);
  }

  template <bool Forces>
  void step() {
    if (!inPlace_) {
      stepWith<Forces, kTwoLattice>();
      std::swap(f_, g_);
      return;
    }
    if (state_ == 0) stepWith<Forces, kFromState0>();
    else stepWith<Forces, kFromState1>();
    state_ ^= 1;
  }

  // In place, an inlet or outlet ghost node reads the full population set of a cell on its face (ghostPopulation()),
  // which that cell rewrites during the step. So the step reads them from the values of the open faces' cells that
  // the step before kept (openFaceCells_[openFacesRead_]: the populations as stored, then decoded, and their moments:
  // what the two-lattice step reads from its unchanged array) and keeps this step's in the other buffer
  // (keepOpenFaceCell(); every such cell is updated per cell, never in a row's run: its pulls cross an open face).
  // storeOpenFaceCells() fills them from the array where no step has (the first step, after loadPopulations()).
  static constexpr int kFaceCellValues = L::Q + 4;  // the populations, rho, u
  // Where the values of cell pos on open face `face` are kept in a buffer's plane of the face.
  long long openFaceOffset(int face, const int pos[3]) const {
    const int a = face >> 1, t0 = (a + 1) % 3, t1 = (a + 2) % 3;
    return (pos[t0] + static_cast<long long>(p_.n[t0]) * pos[t1]) * kFaceCellValues;
  }
  // Keeps the populations f (post-collision, as they will be stored) and their moments for every open face whose
  // plane holds cell pos.
  void keepOpenFaceCell(int buffer, const int pos[3], const T* f) {
    for (int face = 0; face < 6; ++face) {
      if (openFaceCells_[buffer][face].empty() || pos[face >> 1] != p_.facePlane(face)) continue;
      T* kept = openFaceCells_[buffer][face].data() + openFaceOffset(face, pos);
      for (int i = 0; i < L::Q; ++i) kept[i] = Store::decode(Store::encode(f[i]));
      postCollisionMoments<L>(kept, p_.collision.force, kept[L::Q], kept + L::Q + 1);
    }
  }
  void storeOpenFaceCells() {
    for (int face = 0; face < 6; ++face) {
      if (openFaceCells_[0][face].empty()) continue;
      const int a = face >> 1, t0 = (a + 1) % 3, t1 = (a + 2) % 3;
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads_)
      for (int v = 0; v < p_.n[t1]; ++v)
        for (int u = 0; u < p_.n[t0]; ++u) {
          int pos[3];
          pos[a] = p_.facePlane(face);
          pos[t0] = u;
          pos[t1] = v;
          const long long c = p_.index(pos[0], pos[1], pos[2]);
          if (flags_[c] != kFluid) continue;
          T f[L::Q];
          for (int i = 0; i < L::Q; ++i) f[i] = Store::decode(f_[postSlot(i, c, pos[0], pos[1], pos[2])]);
          keepOpenFaceCell(openFacesRead_, pos, f);  // an edge cell on two open faces: each time the same values
        }
    }
    openFacesKept_ = true;
  }
  // Population i of the ghost node g outside open `face`, pulled by cell c at pos: ghostPopulation() with its inner
  // neighbour's values taken from the kept face cells.
  T openFaceGhost(int face, int i, const int g[3], const int pos[3], long long c) const {
    int x0[3];
    ghostInner(p_, flags_.data(), g, pos, c, x0);  // on the face's plane of cells
    const T* kept = openFaceCells_[openFacesRead_][face].data() + openFaceOffset(face, x0);
    return ghostFromInner<L>(p_, face, i, g, kept[i], kept[L::Q], kept + L::Q + 1);
  }

  template <bool Forces, int Access>
  void stepWith() {
    const long long n = stride_;
    const S* in = f_;
    S* out = g_;  // f_ itself in place
    const std::uint8_t* flags = flags_.data();
    const int x0 = p_.ownLo(0), x1 = p_.ownHi(0), y0 = p_.ownLo(1), y1 = p_.ownHi(1), z0 = p_.ownLo(2), z1 = p_.ownHi(2);
    const int nob = obstacles_;
    const bool openFaces = Access != kTwoLattice && openFacesInPlace_;
    if (openFaces && !openFacesKept_) storeOpenFaceCells();
    // Each thread's obstacle forces, summed in thread order after the loop: the same total on every run.
    std::vector<std::vector<double>> perThread(Forces ? threads_ : 0);
#pragma omp parallel num_threads(threads_)
    {
      std::vector<double> local(Forces ? 3 * nob : 0, 0.0);
      const auto onLink = [&local](int ob, int i, T m) { creditLink(local, ob, i, m); };
      const auto updateCell = [&](int x, int y, int z) {
        const long long c = p_.index(x, y, z);
        if (flags[c] != kFluid) return;
        T f[L::Q];
        if constexpr (Access == kTwoLattice) {
          const auto load = [in, n](int i, long long cell) { return Store::decode(in[i * n + cell]); };
          if (const T* q = curvedQ(c)) {
            gatherCurved<Forces>(in, x, y, z, c, q, f, local);
          } else {
            gather<L, Forces>(p_, flags, load, x, y, z, c, f, onLink);
          }
        } else {
          // From state 0, gather() reads the populations arriving from upstream (A[i][c]) or the cell's own
          // (bounced); from state 1, the upstream cells' own slots.
          const auto load = [&](int i, long long cell) {
            if constexpr (Access == kFromState0)
              return Store::decode(in[cell == c ? pushedSlot(i, x, y, z) : i * n + c]);
            else
              return Store::decode(in[opposite(i) * n + cell]);
          };
          if (openFaces) {
            const int pos[3] = {x, y, z};
            const auto ghost = [&](int face, int i, const int g[3]) { return openFaceGhost(face, i, g, pos, c); };
            gather<L, Forces, true>(p_, flags, load, x, y, z, c, f, onLink, ghost);
          } else {
            gather<L, Forces, false>(p_, flags, load, x, y, z, c, f, onLink);
          }
        }
        T rho, u[3];
        collide<L>(f, p_.collision, rho, u);
        for (int i = 0; i < L::Q; ++i) {
          const long long slot = Access == kTwoLattice  ? i * n + c
                                 : Access == kFromState0 ? opposite(i) * n + c
                                                         : pushedSlot(i, x, y, z);
          out[slot] = Store::encode(f[i]);
        }
        if (openFaces) {
          const int pos[3] = {x, y, z};
          keepOpenFaceCell(openFacesRead_ ^ 1, pos, f);
        }
      };
#pragma omp for collapse(2) schedule(static)
      for (int z = z0; z < z1; ++z)
        for (int y = y0; y < y1; ++y) {
          const std::vector<BulkRun>& runs = bulkRuns_[ownedRow(y, z)];
          int x = x0;
          if (!runs.empty()) {
            const RowOffsets& rel = rowOffsets_[Access][rowKind(y, z)];
            const long long row = p_.index(0, y, z);
            long long reads[3][L::Q], writes[3][L::Q];
            const int kinds = runs.front().rowEnd >= 0 || runs.back().rowEnd >= 0 ? 3 : 1;
            for (int k = 0; k < kinds; ++k)
              for (int i = 0; i < L::Q; ++i) {
                reads[k][i] = rel.reads[k][i] + row;
                writes[k][i] = rel.writes[k][i] + row;
              }
            const BulkRunUpdate update = rel.moving ? updateMovingRun_ : updateBulkRun_;
            for (std::size_t r = 0; r < runs.size(); ++r) {
              for (; x < runs[r].begin; ++x) updateCell(x, y, z);
              int end = runs[r].end;
              // From state 0 every cell reads and writes its own slots, the row's end cells too (their offsets are
              // the row's): runs that touch are one loop, where the ends take the row's moving-wall terms.
              if constexpr (Access == kFromState0)
                while (rel.endsAsRow && r + 1 < runs.size() && runs[r + 1].begin == end) end = runs[++r].end;
              const int k = (Access == kFromState0 && rel.endsAsRow) ? 0 : runs[r].rowEnd + 1;
              update(in, out, reads[k], writes[k], rel.adds[k], x, end, p_.collision);
              x = end;
            }
          }
          for (; x < x1; ++x) updateCell(x, y, z);
        }
      if constexpr (Forces) perThread[omp_get_thread_num()] = std::move(local);
    }
    if (openFaces) openFacesRead_ ^= 1;  // the values this step kept
    if constexpr (Forces) {
      std::vector<double> total(3 * nob, 0.0);
      for (const std::vector<double>& local : perThread)
        for (std::size_t k = 0; k < local.size(); ++k) total[k] += local[k];
      for (int ob = 0; ob < nob; ++ob) forces_[ob] = {total[3 * ob], total[3 * ob + 1], total[3 * ob + 2]};
    }
  }

  DomainParams<T> p_;
  std::vector<std::uint8_t> flags_;
  int obstacles_;
  int threads_;  // OpenMP threads of every parallel region (threadsFor())
  bool avx2_;  // the runs' loop compiled for AVX2 (updateBulkRunAvx2()), picked at run time
  std::string twoLatticeReason_;  // cpuTwoLatticeReason()
  bool inPlace_;  // one lattice updated in place (pushedSlot())
  int state_ = 1;  // in place: the state the populations are in (state 1 from the start: each cell's own slots)
  // Elements from one population's array to the next: the cells rounded up to a cache line, plus one line. A box
  // of 2^k cells would otherwise start every population array, and the upstream rows of one array, on the same
  // cache sets: the Q read and Q write streams of a row evict each other, and loads wait on stores 4 KiB apart.
  static long long populationStride(long long cells) {
    constexpr long long line = 64 / sizeof(S);
    return (cells + line - 1) / line * line + line;
  }
  // Half a page between the two lattices, so that population i's read and write streams are not 4 KiB apart either.
  static constexpr long long kLatticeShift = 2048 / sizeof(S);

  long long stride_;
  std::unique_ptr<S[]> storage_;  // the lattices (one in place); not value-initialised: the threads touch them first
  S* f_;  // [population][stride]: the current populations (in place: the one array)
  S* g_;  // the next step's (in place: f_)
  std::vector<std::array<double, 3>> forces_;
  bool haloAll_;
  bool enstrophy_;  // LbmSetup::enstrophy
  std::vector<std::vector<BulkRun>> bulkRuns_;  // per owned row, z slowest; empty rows with CpuCellUpdate::PerCell
  BulkRunUpdate updateBulkRun_ = nullptr;
  BulkRunUpdate updateMovingRun_ = nullptr;  // the rows along a moving wall
  RowOffsets rowOffsets_[3][kRowKinds];  // [Access][rowKind()], filled for the kinds that have bulk rows
  std::vector<long long> curvedCells_;  // LbmSetup::curved, in T
  std::vector<T> curvedQ_;
  std::vector<S> outbox_[6], inbox_[6];
  // In place, two buffers (the step reads one, keeps its own values in the other), per open face: its plane of
  // cells' populations and moments, kFaceCellValues per cell, the plane's first tangential axis fastest; empty for
  // the other faces.
  std::array<std::vector<T>, 6> openFaceCells_[2];
  int openFacesRead_ = 0;        // the buffer the next step reads
  bool openFacesKept_ = false;   // whether it holds the current state's values (storeOpenFaceCells() where not)
  bool openFacesInPlace_ = false;  // any open face in place
};

// The backend of the case's lattice with populations stored as S (explicitly instantiated by the storage type's file).
template <class S>
std::unique_ptr<LbmBackend> makeCpuLbm(const LbmSetup& s, CpuCellUpdate update) {
  switch (s.lattice) {
    case LatticeKind::D2Q9: return std::make_unique<CpuLbm<D2Q9, S>>(s, update);
    case LatticeKind::D3Q19: return std::make_unique<CpuLbm<D3Q19, S>>(s, update);
    case LatticeKind::D3Q27: return std::make_unique<CpuLbm<D3Q27, S>>(s, update);
  }
  throw std::logic_error("unknown lattice");
}

}  // namespace hopsim::lbm::cpu
