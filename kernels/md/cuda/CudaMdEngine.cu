// CUDA backend of the MD solver: GPU cell binning and sorting (CUB radix sort), a full neighbour list built on the
// device (neighbour k of atom i at [k * N + i] for coalescing), LJ forces from the shared host/device pair function,
// integrators from the shared per-particle functions, and the per-step sequence replayed as CUDA Graphs (one launch
// per step; the list rebuilt inside them behind a conditional node, so the host waits once per advance; see
// advance()).
//
// The list build (branch md-nbr, issue 5; before it: ~21 ms per build at 16.4M atoms on an H200, ~18 ms of it in
// the build kernel, 3.57 of 8.7 ms per step). Changes and the gain predicted for each, to be measured:
// - Row-wise search: atoms are sorted by bin with x fastest, so the bins of one (y, z) row of the stencil are one
//   contiguous run of atoms. The kernel walks <= 25 rows (two cellStart loads each) instead of 125 bins (250 loads,
//   three integer modulos each), and handles periodicity by shifting the searching atom once per row instead of a
//   minimum image per candidate. Predicted: ~2.5x fewer instructions per candidate and ~5x less loop overhead.
// - Sphere-trimmed rows (kernels/md/BinStencil.h): per row, only the bins along x that the range sphere meets in that
//   row's y/z slab (and no row the sphere misses): 196 candidates per atom instead of 294 (-33%, Monte Carlo at the
//   benchmark state), with no per-bin branching (the earlier per-bin pruning, 90e2783, lost to its branches).
// - Coalesced list stores: each warp (32 consecutive atoms) stages its newest 64 entries per atom in shared memory
//   and writes a list row k for all 32 atoms at once (one 128-byte store) as soon as every lane has an entry k. The
//   old kernel made one 4-byte store per entry to a different row per lane: 1.28e9 partial-sector L2 writes per
//   build, the likely main cost of the old kernel (pruning candidates did not speed it up). A lane whose entries run
//   more than 64 ahead of the warp's slowest lane writes directly, as before (simulated: 0% at the benchmark state).
// - No per-atom atomics on one address (the old kernel did atomicMax(maxNeighbors) per atom): the list statistics
//   are reduced from the counts only when stats() asks; a per-atom atomic remains only on overflow.
// - cellStart[ncell + 1] filled by one kernel (no memsets, no cellEnd).
// Predicted together: build kernel ~18 -> ~4-6 ms, a rebuild ~21 -> ~8 ms (sort and reordering, ~2.5 ms, unchanged),
// neighbour share 3.57 -> ~1.3 ms per step at 16.4M atoms.
// Force kernel: neighbour indices and positions through the read-only path (__ldg, float4), the neighbour loop
// unrolled by 4 so that several index and position loads are in flight. Predicted: 5-10% of its 4.1 ms.
// Together: ~8.7 -> ~6.2-6.6 ms per step, 1.9 -> ~2.5 G atom-steps/s at 16.4M atoms (target 2.0).
// Boxes too small for 5 half-range bins per axis (< 2.5 x (cutoff + skin)) keep the former per-bin kernel.
// The kernels this engine shares with the decomposed one (binning, forces, integration) are in MdKernels.cuh; the
// list builds, which walk the periodic box, and the device Nose-Hoover steps stay here.
#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>
#include <string>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "core/md/AtomIds.h"
#include "kernels/common/CudaCheck.h"
#include "kernels/md/BinStencil.h"
#include "kernels/md/cuda/MdKernels.cuh"
#include "kernels/md/hopper/CellForces.h"
#include "kernels/md/MdEngine.h"
#include "kernels/md/Thermostats.h"
#include "kernels/md/VelocityInit.h"

namespace hopsim::md {

namespace {

constexpr unsigned kFullWarp = 0xffffffffu;
constexpr int kListWarps = 4;   // warps per block of the list build
constexpr int kStage = 64;      // list entries per atom staged in shared memory (a power of two)

template <class P>
struct ListGrid {
  BinAxis<P> axis[3];
  P search;   // cutoff + skin plus a rounding margin: the bins searched
  P rangeSq;  // (cutoff + skin)^2: the pairs listed
};

// A 32-bit word of shared memory at a shared-window address. The list build converts its slots' base once: given a
// pointer or the array's index, the compiler re-derived the window's base (S2UR, ULEA) at every staged store.
__device__ __forceinline__ void storeShared(unsigned address, int v) {
  asm volatile("st.shared.b32 [%0], %1;" ::"r"(address), "r"(v));
}
__device__ __forceinline__ int loadShared(unsigned address) {
  int v;
  asm volatile("ld.shared.b32 %0, [%1];" : "=r"(v) : "r"(address));
  return v;
}

// Fast build (every axis has >= 5 half-range bins): one thread per atom, the search walked row by row (see the file
// comment), list entries staged per warp in shared memory and written one list row of 32 atoms at a time.
// It is bound by its instruction count, not its loads (ncu at 16.4M atoms on the H100, docs/performance.md: issuing
// on ~58% of its cycles; 7.8 G warp instructions a build before the appends and flushes were made lighter, 6.35 G
// after): an entry's append is a compare and a shared store (the limits it must respect folded once a row into
// `limit`), and a flush a load and a store an entry.
template <class S, class P>
__global__ void __launch_bounds__(kListWarps * 32)
    buildListKernel(Arrays<S, P> a, ListGrid<P> g, const int* __restrict__ cellStart, DeviceScalars* ds) {
  __shared__ int stage[kListWarps][kStage][32];
  const int lane = threadIdx.x & 31;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i - lane >= a.n) return;  // the whole warp is past the end; otherwise every lane stays for the warp votes
  const bool active = i < a.n;
  // This lane's staged entry k at shared address slot(k) (a lane reads back only its own slots: no barrier).
  const unsigned slot0 = static_cast<unsigned>(__cvta_generic_to_shared(&stage[threadIdx.x >> 5][0][lane]));
  const auto slot = [&](int k) { return slot0 + static_cast<unsigned>(k & (kStage - 1)) * 32u * sizeof(int); };
  const auto* __restrict__ pos = a.pos;
  const auto pi = loadVec(pos + (active ? i : a.n - 1));
  const P x = pi.x, y = pi.y, z = pi.z;
  const BinSpan zs = binSpan(z, g.search, g.axis[2]), ys = binSpan(y, g.search, g.axis[1]);
  const int nz = active ? zs.count : 0, ny = active ? ys.count : 0;
  const int rowsZ = __reduce_max_sync(kFullWarp, nz), rowsY = __reduce_max_sync(kFullWarp, ny);
  const int stride = a.stride;
  const std::size_t n = static_cast<std::size_t>(a.n);
  int* const out = a.nlist + i;  // entry k of atom i at out[k * n]
  // Rows [from, end) of the list from this lane's staged entries, one 128-byte row segment per store for the warp.
  const auto flush = [&](int from, int end) {
    int* o = out + static_cast<std::size_t>(from) * n;
    for (int k = from; k < end; ++k, o += n) *o = loadShared(slot(k));
  };

  // Entry k is staged while it is fewer than kStage ahead of the rows already written; once a lane runs further
  // ahead it writes its entries directly from then on (spill = its first direct entry). Entries past the list's
  // stride are counted, not stored (the list grows and is built again).
  int m = 0, written = 0, spill = INT_MAX;
  for (int tz = 0; tz < rowsZ; ++tz) {
    for (int ty = 0; ty < rowsY; ++ty) {
      if (tz < nz && ty < ny) {
        const SearchRow<P> row = searchRow(x, y, z, g.search, ys.lo + ty, zs.lo + tz, g.axis);
        if (!row.empty) {
          RowRun<P> runs[3];
          splitRow(row.xs, g.axis[0], runs);
          const P hy = y + row.shiftY, hz = z + row.shiftZ;
          // Entries below `limit` go to their slots; the rest (a lane gone kStage ahead, a spilled lane, an entry
          // past the stride) take the rare path. A spilled lane's limit is its spill, below every later entry.
          const int limit = spill != INT_MAX ? spill : min(stride, written + kStage);
#pragma unroll
          for (int r = 0; r < 3; ++r) {  // unrolled: the runs stay in registers
            if (runs[r].last < runs[r].first) continue;
            const P hx = x + runs[r].shift;
            const auto take = [&](int j, const decltype(pi)& pj) {
              const P dx = hx - pj.x, dy = hy - pj.y, dz = hz - pj.z;
              if (dx * dx + dy * dy + dz * dz < g.rangeSq && j != i) {
                if (m < limit) {
                  storeShared(slot(m), j);
                } else if (m < stride) {
                  spill = min(spill, m);
                  out[static_cast<std::size_t>(m) * n] = j;
                }
                ++m;
              }
            };
            const int end = __ldg(cellStart + row.rowBase + runs[r].last + 1);
            int j = __ldg(cellStart + row.rowBase + runs[r].first);
            // Four candidates' positions loaded before any is tested: the loop was bound by the latency of one
            // dependent load per candidate (ncu: 14.5 ms per 16.4M-atom build); the list order stays ascending j.
            for (; j + 3 < end; j += 4) {
              const auto p0 = loadVec(pos + j), p1 = loadVec(pos + j + 1), p2 = loadVec(pos + j + 2),
                         p3 = loadVec(pos + j + 3);
              take(j, p0);
              take(j + 1, p1);
              take(j + 2, p2);
              take(j + 3, p3);
            }
            for (; j < end; ++j) take(j, loadVec(pos + j));
          }
        }
      }
      // Rows every lane has reached are complete: store them (a lane's staged ones: below its spill and the stride).
      const int low = __reduce_min_sync(kFullWarp, active ? m : INT_MAX);
      if (active) flush(written, min(low, min(spill, stride)));
      written = low;
    }
  }
  if (active) {
    flush(written, min(m, min(spill, stride)));
    a.ncount[i] = m;
    if (m > stride) atomicMax(&ds->overflow, m);
  }
}

// The list by bins for the small boxes (fewer than 2 reach + 1 bins on some axis, where the row-wise build would name
// a bin twice), one thread per atom: bins walked modulo the grid, each once, minimum image per candidate.
template <class S, class P>
__global__ void buildListBinsKernel(Arrays<S, P> a, BoxParams b, const int* cellStart, P rangeSq, DeviceScalars* ds) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  const auto pi = a.pos[i];
  const P L[3] = {P(b.L[0]), P(b.L[1]), P(b.L[2])}, H[3] = {P(b.H[0]), P(b.H[1]), P(b.H[2])};
  const int c = cellIndexOf<true>(pi.x, pi.y, pi.z, b);
  const int c3[3] = {c % b.cells[0], (c / b.cells[0]) % b.cells[1], c / (b.cells[0] * b.cells[1])};
  int lo[3], hi[3];
  for (int d = 0; d < 3; ++d) {
    const bool wraps = b.cells[d] < 2 * b.reach + 1;
    lo[d] = wraps ? 0 : -b.reach;
    hi[d] = wraps ? b.cells[d] - 1 : b.reach;
  }
  int m = 0;
  for (int oz = lo[2]; oz <= hi[2]; ++oz)
    for (int oy = lo[1]; oy <= hi[1]; ++oy)
      for (int ox = lo[0]; ox <= hi[0]; ++ox) {
        const int nx = (c3[0] + ox + b.cells[0]) % b.cells[0];
        const int ny = (c3[1] + oy + b.cells[1]) % b.cells[1];
        const int nz = (c3[2] + oz + b.cells[2]) % b.cells[2];
        const int nc = nx + b.cells[0] * (ny + b.cells[1] * nz);
        for (int k = cellStart[nc]; k < cellStart[nc + 1]; ++k) {
          if (k == i) continue;
          const auto pj = a.pos[k];
          const P dx = minimumImage(P(pi.x - pj.x), L[0], H[0]), dy = minimumImage(P(pi.y - pj.y), L[1], H[1]),
                  dz = minimumImage(P(pi.z - pj.z), L[2], H[2]);
          if (dx * dx + dy * dy + dz * dz < rangeSq) {
            if (m < a.stride) a.nlist[static_cast<std::size_t>(m) * a.n + i] = k;
            ++m;
          }
        }
      }
  a.ncount[i] = m;
  if (m > a.stride) atomicMax(&ds->overflow, m);
}

// Pair-precision positions from the stored ones, leaving the list's reference positions (a restored state); as
// integrateFirstKernel makes them (StepParams::continuousPairs).
template <class S, class P>
__global__ void positionsKernel(Arrays<S, P> a, BoxParams b, bool continuous) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  if (!continuous) {
    a.pos[i] = {P(a.x[i]), P(a.y[i]), P(a.z[i]), P(0)};
    return;
  }
  a.pos[i] = {P(a.x0[i] + minimumImage(S(a.x[i] - a.x0[i]), S(b.L[0]), S(b.H[0]))),
              P(a.y0[i] + minimumImage(S(a.y[i] - a.y0[i]), S(b.L[1]), S(b.H[1]))),
              P(a.z0[i] + minimumImage(S(a.z[i] - a.z0[i]), S(b.L[2]), S(b.H[2]))), P(0)};
}

// The Hopper path's sort key: the cell brick by brick (kernels/md/CellBricks.h), from the stored positions.
template <class S, class P>
__global__ void binBricksKernel(Arrays<S, P> a, CellBricks g, unsigned* keys, int* values) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  keys[i] = g.keyOf(a.x[i], a.y[i], a.z[i]);
  values[i] = i;
}

// A frame's staging buffer in id order: atom k goes to row id - idBase of each of the seven arrays (x, y, z, vx, vy,
// vz as stored, then the ids), so that the host writer's ordering and interleaving passes run in memory order
// instead of scattering a million atoms (issue 22: they held the writer thread to 0.57 of the disk's bandwidth).
// Only for ids that are a permutation of idBase .. idBase + n - 1 (checked on the host when they are set).
template <class S, class P>
__global__ void orderedFrameKernel(Arrays<S, P> a, long long idBase, S* stage) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  const long long id = a.id[i];
  const std::size_t n = static_cast<std::size_t>(a.n), r = static_cast<std::size_t>(id - idBase);
  stage[r] = a.x[i];
  stage[n + r] = a.y[i];
  stage[2 * n + r] = a.z[i];
  stage[3 * n + r] = a.vx[i];
  stage[4 * n + r] = a.vy[i];
  stage[5 * n + r] = a.vz[i];
  reinterpret_cast<long long*>(stage + 6 * n)[r] = id;
}

// Nose-Hoover bookkeeping on one thread: the half-steps of the shared Trotter split.
__global__ void noseHooverFirstKernel(DeviceScalars* ds, double dt) {
  if (!ds->halt) ds->nhScale1 = noseHooverHalfStep(ds->nh, ds->twoKinetic, dt);
}
__global__ void noseHooverSecondKernel(DeviceScalars* ds, double dt) {
  if (ds->halt) return;
  const double s = noseHooverHalfStep(ds->nh, ds->twoKinetic, dt);
  ds->nhScale2 = s;
  ds->twoKinetic *= s * s;
}

// The step graphs' list rebuild runs behind a conditional node: its body when an atom moved more than skin/2 (and
// the steps are not halted).
__global__ void rebuildConditionKernel(cudaGraphConditionalHandle handle, const DeviceScalars* ds) {
  cudaGraphSetConditional(handle, ds->rebuild && !ds->halt ? 1u : 0u);
}

// After a list build inside a step graph: counted, or, where the list overflowed, the steps halted until the host
// grows it (the positions, sorted atoms and cell ranges of the build stay; only the list is built again).
__global__ void afterBuildKernel(DeviceScalars* ds) {
  if (ds->overflow) ds->halt = 1;
  else ds->builds += 1;
}

// S: positions and velocities; P: pair arithmetic and forces; A: per-thread energy accumulation (each atom's own
// pairs; the sums over atoms are in double). Mixed precision sums an atom's pair energies and virials in float, as
// its forces: in double, the conversions per pair (at a fraction of the FP32 rate) and the wider registers made
// the force kernel of a thermo step 41% slower than the plain one (346 against 245 us for 1M atoms, H200,
// 2026-12-02; docs/performance.md).
template <class S, class P, class A>
class CudaMdEngine final : public MdEngine {
 public:
  CudaMdEngine(const EngineConfig& c, int gpu) : config_(c), gpu_(gpu) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
      cudaGetLastError();
      throw std::runtime_error("the cuda backend was requested but no CUDA device is available");
    }
    if (gpu_ >= count) throw std::runtime_error("GPU " + std::to_string(gpu_) + " requested, " + std::to_string(count) + " present");
    HOPSIM_CUDA_CHECK(cudaSetDevice(gpu_));
    cudaDeviceProp prop{};
    HOPSIM_CUDA_CHECK(cudaGetDeviceProperties(&prop, gpu_));
    deviceName_ = prop.name;
    smCount_ = prop.multiProcessorCount;
    HOPSIM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    HOPSIM_CUDA_CHECK(cudaStreamCreateWithFlags(&bodyStream_, cudaStreamNonBlocking));
    HOPSIM_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&hostScalars_), sizeof(DeviceScalars)));
    deviceAlloc(ds_, 1);
    for (auto* e : {&ev_[0], &ev_[1], &ev_[2], &nbEv_[0], &nbEv_[1]}) HOPSIM_CUDA_CHECK(cudaEventCreate(e));
    listCounts_.allocate();
    coeff_ = makeLjCoefficients<P>(c.lj.epsilon, c.lj.sigma, c.lj.cutoff, c.lj.shift);
    // The thermo ring: a few hundred bytes per sample, on the device and in pinned memory for the batch's read.
    deviceAlloc(ring_, kRing);
    HOPSIM_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&hostRing_), kRing * sizeof(DeviceScalars)));
  }

  ~CudaMdEngine() override {
    destroyGraphs();
    // A frame copy still in flight writes into the pinned slots: it ends before they are freed.
    if (copyStream_) cudaStreamSynchronize(copyStream_);
    freeFrameBuffers();
    deviceFree(ring_);
    if (hostRing_) cudaFreeHost(hostRing_);
    freeArrays();
    deviceFree(ds_);
    if (hostScalars_) cudaFreeHost(hostScalars_);
    listCounts_.release();
    for (auto e : ev_) if (e) cudaEventDestroy(e);
    for (auto e : nbEv_) if (e) cudaEventDestroy(e);
    if (stream_) cudaStreamDestroy(stream_);
    if (bodyStream_) cudaStreamDestroy(bodyStream_);
  }

  void initialize(const ParticleState& s) override {
    setup(s.box, s.size(), s.mass);
    upload(a_.x, s.x), upload(a_.y, s.y), upload(a_.z, s.z);
    upload(a_.vx, s.vx), upload(a_.vy, s.vy), upload(a_.vz, s.vz);
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(a_.id, s.id.data(), n_ * sizeof(long long), cudaMemcpyHostToDevice, stream_));
    frameIdBase_ = denseIdBase(s.id).value_or(-1);
    HOPSIM_CUDA_CHECK(cudaMemsetAsync(a_.fx, 0, n_ * sizeof(P), stream_));
    HOPSIM_CUDA_CHECK(cudaMemsetAsync(a_.fy, 0, n_ * sizeof(P), stream_));
    HOPSIM_CUDA_CHECK(cudaMemsetAsync(a_.fz, 0, n_ * sizeof(P), stream_));

    // Wrap in double on the host already happened; narrowing to float can land on L: clamp through a refresh.
    rebuild();
    resetAccumulators(true);
    launchForce(true);
    // Kinetic energy of the initial velocities: a second half-kick with zero dt is a plain reduction.
    StepParams zero = params_;
    zero.dtf = 0;
    zero.useLangevin = false;
    integrateSecondKernel<S, P><<<blocksFor(n_), kBlock, 0, stream_>>>(a_, zero, ds_);
    HOPSIM_CUDA_CHECK_LAUNCH("integrateSecondKernel (kinetic energy)");
    kineticKernelScale<<<1, 1, 0, stream_>>>(ds_, mass_);
    HOPSIM_CUDA_CHECK_LAUNCH("kineticKernelScale");
    HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  void saveState(EngineState& st) override {
    HOPSIM_CUDA_CHECK(cudaSetDevice(gpu_));
    st.box.length = {box_.L[0], box_.L[1], box_.L[2]};
    st.mass = mass_;
    st.atomsInAll = static_cast<std::size_t>(n_);
    fetch(a_.x, st.x), fetch(a_.y, st.y), fetch(a_.z, st.z), fetch(a_.x0, st.x0), fetch(a_.y0, st.y0);
    fetch(a_.z0, st.z0), fetch(a_.vx, st.vx), fetch(a_.vy, st.vy), fetch(a_.vz, st.vz);
    fetch(a_.fx, st.fx), fetch(a_.fy, st.fy), fetch(a_.fz, st.fz);
    st.id.resize(static_cast<std::size_t>(n_));
    HOPSIM_CUDA_CHECK(cudaMemcpy(st.id.data(), a_.id, n_ * sizeof(long long), cudaMemcpyDeviceToHost));
    HOPSIM_CUDA_CHECK(cudaMemcpy(hostScalars_, ds_, sizeof(DeviceScalars), cudaMemcpyDeviceToHost));
    st.potential = hostScalars_->potential;
    st.virial = hostScalars_->virial;
    st.twoKinetic = hostScalars_->twoKinetic;
    st.nhXi = hostScalars_->nh.xi;
    st.nhTwoKinetic = hostScalars_->twoKinetic;  // what noseHooverFirstKernel reads
  }

  // The atoms where they stood at the last list build go through rebuild(): they are sorted by bin already (that
  // build sorted them) and the radix sort is stable, so the order stays the saved one, and the list is built from
  // the same positions as then (the same neighbours in the same order). Then the atoms move to where they are now,
  // with the saved forces and sums: no force evaluation, which could round differently from the saved one.
  void restoreState(const EngineState& st) override {
    setup(st.box, st.size(), st.mass);
    upload(a_.x, st.x0), upload(a_.y, st.y0), upload(a_.z, st.z0);
    upload(a_.vx, st.vx), upload(a_.vy, st.vy), upload(a_.vz, st.vz);
    HOPSIM_CUDA_CHECK(cudaMemcpy(a_.id, st.id.data(), n_ * sizeof(long long), cudaMemcpyHostToDevice));
    frameIdBase_ = denseIdBase(st.id).value_or(-1);
    rebuild();
    HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    upload(a_.x, st.x), upload(a_.y, st.y), upload(a_.z, st.z);
    upload(a_.fx, st.fx), upload(a_.fy, st.fy), upload(a_.fz, st.fz);
    positionsKernel<S, P><<<blocksFor(n_), kBlock, 0, stream_>>>(a_, box_, params_.continuousPairs);
    HOPSIM_CUDA_CHECK_LAUNCH("positionsKernel");
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(hostScalars_, ds_, sizeof(DeviceScalars), cudaMemcpyDeviceToHost, stream_));
    HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    hostScalars_->potential = st.potential;
    hostScalars_->virial = st.virial;
    hostScalars_->twoKinetic = st.twoKinetic;
    hostScalars_->nh.xi = st.nhXi;
    hostScalars_->bad = 0;
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(ds_, hostScalars_, sizeof(DeviceScalars), cudaMemcpyHostToDevice, stream_));
    HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  // Timed (timePhases): step by step from the host, which reads the rebuild flag after each first half and rebuilds
  // between the phases it times. Otherwise the steps are queued as CUDA graphs without waiting: each first half
  // ends in a conditional node that rebuilds the list on the GPU when the flag is set, so the host synchronises
  // once per advance; where such a build overflowed the list, the steps after it did nothing (DeviceScalars::halt),
  // and the host grows the list and queues the rest.
  void advance(long long steps, long long firstStep) override {
    if (steps <= 0) return;
    HOPSIM_CUDA_CHECK(cudaSetDevice(gpu_));
    hostScalars_->step = static_cast<unsigned long long>(firstStep + 1);
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(&ds_->step, &hostScalars_->step, sizeof(unsigned long long),
                                      cudaMemcpyHostToDevice, stream_));
    if (config_.timePhases) {
      firstHalf(true);
      for (long long k = 0; k < steps; ++k) {
        const bool last = k + 1 == steps;
        HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
        if (hostScalars_->rebuild) rebuild();
        secondHalf(last, true);
        if (!last) firstHalf(true);
      }
      HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
      return;
    }
    if (!graphsReady_) captureGraphs();
    HOPSIM_CUDA_CHECK(cudaGraphLaunch(firstHalfGraph_, stream_));
    long long queued = 0;  // steps whose graphs are queued from here on
    for (;;) {
      for (long long k = queued; k < steps; ++k)
        HOPSIM_CUDA_CHECK(cudaGraphLaunch(k + 1 == steps ? lastGraph_ : stepGraph_, stream_));
      // Returns when the last step has run: the run loop's "steps" phase is then the steps' time on the GPU, to the
      // end (as LBM's update phase, issue 22), and comparable with `hopsim bench`; the thermo sample and frame copy
      // queued after it (sampleThermo, startFrameCopy) do not wait.
      HOPSIM_CUDA_CHECK(cudaMemcpyAsync(hostScalars_, ds_, sizeof(DeviceScalars), cudaMemcpyDeviceToHost, stream_));
      HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
      graphBuilds_ = hostScalars_->builds;
      if (!hostScalars_->halt) return;
      // Halted in the first half of the step the device's counter names: its atoms are moved and sorted, its list
      // too short; the steps from its second half on run again.
      queued = static_cast<long long>(hostScalars_->step) - (firstStep + 1);
      growList();
    }
  }

  RawThermo thermo() override {
    HOPSIM_CUDA_CHECK(cudaSetDevice(gpu_));
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(hostScalars_, ds_, sizeof(DeviceScalars), cudaMemcpyDeviceToHost, stream_));
    HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return rawThermo(*hostScalars_);
  }

  // The sums of the last evaluation copied, in stream order, into the next slot of a device-side ring: no host
  // synchronisation per thermo sample. readThermo() copies the batch to pinned memory with one synchronisation;
  // each sample is read from the same doubles thermo() would have read then, so the rows are the same.
  void sampleThermo() override {
    if (ringCount_ >= kRing) throw std::logic_error("CudaMdEngine: thermo ring full (readThermo() not called)");
    HOPSIM_CUDA_CHECK(cudaSetDevice(gpu_));
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(ring_ + ringCount_, ds_, sizeof(DeviceScalars), cudaMemcpyDeviceToDevice,
                                      stream_));
    ++ringCount_;
  }
  std::vector<RawThermo> readThermo() override {
    std::vector<RawThermo> out;
    if (ringCount_ == 0) return out;
    HOPSIM_CUDA_CHECK(cudaSetDevice(gpu_));
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(hostRing_, ring_, ringCount_ * sizeof(DeviceScalars), cudaMemcpyDeviceToHost,
                                      stream_));
    HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    for (int k = 0; k < ringCount_; ++k) out.push_back(rawThermo(hostRing_[k]));
    ringCount_ = 0;
    return out;
  }
  int thermoRingCapacity() const override { return kRing; }

  // A frame without stopping the steps: the positions, velocities and ids are copied on the compute stream into a
  // device staging buffer (a device-to-device copy, ~40 us for a million atoms in double on an H200), and from there
  // to the slot's pinned host buffer on a copy stream, while the compute stream runs the next steps. The staging
  // buffer is taken again only once its previous copy to the host is done (an event the compute stream waits on;
  // frames tens of steps apart never wait). The host's slot is free when the caller calls this: its writer is done.
  void startFrameCopy(int slot) override {
    slot &= 1;
    HOPSIM_CUDA_CHECK(cudaSetDevice(gpu_));
    const std::size_t n = static_cast<std::size_t>(n_);
    if (frameAtoms_ != n) {
      if (copyStream_) HOPSIM_CUDA_CHECK(cudaStreamSynchronize(copyStream_));
      freeFrameBuffers();
      frameAtoms_ = n;
      deviceAlloc(stage_, frameBytes());
      for (auto*& h : hostFrame_) HOPSIM_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&h), frameBytes()));
      HOPSIM_CUDA_CHECK(cudaStreamCreateWithFlags(&copyStream_, cudaStreamNonBlocking));
      HOPSIM_CUDA_CHECK(cudaEventCreateWithFlags(&stagedEv_, cudaEventDisableTiming));
      // Blocking sync: the writer thread sleeps on them instead of spinning on a core the run needs.
      for (auto*& e : copiedEv_)
        HOPSIM_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming | cudaEventBlockingSync));
      copyPending_ = false;
    }
    if (copyPending_) HOPSIM_CUDA_CHECK(cudaStreamWaitEvent(stream_, copiedEv_[lastCopySlot_], 0));
    S* stage = reinterpret_cast<S*>(stage_);
    if (frameIdBase_ >= 0) {
      orderedFrameKernel<S, P><<<blocksFor(n_), kBlock, 0, stream_>>>(a_, frameIdBase_, stage);
      HOPSIM_CUDA_CHECK_LAUNCH("orderedFrameKernel");
    } else {
      const S* from[6] = {a_.x, a_.y, a_.z, a_.vx, a_.vy, a_.vz};
      for (int k = 0; k < 6; ++k)
        HOPSIM_CUDA_CHECK(cudaMemcpyAsync(stage + k * n, from[k], n * sizeof(S), cudaMemcpyDeviceToDevice, stream_));
      HOPSIM_CUDA_CHECK(cudaMemcpyAsync(stage + 6 * n, a_.id, n * sizeof(long long), cudaMemcpyDeviceToDevice,
                                        stream_));
    }
    HOPSIM_CUDA_CHECK(cudaEventRecord(stagedEv_, stream_));
    HOPSIM_CUDA_CHECK(cudaStreamWaitEvent(copyStream_, stagedEv_, 0));
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(hostFrame_[slot], stage_, frameBytes(), cudaMemcpyDeviceToHost, copyStream_));
    HOPSIM_CUDA_CHECK(cudaEventRecord(copiedEv_[slot], copyStream_));
    copyPending_ = true;
    lastCopySlot_ = slot;
  }

  HostFrame frameCopy(int slot) override {
    slot &= 1;
    HOPSIM_CUDA_CHECK(cudaSetDevice(gpu_));  // the writer thread's device
    HOPSIM_CUDA_CHECK(cudaEventSynchronize(copiedEv_[slot]));
    const std::size_t n = frameAtoms_;
    const S* h = reinterpret_cast<const S*>(hostFrame_[slot]);
    HostFrame f;
    f.n = n;
    f.valueBytes = sizeof(S);
    f.x = {h, h + n, h + 2 * n};
    f.v = {h + 3 * n, h + 4 * n, h + 5 * n};
    f.id = reinterpret_cast<const long long*>(h + 6 * n);
    f.box.length = {box_.L[0], box_.L[1], box_.L[2]};
    f.mass = mass_;
    return f;
  }

  void download(ParticleState& s) override {
    s.resize(static_cast<std::size_t>(n_));
    s.mass = mass_;
    for (int d = 0; d < 3; ++d) s.box.length[d] = box_.L[d];
    fetch(a_.x, s.x), fetch(a_.y, s.y), fetch(a_.z, s.z);
    fetch(a_.vx, s.vx), fetch(a_.vy, s.vy), fetch(a_.vz, s.vz);
    HOPSIM_CUDA_CHECK(cudaMemcpy(s.id.data(), a_.id, n_ * sizeof(long long), cudaMemcpyDeviceToHost));
  }

  void forces(std::vector<double>& fx, std::vector<double>& fy, std::vector<double>& fz) override {
    fetch(a_.fx, fx), fetch(a_.fy, fy), fetch(a_.fz, fz);
  }

  // Neighbour-build time is measured in every mode (CUDA events around each rebuild, which runs outside the graphs).
  // Force and integration run inside one CUDA Graph per step unless the engine was made with timePhases: then they
  // are not measured and reported as NaN (printed as "not measured"), never as zero.
  EngineStats stats() const override {
    EngineStats s = stats_;
    if (!config_.timePhases) {
      s.forceSeconds = s.integrateSeconds = s.otherSeconds = std::numeric_limits<double>::quiet_NaN();
    }
    // Builds inside the step graphs are counted on the GPU and not timed (the timed engine times every build).
    s.neighborBuilds += static_cast<long long>(graphBuilds_);
    if (graphBuilds_ > 0) s.neighborSeconds = std::numeric_limits<double>::quiet_NaN();
    if (cellPath_) {  // no list: its lengths are not a quantity of this path
      s.meanNeighbors = s.maxNeighbors = std::numeric_limits<double>::quiet_NaN();
      return s;
    }
    listCounts_.report(s, a_.ncount, n_, s.neighborBuilds, gpu_, stream_);  // counted again after a build
    return s;
  }

  // fmt is kept out of device compilation units: nvcc rejects its consteval format strings.
  std::string backendName() const override {
    return "cuda (" + deviceName_ + ", GPU " + std::to_string(gpu_) +
           (cellPath_ ? "; kernels hopper: forces from cells in thread block clusters, no neighbour list)" : ")");
  }

 private:
  // The arrays, bins and step parameters for n atoms in `box` (initialize() and restoreState()).
  void setup(const Box& box, std::size_t atoms, double mass) {
    HOPSIM_CUDA_CHECK(cudaSetDevice(gpu_));
    freeArrays();
    destroyGraphs();
    n_ = static_cast<int>(atoms);
    mass_ = mass;
    forceGroup_ = forceGroupFor(n_, smCount_, config_.forceThreadsPerAtom);
    stats_.forceThreadsPerAtom = forceGroup_;
    const double range = interactionRange(config_.lj, config_.skin);
    // Half-range bins: the 5^3 bins around an atom hold ~0.58 of the candidates of 3^3 full-range bins, so the
    // list build checks fewer pairs; used where every axis has room for 5 bins.
    box_.reach = 2;
    for (int d = 0; d < 3; ++d)
      if (std::floor(box.length[d] / (range / 2)) < 5) box_.reach = 1;
    for (int d = 0; d < 3; ++d) {
      box_.L[d] = box.length[d];
      box_.H[d] = 0.5 * box.length[d];
      box_.cells[d] = std::max(1, static_cast<int>(std::floor(box.length[d] * box_.reach / range)));
      box_.inverseCell[d] = box_.cells[d] / box.length[d];
    }
    ncell_ = box_.cells[0] * box_.cells[1] * box_.cells[2];
    // The row-wise build needs >= 5 bins per axis (then a search span never names a bin twice, BinStencil.h).
    fastList_ = box_.reach == 2;
    double longest = 0;
    for (int d = 0; d < 3; ++d) {
      grid_.axis[d].cells = box_.cells[d];
      grid_.axis[d].length = P(box_.L[d]);
      grid_.axis[d].width = P(box_.L[d] / box_.cells[d]);
      grid_.axis[d].inverse = P(box_.inverseCell[d]);
      longest = std::max(longest, box_.L[d]);
    }
    // Bins are chosen for a slightly larger sphere than the listed one, so that rounding positions to P (bins come
    // from S positions) never hides a bin that holds a pair within range.
    grid_.search = P(range * (1 + 1e-6) + 16 * std::numeric_limits<P>::epsilon() * longest);
    grid_.rangeSq = P(range * range);
    listCounts_.invalidate();
    a_.n = n_;
    a_.stride = config_.initialListStride > 0 ? config_.initialListStride : 96;
    cellPath_ = config_.kernels == KernelVariant::Hopper;
    if (cellPath_) setupCells(box, range * (1 + 1e-6) + 16 * std::numeric_limits<P>::epsilon() * longest);
    for (S** p : {&a_.x, &a_.y, &a_.z, &a_.vx, &a_.vy, &a_.vz, &a_.x0, &a_.y0, &a_.z0}) deviceAlloc(*p, n_);
    for (P** p : {&a_.fx, &a_.fy, &a_.fz}) deviceAlloc(*p, n_);
    deviceAlloc(a_.pos, n_);
    deviceAlloc(a_.id, n_);
    deviceAlloc(a_.ncount, n_);
    deviceAlloc(a_.nlist, cellPath_ ? 1 : static_cast<std::size_t>(a_.stride) * n_);
    deviceAlloc(keys_, n_), deviceAlloc(keysSorted_, n_), deviceAlloc(values_, n_), deviceAlloc(order_, n_);
    deviceAlloc(scratch_, static_cast<std::size_t>(n_) * sizeof(double));
    deviceAlloc(cellStart_, static_cast<std::size_t>(ncell_) + 1);
    sortBytes_ = 0;
    HOPSIM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sortBytes_, keys_, keysSorted_, values_, order_, n_, 0,
                                                      sortBits(), stream_));
    deviceAlloc(sortTemp_, sortBytes_);

    const auto& in = config_.integrator;
    params_.dt = in.dt;
    params_.dtf = 0.5 * in.dt / mass_;
    params_.trigger = rebuildDisplacementSq(config_.skin);
    params_.useLangevin = in.type == IntegratorType::Langevin;
    params_.useScale = in.type == IntegratorType::NoseHoover;
    params_.continuousPairs = cellPath_;
    if (params_.useLangevin) params_.langevin = langevinParams(in, mass_);
    DeviceScalars init{};
    init.builds = graphBuilds_;  // the engine's count goes on across setups
    init.nhScale1 = init.nhScale2 = 1.0;
    if (params_.useScale) init.nh = noseHooverStart(in, degreesOfFreedom(static_cast<std::size_t>(n_)));
    *hostScalars_ = init;
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(ds_, hostScalars_, sizeof(DeviceScalars), cudaMemcpyHostToDevice, stream_));
  }

  // The Hopper path's cells (at least `search` wide), sort keys and shared memory per brick; no list is built.
  void setupCells(const Box& box, double search) {
    const double length[3] = {box.length[0], box.length[1], box.length[2]};
    bricks_ = makeCellBricks(length, search);
    if (bricks_.cells[0] == 0)
      throw std::runtime_error("the hopper MD force path needs a box at least 3 x (cutoff + skin) = " +
                               std::to_string(3 * search) + " long along every axis");
    if (bricks_.keys() >= (1LL << 31)) throw std::runtime_error("the hopper MD force path: too many cells");
    ncell_ = static_cast<int>(bricks_.keys());
    a_.stride = 0;
    // Room for half as many atoms again as a brick holds on average, plus a margin: a liquid's bricks fit whole.
    const double cells = static_cast<double>(bricks_.cells[0]) * bricks_.cells[1] * bricks_.cells[2];
    const int mean = static_cast<int>(std::ceil(static_cast<double>(n_) * kBrickCells / cells));
    int capacity = config_.cellTileAtoms > 0 ? config_.cellTileAtoms : (3 * mean / 2 + 64 + 31) / 32 * 32;
    const int most = static_cast<int>((200 << 10) / cellTileBytes<P>(1));  // 200 KiB of the 227 a block may have
    cellCapacity_ = std::max(1, std::min(capacity, most));
    prepareCellForces<P, A>(cellCapacity_);
    stats_.forceThreadsPerAtom = 1;
  }

  static RawThermo rawThermo(const DeviceScalars& d) {
    RawThermo t;
    t.potential = d.potential;
    t.virial = d.virial;
    t.twoKinetic = d.twoKinetic;
    t.finite = d.bad == 0 && std::isfinite(t.potential) && std::isfinite(t.virial) && std::isfinite(t.twoKinetic);
    return t;
  }

  // Six arrays of S (positions, velocities) then the ids, for frameAtoms_ atoms.
  std::size_t frameBytes() const { return frameAtoms_ * (6 * sizeof(S) + sizeof(long long)); }

  void freeFrameBuffers() {
    deviceFree(stage_);
    for (auto*& h : hostFrame_) {
      if (h) cudaFreeHost(h);
      h = nullptr;
    }
    for (auto*& e : copiedEv_) {
      if (e) cudaEventDestroy(e);
      e = nullptr;
    }
    if (stagedEv_) cudaEventDestroy(stagedEv_);
    stagedEv_ = nullptr;
    if (copyStream_) cudaStreamDestroy(copyStream_);
    copyStream_ = nullptr;
    frameAtoms_ = 0;
    copyPending_ = false;
  }

  int sortBits() const {
    int bits = 1;
    while ((1LL << bits) < ncell_) ++bits;
    return bits;
  }

  template <class T>
  void upload(T* dst, const std::vector<double>& src) {
    std::vector<T> tmp(src.begin(), src.end());
    HOPSIM_CUDA_CHECK(cudaMemcpy(dst, tmp.data(), tmp.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  template <class T>
  void fetch(const T* src, std::vector<double>& dst) {
    HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    std::vector<T> tmp(static_cast<std::size_t>(n_));
    HOPSIM_CUDA_CHECK(cudaMemcpy(tmp.data(), src, tmp.size() * sizeof(T), cudaMemcpyDeviceToHost));
    dst.assign(tmp.begin(), tmp.end());
  }

  template <class T>
  void permute(T* array, cudaStream_t stream) {
    auto* tmp = reinterpret_cast<T*>(scratch_);
    gatherKernel<T><<<blocksFor(n_), kBlock, 0, stream>>>(array, tmp, order_, n_);
    HOPSIM_CUDA_CHECK_LAUNCH("gatherKernel");
    // Copied back rather than swapped: the captured graphs hold these addresses.
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(array, tmp, n_ * sizeof(T), cudaMemcpyDeviceToDevice, stream));
  }

  // Bin, sort by cell, reorder, find cell ranges, build the list (growing it when an atom has more neighbours).
  // The sequence runs as one CUDA graph (captured at the first rebuild and again after the list grows): launched
  // one by one, its ~30 kernels, copies and the sort's passes cost more host launch time than GPU time on small
  // systems (32,000 atoms: ~240 us per rebuild, docs/performance.md).
  void rebuild() {
    HOPSIM_CUDA_CHECK(cudaEventRecord(nbEv_[0], stream_));
    if (!rebuildGraph_) {
      cudaGraph_t graph = nullptr;
      HOPSIM_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
      enqueueRebuild(stream_);
      HOPSIM_CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
      HOPSIM_CUDA_CHECK(cudaGraphInstantiate(&rebuildGraph_, graph, 0));
      HOPSIM_CUDA_CHECK(cudaGraphDestroy(graph));
    }
    HOPSIM_CUDA_CHECK(cudaGraphLaunch(rebuildGraph_, stream_));
    HOPSIM_CUDA_CHECK(cudaEventRecord(nbEv_[1], stream_));
    // Here (initialize, restoreState, the timed steps) one host synchronisation per build, for the overflow check: a
    // list that overflowed must be rebuilt before the force kernel reads it. The list grown, only the list is built
    // again (the atoms are sorted already).
    while (!listFits(a_, n_, ds_, hostScalars_, stream_)) {
      destroyGraphs();  // the list moved
      enqueueListBuild(stream_);
      HOPSIM_CUDA_CHECK(cudaEventRecord(nbEv_[1], stream_));
    }
    float ms = 0;
    HOPSIM_CUDA_CHECK(cudaEventElapsedTime(&ms, nbEv_[0], nbEv_[1]));
    stats_.neighborSeconds += 1e-3 * ms;
    HOPSIM_CUDA_CHECK(cudaMemsetAsync(&ds_->rebuild, 0, sizeof(int), stream_));
    hostScalars_->rebuild = 0;
    ++stats_.neighborBuilds;
  }

  void enqueueRebuild(cudaStream_t stream) {
    const int blocks = blocksFor(n_);
    if (cellPath_) {
      binBricksKernel<S, P><<<blocks, kBlock, 0, stream>>>(a_, bricks_, keys_, values_);
      HOPSIM_CUDA_CHECK_LAUNCH("binBricksKernel");
    } else {
      binKernel<S, P, true><<<blocks, kBlock, 0, stream>>>(a_, box_, keys_, values_);
      HOPSIM_CUDA_CHECK_LAUNCH("binKernel");
    }
    HOPSIM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(sortTemp_, sortBytes_, keys_, keysSorted_, values_, order_, n_, 0,
                                                      sortBits(), stream));
    permute(a_.x, stream), permute(a_.y, stream), permute(a_.z, stream);
    permute(a_.vx, stream), permute(a_.vy, stream), permute(a_.vz, stream), permute(a_.id, stream);
    cellStartKernel<<<blocksFor(n_ + 1), kBlock, 0, stream>>>(keysSorted_, n_, ncell_, cellStart_);
    HOPSIM_CUDA_CHECK_LAUNCH("cellStartKernel");
    refreshKernel<S, P><<<blocks, kBlock, 0, stream>>>(a_);
    HOPSIM_CUDA_CHECK_LAUNCH("refreshKernel");
    enqueueListBuild(stream);
  }

  void enqueueListBuild(cudaStream_t stream) {
    HOPSIM_CUDA_CHECK(cudaMemsetAsync(&ds_->overflow, 0, sizeof(int), stream));
    if (cellPath_) return;  // no list: the force kernel reads the sorted cells
    if (fastList_) {
      buildListKernel<S, P><<<(n_ + kListWarps * 32 - 1) / (kListWarps * 32), kListWarps * 32, 0, stream>>>(
          a_, grid_, cellStart_, ds_);
      HOPSIM_CUDA_CHECK_LAUNCH("buildListKernel");
    } else {
      const double range = interactionRange(config_.lj, config_.skin);
      buildListBinsKernel<S, P><<<blocksFor(n_), kBlock, 0, stream>>>(a_, box_, cellStart_, P(range * range), ds_);
      HOPSIM_CUDA_CHECK_LAUNCH("buildListBinsKernel");
    }
  }

  // While a step graph is captured on stream_: a conditional node whose body (captured from bodyStream_) rebuilds
  // the list when the first half has set the rebuild flag (rebuildConditionKernel, afterBuildKernel).
  void enqueueConditionalRebuild() {
    cudaStreamCaptureStatus status{};
    cudaGraph_t graph = nullptr;
    const cudaGraphNode_t* deps = nullptr;
    std::size_t count = 0;
    HOPSIM_CUDA_CHECK(cudaStreamGetCaptureInfo(stream_, &status, nullptr, &graph, nullptr, nullptr, nullptr));
    cudaGraphConditionalHandle handle{};
    HOPSIM_CUDA_CHECK(cudaGraphConditionalHandleCreate(&handle, graph, 0, 0));
    rebuildConditionKernel<<<1, 1, 0, stream_>>>(handle, ds_);
    HOPSIM_CUDA_CHECK_LAUNCH("rebuildConditionKernel");
    HOPSIM_CUDA_CHECK(cudaStreamGetCaptureInfo(stream_, &status, nullptr, &graph, &deps, nullptr, &count));
    cudaGraphNodeParams params{};
    params.type = cudaGraphNodeTypeConditional;
    params.conditional.handle = handle;
    params.conditional.type = cudaGraphCondTypeIf;
    params.conditional.size = 1;
    cudaGraphNode_t node = nullptr;
    HOPSIM_CUDA_CHECK(cudaGraphAddNode(&node, graph, deps, nullptr, count, &params));
    HOPSIM_CUDA_CHECK(cudaStreamUpdateCaptureDependencies(stream_, &node, nullptr, 1, cudaStreamSetCaptureDependencies));
    cudaGraph_t body = params.conditional.phGraph_out[0];
    HOPSIM_CUDA_CHECK(
        cudaStreamBeginCaptureToGraph(bodyStream_, body, nullptr, nullptr, 0, cudaStreamCaptureModeThreadLocal));
    enqueueRebuild(bodyStream_);
    afterBuildKernel<<<1, 1, 0, bodyStream_>>>(ds_);
    HOPSIM_CUDA_CHECK_LAUNCH("afterBuildKernel");
    HOPSIM_CUDA_CHECK(cudaStreamEndCapture(bodyStream_, &body));
  }

  // The steps halted at a list build that overflowed: the list grown and built again from the sorted atoms (timed as
  // a build), the halt lifted, the graphs captured again for the new list.
  void growList() {
    HOPSIM_CUDA_CHECK(cudaEventRecord(nbEv_[0], stream_));
    // Grows the list to the overflowing build's longest (+25%), which the next build may still exceed.
    if (listFits(a_, n_, ds_, hostScalars_, stream_)) throw std::logic_error("steps halted without a list overflow");
    do {
      enqueueListBuild(stream_);
      HOPSIM_CUDA_CHECK(cudaEventRecord(nbEv_[1], stream_));
    } while (!listFits(a_, n_, ds_, hostScalars_, stream_));
    float ms = 0;
    HOPSIM_CUDA_CHECK(cudaEventElapsedTime(&ms, nbEv_[0], nbEv_[1]));
    stats_.neighborSeconds += 1e-3 * ms;
    ++stats_.neighborBuilds;
    HOPSIM_CUDA_CHECK(cudaMemsetAsync(&ds_->halt, 0, sizeof(int), stream_));
    destroyGraphs();
    captureGraphs();
  }

  void resetAccumulators(bool energy) {
    if (energy) {
      HOPSIM_CUDA_CHECK(cudaMemsetAsync(&ds_->potential, 0, 2 * sizeof(double), stream_));  // potential, virial
    }
    HOPSIM_CUDA_CHECK(cudaMemsetAsync(&ds_->twoKinetic, 0, sizeof(double), stream_));
  }

  void launchForce(bool energy) {
    if (!cellPath_) {
      launchForceKernel<S, P, A, true>(a_, box_, coeff_, ds_, forceGroup_, energy, stream_);
      return;
    }
    CellForceTarget<P> t;
    t.pos = a_.pos;
    t.fx = a_.fx, t.fy = a_.fy, t.fz = a_.fz;
    t.cellStart = cellStart_;
    t.keys = keysSorted_;
    t.potential = &ds_->potential, t.virial = &ds_->virial, t.bad = &ds_->bad;
    launchCellForces<P, A>(t, bricks_, coeff_, cellCapacity_, energy, stream_);
  }

  // Nose-Hoover half-step, kick-drift, then the rebuild flag: copied to pinned host memory (timed), or read by the
  // conditional rebuild that ends the captured first half.
  void firstHalf(bool timed) {
    if (timed) HOPSIM_CUDA_CHECK(cudaEventRecord(ev_[0], stream_));
    HOPSIM_CUDA_CHECK(cudaMemsetAsync(&ds_->rebuild, 0, sizeof(int), stream_));
    if (params_.useScale) {
      noseHooverFirstKernel<<<1, 1, 0, stream_>>>(ds_, params_.dt);
      HOPSIM_CUDA_CHECK_LAUNCH("noseHooverFirstKernel");
    }
    integrateFirstKernel<S, P, true><<<blocksFor(n_), kBlock, 0, stream_>>>(a_, box_, params_, ds_);
    HOPSIM_CUDA_CHECK_LAUNCH("integrateFirstKernel");
    if (!timed) {
      enqueueConditionalRebuild();
      return;
    }
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(&hostScalars_->rebuild, &ds_->rebuild, sizeof(int), cudaMemcpyDeviceToHost, stream_));
    HOPSIM_CUDA_CHECK(cudaEventRecord(ev_[1], stream_));
    HOPSIM_CUDA_CHECK(cudaEventSynchronize(ev_[1]));
    float ms = 0;
    HOPSIM_CUDA_CHECK(cudaEventElapsedTime(&ms, ev_[0], ev_[1]));
    stats_.integrateSeconds += ms * 1e-3;
  }

  // Forces (energies on the last step of a chunk), second kick, Nose-Hoover half-step, step counter.
  void secondHalf(bool energy, bool timed) {
    if (timed) HOPSIM_CUDA_CHECK(cudaEventRecord(ev_[0], stream_));
    resetAccumulators(energy);
    launchForce(energy);
    if (timed) HOPSIM_CUDA_CHECK(cudaEventRecord(ev_[1], stream_));
    integrateSecondKernel<S, P><<<blocksFor(n_), kBlock, 0, stream_>>>(a_, params_, ds_);
    HOPSIM_CUDA_CHECK_LAUNCH("integrateSecondKernel");
    kineticKernelScale<<<1, 1, 0, stream_>>>(ds_, mass_);
    HOPSIM_CUDA_CHECK_LAUNCH("kineticKernelScale");
    if (params_.useScale) {
      noseHooverSecondKernel<<<1, 1, 0, stream_>>>(ds_, params_.dt);
      HOPSIM_CUDA_CHECK_LAUNCH("noseHooverSecondKernel");
      scaleVelocitiesKernel<S, P><<<blocksFor(n_), kBlock, 0, stream_>>>(a_, ds_);
      HOPSIM_CUDA_CHECK_LAUNCH("scaleVelocitiesKernel");
    }
    nextStepKernel<<<1, 1, 0, stream_>>>(ds_);
    HOPSIM_CUDA_CHECK_LAUNCH("nextStepKernel");
    if (timed) {
      HOPSIM_CUDA_CHECK(cudaEventRecord(ev_[2], stream_));
      HOPSIM_CUDA_CHECK(cudaEventSynchronize(ev_[2]));
      float force = 0, integ = 0;
      HOPSIM_CUDA_CHECK(cudaEventElapsedTime(&force, ev_[0], ev_[1]));
      HOPSIM_CUDA_CHECK(cudaEventElapsedTime(&integ, ev_[1], ev_[2]));
      stats_.forceSeconds += force * 1e-3;
      stats_.integrateSeconds += integ * 1e-3;
    }
  }

  cudaGraphExec_t capture(bool energy, bool withSecond, bool withFirst) {
    cudaGraph_t graph = nullptr;
    HOPSIM_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    if (withSecond) secondHalf(energy, false);
    if (withFirst) firstHalf(false);
    HOPSIM_CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
    cudaGraphExec_t exec = nullptr;
    HOPSIM_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    HOPSIM_CUDA_CHECK(cudaGraphDestroy(graph));
    return exec;
  }

  void captureGraphs() {
    destroyStepGraphs();
    firstHalfGraph_ = capture(false, false, true);
    stepGraph_ = capture(false, true, true);
    lastGraph_ = capture(true, true, false);
    graphsReady_ = true;
  }

  // Every graph (the arrays or the list moved); the step graphs alone before they are captured again.
  void destroyGraphs() {
    destroyStepGraphs();
    if (rebuildGraph_) cudaGraphExecDestroy(rebuildGraph_);
    rebuildGraph_ = nullptr;
  }

  void destroyStepGraphs() {
    for (auto* g : {&firstHalfGraph_, &stepGraph_, &lastGraph_}) {
      if (*g) cudaGraphExecDestroy(*g);
      *g = nullptr;
    }
    graphsReady_ = false;
  }

  void freeArrays() {
    for (S** p : {&a_.x, &a_.y, &a_.z, &a_.vx, &a_.vy, &a_.vz, &a_.x0, &a_.y0, &a_.z0}) deviceFree(*p);
    for (P** p : {&a_.fx, &a_.fy, &a_.fz}) deviceFree(*p);
    deviceFree(a_.pos), deviceFree(a_.id), deviceFree(a_.ncount), deviceFree(a_.nlist);
    deviceFree(keys_), deviceFree(keysSorted_), deviceFree(values_), deviceFree(order_);
    deviceFree(scratch_), deviceFree(cellStart_), deviceFree(sortTemp_);
  }

  EngineConfig config_;
  int gpu_ = 0;
  std::string deviceName_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t ev_[3] = {nullptr, nullptr, nullptr};
  cudaEvent_t nbEv_[2] = {nullptr, nullptr};  // around each rebuild, timed in every mode
  DeviceScalars* ds_ = nullptr;
  DeviceScalars* hostScalars_ = nullptr;
  LjCoefficients<P> coeff_;
  StepParams params_{};
  BoxParams box_{};
  Arrays<S, P> a_{};
  int n_ = 0, ncell_ = 0;
  int smCount_ = 1;
  int forceGroup_ = 1;  // threads per atom in the force kernel (forceGroupFor)
  double mass_ = 1;
  unsigned *keys_ = nullptr, *keysSorted_ = nullptr;
  int *values_ = nullptr, *order_ = nullptr, *cellStart_ = nullptr;
  ListGrid<P> grid_{};
  bool fastList_ = true;
  bool cellPath_ = false;   // EngineConfig::kernels == Hopper: forces from cells (CellForces.h), no list
  CellBricks bricks_{};     // its cells, bricks and clusters
  int cellCapacity_ = 0;    // atoms per brick in shared memory
  mutable ListCountCache listCounts_;
  unsigned char* scratch_ = nullptr;
  unsigned char* sortTemp_ = nullptr;
  std::size_t sortBytes_ = 0;
  cudaGraphExec_t firstHalfGraph_ = nullptr, stepGraph_ = nullptr, lastGraph_ = nullptr;
  cudaGraphExec_t rebuildGraph_ = nullptr;  // rebuild(): bin, sort, reorder, list; captured again when the list moves
  cudaStream_t bodyStream_ = nullptr;        // captures the conditional rebuild's body
  unsigned long long graphBuilds_ = 0;       // builds inside the step graphs (DeviceScalars::builds at the last wait)
  bool graphsReady_ = false;
  EngineStats stats_;
  // The thermo ring (sampleThermo / readThermo).
  static constexpr int kRing = 64;
  DeviceScalars* ring_ = nullptr;
  DeviceScalars* hostRing_ = nullptr;  // pinned
  int ringCount_ = 0;
  // Frame copies (startFrameCopy / frameCopy): a device staging buffer, two pinned host slots, a copy stream.
  std::size_t frameAtoms_ = 0;
  unsigned char* stage_ = nullptr;
  unsigned char* hostFrame_[2] = {nullptr, nullptr};
  cudaStream_t copyStream_ = nullptr;
  cudaEvent_t stagedEv_ = nullptr, copiedEv_[2] = {nullptr, nullptr};
  bool copyPending_ = false;
  int lastCopySlot_ = 0;
  long long frameIdBase_ = -1;  // frames staged in id order from this id (denseIdBase), or -1: in engine order
};

}  // namespace

std::unique_ptr<MdEngine> makeCudaEngine(const EngineConfig& config, int gpu) {
  switch (config.precision) {
    case Precision::Single: return std::make_unique<CudaMdEngine<float, float, float>>(config, gpu);
    case Precision::Mixed: return std::make_unique<CudaMdEngine<double, float, float>>(config, gpu);
    case Precision::Double: return std::make_unique<CudaMdEngine<double, double, double>>(config, gpu);
  }
  throw std::logic_error("unknown precision");
}

}  // namespace hopsim::md
