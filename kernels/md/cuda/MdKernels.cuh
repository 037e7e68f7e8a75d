// Device kernels and helpers shared by the MD engines on the GPU: the single-rank periodic engine (CudaMdEngine.cu)
// and one rank of a decomposed run (CudaDomainMdDevice.cu). `Periodic` picks between a periodic box (minimum image,
// positions wrapped every drift) and a rank's bounded region whose ghosts already sit at their periodic images (no
// minimum image, no wrapping between rebuilds); everything else is the same code.
#pragma once

#include <cub/block/block_reduce.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "kernels/common/CudaCheck.h"
#include "kernels/md/Integrate.h"
#include "kernels/md/LjForce.h"
#include "kernels/md/MdEngine.h"
#include "kernels/md/PeriodicBox.h"
#include "kernels/md/cuda/PairVec.cuh"

namespace hopsim::md {

// Each including file gets its own copy of the kernels (no relocatable device code, no cross-file symbols).
namespace {

constexpr int kBlock = 256;

// Device-side scalars shared by the kernels of a step (one allocation, so graph nodes see fixed addresses).
struct DeviceScalars {
  double potential, virial, twoKinetic;
  double nhScale1, nhScale2;
  NoseHooverState nh;
  unsigned long long step;
  unsigned long long builds;  // list builds made inside the step graphs (CudaMdEngine; the host counts its own)
  // rebuild: an atom moved more than skin/2; overflow: the longest list of a build that did not fit; halt: a build
  // inside a step graph overflowed, so every kernel of the steps after it returns at once until the host has grown
  // the list (CudaMdEngine::advance). The decomposed engine never halts.
  int rebuild, overflow, bad, halt;
};

// Neighbour counts of the current list, reduced on demand for stats() (ListCountCache).
struct ListCounts {
  unsigned long long sum;
  int max;
};

template <class S, class P>
struct Arrays {
  S *x, *y, *z, *vx, *vy, *vz, *x0, *y0, *z0;
  P *fx, *fy, *fz;
  typename Vec4<P>::type* pos;
  long long* id;
  int* nlist;
  int* ncount;
  int stride;
  int n;  // atoms integrated and listed (a decomposed run's owned atoms; its ghosts follow them in x, y, z and pos)
};

struct BoxParams {
  double lo[3];  // where bin 0 starts in a rank's region (its lower corner); a periodic box starts at 0
  double L[3], H[3];
  int cells[3];
  double inverseCell[3];
  int reach;  // bins are at least range / reach wide; the list search spans reach bins each way
};

// Bin along one axis, clamped to the grid (a rounding error outside it, or a NaN, lands in an edge bin). A periodic
// box starts at 0: no origin to subtract.
template <bool Periodic, class T>
__device__ int axisBin(T x, int d, const BoxParams& b) {
  if constexpr (Periodic) return min(b.cells[d] - 1, max(0, static_cast<int>(x * b.inverseCell[d])));
  else return min(b.cells[d] - 1, max(0, static_cast<int>((x - b.lo[d]) * b.inverseCell[d])));
}

template <bool Periodic, class T>
__device__ int cellIndexOf(T x, T y, T z, const BoxParams& b) {
  const int cx = axisBin<Periodic>(x, 0, b), cy = axisBin<Periodic>(y, 1, b), cz = axisBin<Periodic>(z, 2, b);
  return cx + b.cells[0] * (cy + b.cells[1] * cz);
}

template <class S, class P, bool Periodic>
__global__ void binKernel(Arrays<S, P> a, BoxParams b, unsigned* keys, int* values) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  keys[i] = static_cast<unsigned>(cellIndexOf<Periodic>(a.x[i], a.y[i], a.z[i], b));
  values[i] = i;
}

template <class T>
__global__ void gatherKernel(const T* __restrict__ in, T* __restrict__ out, const int* __restrict__ order, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[order[i]];
}

// cellStart[c] = first sorted atom of bin c, cellStart[ncell] = n (bin c holds cellStart[c] .. cellStart[c + 1] - 1).
// Thread i (0..n) fills the bins after the previous atom's bin up to its own: empty bins included, no memset.
__global__ void cellStartKernel(const unsigned* sortedKeys, int n, int ncell, int* cellStart) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > n) return;
  const int previous = i == 0 ? -1 : static_cast<int>(sortedKeys[i - 1]);
  const int current = i == n ? ncell : static_cast<int>(sortedKeys[i]);
  for (int c = previous + 1; c <= current; ++c) cellStart[c] = i;
}

// Positions for the pair loop, in pair precision, and the reference positions of this build.
template <class S, class P>
__global__ void refreshKernel(Arrays<S, P> a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  a.pos[i] = {P(a.x[i]), P(a.y[i]), P(a.z[i]), P(0)};
  a.x0[i] = a.x[i], a.y0[i] = a.y[i], a.z0[i] = a.z[i];
}

template <class T>
__device__ __forceinline__ T loadVec(const T* p) {
  return *p;
}
template <>
__device__ __forceinline__ float4 loadVec(const float4* p) {
  return __ldg(p);
}

struct MaxOp {  // cub::Max is gone from CUDA 13's CUB
  __device__ int operator()(int x, int y) const { return x > y ? x : y; }
};

// Sum and maximum of the per-atom neighbour counts (for stats(); not part of a step).
__global__ void __launch_bounds__(kBlock) listCountKernel(const int* count, int n, ListCounts* out) {
  unsigned long long sum = 0;
  int mx = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    sum += static_cast<unsigned long long>(count[i]);
    mx = max(mx, count[i]);
  }
  using SumReduce = cub::BlockReduce<unsigned long long, kBlock>;
  using MaxReduce = cub::BlockReduce<int, kBlock>;
  __shared__ typename SumReduce::TempStorage sumTmp;
  __shared__ typename MaxReduce::TempStorage maxTmp;
  const unsigned long long blockSum = SumReduce(sumTmp).Sum(sum);
  const int blockMax = MaxReduce(maxTmp).Reduce(mx, MaxOp{});
  if (threadIdx.x == 0) {
    atomicAdd(&out->sum, blockSum);
    atomicMax(&out->max, blockMax);
  }
}

// Threads that share one atom's list in the force kernel: a power of two up to a warp. One thread per atom leaves a
// small system's GPU mostly idle (32,000 atoms are 125 blocks of 256 threads on 132 SMs, one block per SM, each warp
// waiting on its loads); a group of g threads per atom gives g times the warps in flight for the same pairs, at the
// cost of a shuffle fold per atom. Chosen as the largest group whose threads fit on the GPU at once (smCount x 2048
// resident threads), so a large system keeps one thread per atom; `asked` (1-32, HOPSIM_MD_THREADS_PER_ATOM) wins.
inline int forceGroupFor(long long atoms, int smCount, int asked) {
  if (asked > 0) return asked;
  const long long resident = 2048LL * std::max(1, smCount);
  int g = 1;
  while (g < 32 && atoms * 2 * g <= resident) g *= 2;  // the doubled group still fits
  return g;
}

// The force kernel's pair arithmetic without a branch, so that the compiler can issue the index and position loads
// of several list entries before the first entry's arithmetic: a branch per pair (the division's range test, the
// minimum image's two tests per axis, the cutoff test around the force) kept each entry's two dependent loads in an
// iteration of their own and doubled the instructions per entry (docs/performance.md, "The MD force kernel without
// branches"). The results are those of addPair, bit for bit, as the comments below say why.
//
// 1 / r2 for a squared distance, a normal number: a reciprocal estimate and one Newton step, which is what IEEE
// division computes on its fast path (the path the compiler's range test takes for every exponent but zero and the
// three largest: zero, denormal, above 2^126, infinite and NaN operands go to a slow path, a squared distance in a
// list never). A zero r2 (atoms on top of each other) gives NaN where the division gives infinity: non-finite either
// way.
__device__ __forceinline__ float pairReciprocal(float r2) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(r2));
  return __fmaf_rn(r, __fmaf_rn(-r2, r, 1.0f), r);
}
__device__ __forceinline__ double pairReciprocal(double r2) { return 1.0 / r2; }

// d less the nearest multiple of the box length, `inverse` = 1 / length: minimumImage for |d| < length, where the
// nearest integer to d / length comes from adding and taking away 1.5 x 2^23 (2^52 in double), exact while
// |d / length| < 2^22. d - length is then one rounding of the same difference; the two forms can differ only for
// |d| within a rounding of half the box, farther apart than any cutoff the engines accept.
__device__ __forceinline__ float nearestImage(float d, float length, float inverse) {
  const float n = __fadd_rn(__fmaf_rn(d, inverse, 12582912.0f), -12582912.0f);
  return __fmaf_rn(-n, length, d);
}
__device__ __forceinline__ double nearestImage(double d, double length, double inverse) {
  const double n = __dadd_rn(__fma_rn(d, inverse, 6755399441055744.0), -6755399441055744.0);
  return __fma_rn(-n, length, d);
}

// addPair with the cutoff applied by selection: the force and energy are computed for every entry and a pair
// beyond the cutoff adds zeros (a list holds the skin's pairs too; a warp has some pair inside on nearly every
// entry, so the branch saved no work).
template <bool Energy, class P, class A>
__device__ __forceinline__ void addPairSelected(P dx, P dy, P dz, const LjCoefficients<P>& c, PairSums<P, A>& s) {
  const P r2 = dx * dx + dy * dy + dz * dz;
  const bool inside = r2 < c.cutoffSq;
  const P ir2 = pairReciprocal(r2);
  const P f = inside ? ljForceOverRFromIr2(ir2, c) : P(0);
  s.fx += dx * f, s.fy += dy * f, s.fz += dz * f;
  if constexpr (Energy) {
    s.energy += inside ? A(ljEnergyFromIr2(ir2, c)) : A(0);
    s.virial += A(r2) * A(f);
  }
}

// Forces on atoms [0, a.n) from their lists, `group` threads per atom (forceGroupFor): thread `part` of an atom's
// group sums its entries part, part + group, ..., and the group folds its partial sums by shuffles (xor steps, so
// every lane holds the same bits; lane 0 stores). One thread per atom sums the list in order, as before groups.
// Periodic: minimum image per pair; not periodic: ghosts carry their image already.
// Float pairs at eight blocks per SM (32 registers, 16-40 bytes spilled): left to itself ptxas gave the batched loop
// 40-42 registers, six or five blocks, 1-3% slower than eight (H100, docs/performance.md, "The MD force kernel
// without branches"; batches of two at eight blocks, no spill, 9% slower than batches of four). Double pairs keep
// ptxas's choice (0: no minimum; held to 32 registers they spill 128-168 bytes).
template <class P>
constexpr int kForceMinBlocks = sizeof(P) == 4 ? 8 : 0;
template <class S, class P, class A, bool Energy, bool Periodic>
__global__ void __launch_bounds__(kBlock, kForceMinBlocks<P>)
    forceKernel(Arrays<S, P> a, BoxParams b, LjCoefficients<P> c, DeviceScalars* ds, int group) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = t / group, part = t & (group - 1);
  PairSums<P, A> sum;
  if (i < a.n) {
    const auto* __restrict__ pos = a.pos;
    const int* __restrict__ entry = a.nlist + i;
    const std::size_t n = static_cast<std::size_t>(a.n);
    const auto pi = loadVec(pos + i);
    const P L[3] = {P(b.L[0]), P(b.L[1]), P(b.L[2])};
    const P inverseL[3] = {P(1 / b.L[0]), P(1 / b.L[1]), P(1 / b.L[2])};
    // At most the stored entries: after a build that overflowed (the count goes on past the stride), the steps are
    // halted and this evaluation is thrown away (CudaMdEngine::advance evaluates it again on the grown list).
    const int m = min(__ldg(a.ncount + i), a.stride);
    const auto add = [&](const auto& pj) {
      P dx = P(pi.x - pj.x), dy = P(pi.y - pj.y), dz = P(pi.z - pj.z);
      if constexpr (Periodic) {
        dx = nearestImage(dx, L[0], inverseL[0]);
        dy = nearestImage(dy, L[1], inverseL[1]);
        dz = nearestImage(dz, L[2], inverseL[2]);
      }
      addPairSelected<Energy>(dx, dy, dz, c, sum);
    };
    // Entries in batches of kBatch, every load of a batch issued before its first pair's arithmetic (the index loads,
    // then the position loads they name), then the rest one by one; the pairs are added in list order either way.
    constexpr int kBatch = 4;
    int k = part;
    for (; k + (kBatch - 1) * group < m; k += kBatch * group) {
      int j[kBatch];
#pragma unroll
      for (int u = 0; u < kBatch; ++u) j[u] = __ldg(entry + static_cast<std::size_t>(k + u * group) * n);
      typename Vec4<P>::type pj[kBatch];
#pragma unroll
      for (int u = 0; u < kBatch; ++u) pj[u] = loadVec(pos + j[u]);
#pragma unroll
      for (int u = 0; u < kBatch; ++u) add(pj[u]);
    }
    for (; k < m; k += group) add(loadVec(pos + __ldg(entry + static_cast<std::size_t>(k) * n)));
  }
  // Every thread of the block gets here (no early return), as the full-warp shuffles need; a group never straddles
  // a warp (group divides 32, blocks are whole warps).
  for (int lane = group / 2; lane > 0; lane /= 2) {
    sum.fx += __shfl_xor_sync(0xffffffffu, sum.fx, lane);
    sum.fy += __shfl_xor_sync(0xffffffffu, sum.fy, lane);
    sum.fz += __shfl_xor_sync(0xffffffffu, sum.fz, lane);
  }
  if (i < a.n && part == 0) {
    a.fx[i] = sum.fx, a.fy[i] = sum.fy, a.fz[i] = sum.fz;
    if (!isfinite(sum.fx) || !isfinite(sum.fy) || !isfinite(sum.fz)) ds->bad = 1;
  }
  if (Energy) {  // each thread's share of its atom's energy and virial; the block sums them all
    using Reduce = cub::BlockReduce<double, kBlock>;
    __shared__ typename Reduce::TempStorage tmp;
    const double be = Reduce(tmp).Sum(0.5 * double(sum.energy));
    __syncthreads();
    const double bw = Reduce(tmp).Sum(0.5 * double(sum.virial));
    if (threadIdx.x == 0) {
      atomicAdd(&ds->potential, be);
      atomicAdd(&ds->virial, bw);
    }
  }
}

struct StepParams {
  double dt, dtf, trigger;  // trigger: (skin/2)^2
  LangevinParams langevin;
  bool useLangevin, useScale;
  // Periodic box: the pair positions continue from the last build's (x0 + the minimum image of x - x0) instead of
  // the wrapped ones, so that each stays next to the cell it was sorted into (the Hopper cell path, which takes the
  // periodic image per cell, not per pair).
  bool continuousPairs;
};

// First half of velocity Verlet: kick with the old forces (after the Nose-Hoover scaling), drift, and flag a rebuild
// when a particle has moved more than skin/2 since the last build. Periodic: wrapped into the box, displacement by
// minimum image. Not periodic: a rank's owned atoms stay unwrapped until the rebuild migrates them (they must stay
// next to the ghosts their neighbours were sent), and a NaN displacement counts as moved, as in DomainMdEngine.
template <class S, class P, bool Periodic>
__global__ void integrateFirstKernel(Arrays<S, P> a, BoxParams b, StepParams p, DeviceScalars* ds) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n || ds->halt) return;
  const S scale = p.useScale ? S(ds->nhScale1) : S(1);
  const S dt = S(p.dt), dtf = S(p.dtf);
  const S L[3] = {S(b.L[0]), S(b.L[1]), S(b.L[2])}, H[3] = {S(b.H[0]), S(b.H[1]), S(b.H[2])};
  const S vx = a.vx[i] * scale + dtf * S(a.fx[i]);
  const S vy = a.vy[i] * scale + dtf * S(a.fy[i]);
  const S vz = a.vz[i] * scale + dtf * S(a.fz[i]);
  S x = S(a.x[i] + dt * vx), y = S(a.y[i] + dt * vy), z = S(a.z[i] + dt * vz);
  if constexpr (Periodic) x = wrapOnce(x, L[0]), y = wrapOnce(y, L[1]), z = wrapOnce(z, L[2]);
  a.vx[i] = vx, a.vy[i] = vy, a.vz[i] = vz;
  a.x[i] = x, a.y[i] = y, a.z[i] = z;
  if constexpr (Periodic) {
    const S dx = minimumImage(S(x - a.x0[i]), L[0], H[0]);
    const S dy = minimumImage(S(y - a.y0[i]), L[1], H[1]);
    const S dz = minimumImage(S(z - a.z0[i]), L[2], H[2]);
    if (p.continuousPairs) a.pos[i] = {P(a.x0[i] + dx), P(a.y0[i] + dy), P(a.z0[i] + dz), P(0)};
    else a.pos[i] = {P(x), P(y), P(z), P(0)};
    if (dx * dx + dy * dy + dz * dz > S(p.trigger)) ds->rebuild = 1;
  } else {
    a.pos[i] = {P(x), P(y), P(z), P(0)};
    const S dx = x - a.x0[i], dy = y - a.y0[i], dz = z - a.z0[i];
    if (!(dx * dx + dy * dy + dz * dz <= S(p.trigger))) ds->rebuild = 1;
  }
}

// Second half: thermostat forces (Langevin), kick, and the kinetic energy sum for thermo and Nose-Hoover.
template <class S, class P>
__global__ void __launch_bounds__(kBlock) integrateSecondKernel(Arrays<S, P> a, StepParams p, DeviceScalars* ds) {
  if (ds->halt) return;  // the same for every thread
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  double ke = 0;
  if (i < a.n) {
    S fx = S(a.fx[i]), fy = S(a.fy[i]), fz = S(a.fz[i]);
    if (p.useLangevin) {
      const auto id = static_cast<std::uint64_t>(a.id[i]);
      fx += langevinForce(a.vx[i], p.langevin, ds->step, id, 0);
      fy += langevinForce(a.vy[i], p.langevin, ds->step, id, 1);
      fz += langevinForce(a.vz[i], p.langevin, ds->step, id, 2);
      a.fx[i] = P(fx), a.fy[i] = P(fy), a.fz[i] = P(fz);
    }
    const S dtf = S(p.dtf);
    const S vx = a.vx[i] + dtf * fx, vy = a.vy[i] + dtf * fy, vz = a.vz[i] + dtf * fz;
    a.vx[i] = vx, a.vy[i] = vy, a.vz[i] = vz;
    ke = double(vx) * vx + double(vy) * vy + double(vz) * vz;
  }
  using Reduce = cub::BlockReduce<double, kBlock>;
  __shared__ typename Reduce::TempStorage tmp;
  const double sum = Reduce(tmp).Sum(ke);
  if (threadIdx.x == 0) atomicAdd(&ds->twoKinetic, sum);
}

// twoKinetic times a factor: the mass after summing v^2 (giving sum m v^2), or s^2 after scaling velocities by s.
__global__ void kineticKernelScale(DeviceScalars* ds, double factor) {
  if (!ds->halt) ds->twoKinetic *= factor;
}

template <class S, class P>
__global__ void scaleVelocitiesKernel(Arrays<S, P> a, const DeviceScalars* ds) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n || ds->halt) return;
  const S s = S(ds->nhScale2);
  a.vx[i] *= s, a.vy[i] *= s, a.vz[i] *= s;
}
__global__ void nextStepKernel(DeviceScalars* ds) {
  if (!ds->halt) ds->step += 1;
}

inline int blocksFor(int n) { return (n + kBlock - 1) / kBlock; }

// The force kernel on atoms [0, a.n), `group` threads each (forceGroupFor), energy and virial summed when asked.
template <class S, class P, class A, bool Periodic>
void launchForceKernel(const Arrays<S, P>& a, const BoxParams& b, const LjCoefficients<P>& c, DeviceScalars* ds,
                       int group, bool energy, cudaStream_t stream) {
  const int blocks = static_cast<int>((static_cast<long long>(a.n) * group + kBlock - 1) / kBlock);
  if (energy) {
    forceKernel<S, P, A, true, Periodic><<<blocks, kBlock, 0, stream>>>(a, b, c, ds, group);
    HOPSIM_CUDA_CHECK_LAUNCH("forceKernel<energy>");
  } else {
    forceKernel<S, P, A, false, Periodic><<<blocks, kBlock, 0, stream>>>(a, b, c, ds, group);
    HOPSIM_CUDA_CHECK_LAUNCH("forceKernel");
  }
}

// Sum and largest of the list lengths of the first n atoms into *host (pinned), through *device; synchronises.
inline void countListEntries(const int* ncount, int n, ListCounts* device, ListCounts* host, cudaStream_t stream) {
  HOPSIM_CUDA_CHECK(cudaMemsetAsync(device, 0, sizeof(ListCounts), stream));
  listCountKernel<<<std::min(blocksFor(n), 1024), kBlock, 0, stream>>>(ncount, n, device);
  HOPSIM_CUDA_CHECK_LAUNCH("listCountKernel");
  HOPSIM_CUDA_CHECK(cudaMemcpyAsync(host, device, sizeof(ListCounts), cudaMemcpyDeviceToHost, stream));
  HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream));
}

template <class T>
void deviceAlloc(T*& p, std::size_t count) {
  HOPSIM_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&p), std::max<std::size_t>(count, 1) * sizeof(T)));
}
template <class T>
void deviceFree(T*& p) {
  if (p) cudaFree(p);
  p = nullptr;
}

// The list statistics stats() reports (mean and largest list length), counted on the GPU and read back once per list
// build however often stats() is asked: each readback synchronises the stream. allocate() with the engine's GPU
// current.
class ListCountCache {
 public:
  void allocate() {
    HOPSIM_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&host_), sizeof(ListCounts)));
    deviceAlloc(device_, 1);
  }
  void release() {
    deviceFree(device_);
    if (host_) cudaFreeHost(host_);
    host_ = nullptr;
  }
  // A new state: the next report() counts again whatever its build number.
  void invalidate() { build_ = -1; }

  // Fills s.meanNeighbors and s.maxNeighbors from the lists of the first n atoms, as left by list build number
  // `build` (the engine's neighbour build counter); counts on `gpu` only when that build has not been counted yet.
  void report(EngineStats& s, const int* ncount, int n, long long build, int gpu, cudaStream_t stream) {
    if (n <= 0) return;
    if (build_ != build) {
      HOPSIM_CUDA_CHECK(cudaSetDevice(gpu));
      countListEntries(ncount, n, device_, host_, stream);
      build_ = build;
    }
    s.meanNeighbors = static_cast<double>(host_->sum) / static_cast<double>(n);
    s.maxNeighbors = host_->max;
  }

 private:
  ListCounts* device_ = nullptr;
  ListCounts* host_ = nullptr;  // pinned
  long long build_ = -1;        // the build whose counts host_ holds
};

// After a list build queued on `stream`: reads the overflow flag (synchronises) and returns true when every list fit
// in a.stride entries; otherwise regrows a.nlist for `capacity` atoms to the longest list plus a quarter, for the
// caller to build again.
template <class S, class P>
bool listFits(Arrays<S, P>& a, std::size_t capacity, DeviceScalars* ds, DeviceScalars* host, cudaStream_t stream) {
  HOPSIM_CUDA_CHECK(cudaMemcpyAsync(&host->overflow, &ds->overflow, sizeof(int), cudaMemcpyDeviceToHost, stream));
  HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (host->overflow == 0) return true;
  const int overflow = host->overflow;
  deviceFree(a.nlist);
  a.stride = overflow + overflow / 4 + 8;
  deviceAlloc(a.nlist, static_cast<std::size_t>(a.stride) * capacity);
  return false;
}

}  // namespace

}  // namespace hopsim::md
