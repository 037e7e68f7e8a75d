// CUDA side of one rank of a decomposed MD run: the shared kernels of MdKernels.cuh in their non-periodic form over
// the rank's owned atoms, with ghosts after them.
//
// Differences from the single-rank engine, and why:
// - The list build does not move atoms: ghost slots and the swaps' send lists index the atoms as the rebuild left
//   them (owned atoms sorted by the host sorter's cells, for locality). It bins owned and ghost atoms with the same
//   radix sort, gathers their pair positions in bin order, and names bin slot k's atom by the sorted index
//   (binned[k]).
// - The list is built row by row over the bins clipped at the region's faces (buildListRowsKernel), not with the
//   single-rank engine's row kernel, which walks the periodic box through BinStencil's images and trims rows to the
//   search sphere: a rank's region has no images.
// - No CUDA graphs: each step stops twice for the host (the rebuild/infinite-force flags go through an allreduce,
//   ghost positions through MPI), and a rebuild may reallocate the arrays when the rank gains atoms.
// - The rebuild on the device (wrapOwned() .. finishRebuild()) repeats the host's: the same wrap, the same ownership
//   test (comparisons with Decomposition's faces), stable compaction by scans, CUB's stable radix sort on the host
//   sorter's cell key, the same border rule. So the host and the device rebuild give the same atoms in the same
//   slots, and the trajectories are equal bit for bit.
#include "kernels/md/DomainMdDevice.h"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/common/DeviceBuffer.cuh"
#include "kernels/md/cuda/MdKernels.cuh"
#include "kernels/md/Thermostats.h"

namespace hopsim::md {

namespace {

// The list of a rank's owned atoms, one thread per atom, row by row: the bins of one (y, z) row of the search are
// consecutive slots of the bin-sorted order (x fastest), so each row is one run of candidates, [cellStart of its
// first bin, cellStart past its last), read from their pair positions in bin order (binnedPos) four at a time, and
// only a pair within range reads its atom index (binned). No images: bins are clipped at the region's faces. The
// entries come in the order of the per-bin kernel this replaces (rows, then bins along x, then slots), so the list is
// the same, for 25 row lookups instead of 125 bin lookups with three integer modulos each, and no load of a
// candidate's position through its index.
template <class S, class P>
__global__ void buildListRowsKernel(Arrays<S, P> a, BoxParams b, const int* __restrict__ cellStart,
                                    const int* __restrict__ binned,
                                    const typename Vec4<P>::type* __restrict__ binnedPos, P rangeSq,
                                    DeviceScalars* ds) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  const auto pi = a.pos[i];
  const int c = cellIndexOf<false>(pi.x, pi.y, pi.z, b);
  const int c3[3] = {c % b.cells[0], (c / b.cells[0]) % b.cells[1], c / (b.cells[0] * b.cells[1])};
  int lo[3], hi[3];
  for (int d = 0; d < 3; ++d) {
    lo[d] = max(c3[d] - b.reach, 0);
    hi[d] = min(c3[d] + b.reach, b.cells[d] - 1);
  }
  int m = 0;
  const auto take = [&](int k, const typename Vec4<P>::type& pj) {
    const P dx = P(pi.x - pj.x), dy = P(pi.y - pj.y), dz = P(pi.z - pj.z);
    if (dx * dx + dy * dy + dz * dz < rangeSq) {
      const int j = __ldg(binned + k);
      if (j != i) {
        if (m < a.stride) a.nlist[static_cast<std::size_t>(m) * a.n + i] = j;
        ++m;
      }
    }
  };
  for (int z = lo[2]; z <= hi[2]; ++z)
    for (int y = lo[1]; y <= hi[1]; ++y) {
      const int row = b.cells[0] * (y + b.cells[1] * z);
      const int end = __ldg(cellStart + row + hi[0] + 1);
      int k = __ldg(cellStart + row + lo[0]);
      for (; k + 3 < end; k += 4) {
        const auto p0 = binnedPos[k], p1 = binnedPos[k + 1], p2 = binnedPos[k + 2], p3 = binnedPos[k + 3];
        take(k, p0);
        take(k + 1, p1);
        take(k + 2, p2);
        take(k + 3, p3);
      }
      for (; k < end; ++k) take(k, binnedPos[k]);
    }
  a.ncount[i] = m;
  if (m > a.stride) atomicMax(&ds->overflow, m);
}

// The positions one swap sends: atom indices[k], plus the swap's periodic shift along its axis, x y z per atom (the
// same S arithmetic as AtomExchange's host packing).
template <class S, class P>
__global__ void packGhostsKernel(Arrays<S, P> a, const int* __restrict__ indices, int count, int axis, S shift,
                                 S* __restrict__ out) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  const int i = indices[k];
  S r[3] = {a.x[i], a.y[i], a.z[i]};
  r[axis] = S(r[axis] + shift);
  out[3 * k] = r[0], out[3 * k + 1] = r[1], out[3 * k + 2] = r[2];
}

// Received positions into ghost slots first .. first + count - 1, with their pair-precision copy.
template <class S, class P>
__global__ void unpackGhostsKernel(Arrays<S, P> a, const S* __restrict__ in, int first, int count) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  const int i = first + k;
  const S x = in[3 * k], y = in[3 * k + 1], z = in[3 * k + 2];
  a.x[i] = x, a.y[i] = y, a.z[i] = z;
  a.pos[i] = {P(x), P(y), P(z), P(0)};
}

// A swap to this rank itself: what packGhostsKernel would send, straight into the swap's ghost slots first ..
// first + count - 1 (with their pair-precision copy). Its sources (owned atoms, ghosts of earlier axes) all lie before
// `first`, so no thread reads what another writes.
template <class S, class P>
__global__ void copyGhostsKernel(Arrays<S, P> a, const int* __restrict__ indices, int count, int axis, S shift,
                                 int first) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  const int i = indices[k];
  S r[3] = {a.x[i], a.y[i], a.z[i]};
  r[axis] = S(r[axis] + shift);
  const int g = first + k;
  a.x[g] = r[0], a.y[g] = r[1], a.z[g] = r[2];
  a.pos[g] = {P(r[0]), P(r[1]), P(r[2]), P(0)};
}

// Who owns a position, as Decomposition::ownerCoord decides it: per axis the faces of every grid coordinate
// (faces[axis][c], c = 0 .. parts) in device memory.
struct Ownership {
  const double* faces[3];
  int parts[3];
  int coords[3];  // this rank's
};

// Decomposition::ownerCoord by comparisons alone (so it agrees with the host bit for bit): the coordinate c with
// faces[c] <= x < faces[c + 1]; 0 below the box and for NaN, the last one beyond it.
__device__ int ownerCoordOf(double x, const double* faces, int parts) {
  if (!(x >= faces[0])) return 0;
  int c = 0;
  for (int k = 1; k < parts; ++k) c += x >= faces[k] ? 1 : 0;
  return c;
}

// The host sorter's cells (CpuNeighborList::setRegion over the region, bins of at least the interaction range).
struct SortGrid {
  double lo[3], inverseCell[3];
  int cells[3];
};

__device__ int sorterAxisCell(double v, int d, const SortGrid& g) {
  const double t = (v - g.lo[d]) * g.inverseCell[d];
  if (!(t >= 0)) return 0;
  const double c = g.cells[d];
  return min(g.cells[d] - 1, static_cast<int>(t <= c ? t : c));
}

// Owned positions wrapped into the box (wrapOnce, as the host's wrapAndMigrate).
template <class S, class P>
__global__ void wrapKernel(Arrays<S, P> a, S lx, S ly, S lz) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  a.x[i] = wrapOnce(a.x[i], lx), a.y[i] = wrapOnce(a.y[i], ly), a.z[i] = wrapOnce(a.z[i], lz);
}

// flags[i] = 1 for an owned atom owned by grid coordinate `target` along `axis` (not this rank's); flags[n] = 0, so
// that an exclusive scan of n + 1 flags ends in the count.
template <class S>
__global__ void leavingFlagsKernel(const S* __restrict__ pos, int n, Ownership o, int axis, int target,
                                   int* __restrict__ flags) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > n) return;
  if (i == n) {
    flags[n] = 0;
    return;
  }
  const int c = ownerCoordOf(double(pos[i]), o.faces[axis], o.parts[axis]);
  flags[i] = c == target && c != o.coords[axis] ? 1 : 0;
}

// The leaving atoms as x y z vx vy vz id (doubles, AtomExchange's message) at their scan slot, the staying ones'
// indices in order (stay[i - scan[i]] = i).
template <class S, class P>
__global__ void splitLeavingKernel(Arrays<S, P> a, const int* __restrict__ flags, const int* __restrict__ scan,
                                   double* __restrict__ out, int* __restrict__ stay) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  const int k = scan[i];
  if (flags[i] == 0) {
    stay[i - k] = i;
    return;
  }
  double* o = out + 7 * static_cast<std::size_t>(k);
  o[0] = double(a.x[i]), o[1] = double(a.y[i]), o[2] = double(a.z[i]);
  o[3] = double(a.vx[i]), o[4] = double(a.vy[i]), o[5] = double(a.vz[i]), o[6] = double(a.id[i]);
}

// The owned atoms' arrays that a rebuild moves, and their spares (gathered into, then swapped).
template <class S>
struct OwnedColumns {
  S *x, *y, *z, *vx, *vy, *vz;
  long long* id;
};

// to[k] = from[order[k]] for every moved array, k < m.
template <class S>
__global__ void gatherOwnedKernel(OwnedColumns<S> from, OwnedColumns<S> to, const int* __restrict__ order, int m) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= m) return;
  const int j = order[k];
  to.x[k] = from.x[j], to.y[k] = from.y[j], to.z[k] = from.z[j];
  to.vx[k] = from.vx[j], to.vy[k] = from.vy[j], to.vz[k] = from.vz[j];
  to.id[k] = from.id[j];
}

// Received atoms (7 doubles each) into owned slots first .. first + count - 1.
template <class S, class P>
__global__ void appendArrivalsKernel(Arrays<S, P> a, const double* __restrict__ in, int first, int count) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  const double* r = in + 7 * static_cast<std::size_t>(k);
  const int i = first + k;
  a.x[i] = S(r[0]), a.y[i] = S(r[1]), a.z[i] = S(r[2]);
  a.vx[i] = S(r[3]), a.vy[i] = S(r[4]), a.vz[i] = S(r[5]);
  a.id[i] = static_cast<long long>(r[6]);
}

// Owned atoms outside this rank's sub-box, counted into *count.
template <class S, class P>
__global__ void misplacedKernel(Arrays<S, P> a, Ownership o, int* count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  const S* p[3] = {a.x, a.y, a.z};
  for (int d = 0; d < 3; ++d)
    if (ownerCoordOf(double(p[d][i]), o.faces[d], o.parts[d]) != o.coords[d]) {
      atomicAdd(count, 1);
      return;
    }
}

// The host sorter's cell of each owned atom (CpuNeighborList::cellOf), with its index.
template <class S, class P>
__global__ void sorterKeyKernel(Arrays<S, P> a, SortGrid g, unsigned* keys, int* values) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  const int cx = sorterAxisCell(double(a.x[i]), 0, g), cy = sorterAxisCell(double(a.y[i]), 1, g),
            cz = sorterAxisCell(double(a.z[i]), 2, g);
  keys[i] = static_cast<unsigned>(cx + g.cells[0] * (cy + g.cells[1] * cz));
  values[i] = i;
}

// AtomExchange::borders' choice along one axis among the first n atoms: lower[i] = 1 below lo (when the lower swap
// sends), upper[i] = 1 at or above hi; both 0 at i = n (the scans' counts).
template <class S>
__global__ void borderFlagsKernel(const S* __restrict__ pos, int n, double lo, double hi, int sendLower,
                                  int sendUpper, int* __restrict__ lower, int* __restrict__ upper) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > n) return;
  if (i == n) {
    lower[n] = upper[n] = 0;
    return;
  }
  const double v = double(pos[i]);
  lower[i] = sendLower && v < lo ? 1 : 0;
  upper[i] = sendUpper && v >= hi ? 1 : 0;
}

// The chosen atoms' indices in order, at their scan slots.
__global__ void borderIndicesKernel(int n, const int* __restrict__ lowerFlags, const int* __restrict__ lowerScan,
                                    const int* __restrict__ upperFlags, const int* __restrict__ upperScan,
                                    int* __restrict__ lower, int* __restrict__ upper) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (lowerFlags[i]) lower[lowerScan[i]] = i;
  if (upperFlags[i]) upper[upperScan[i]] = i;
}

// S: positions and velocities; P: pair arithmetic and forces; A: per-thread energy accumulation (as CudaMdEngine).
template <class S, class P, class A>
class CudaDomainMdDevice final : public DomainMdDevice<S> {
 public:
  explicit CudaDomainMdDevice(const DomainDeviceConfig& c) : config_(c), gpu_(c.gpu) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
      cudaGetLastError();
      throw std::runtime_error("the cuda backend was requested but no CUDA device is available");
    }
    if (gpu_ < 0 || gpu_ >= count)
      throw std::runtime_error("GPU " + std::to_string(gpu_) + " requested, " + std::to_string(count) + " present");
    HOPSIM_CUDA_CHECK(cudaSetDevice(gpu_));
    cudaDeviceProp prop{};
    HOPSIM_CUDA_CHECK(cudaGetDeviceProperties(&prop, gpu_));
    deviceName_ = std::string(prop.name) + ", GPU " + std::to_string(gpu_);
    smCount_ = prop.multiProcessorCount;
    HOPSIM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    HOPSIM_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&hostScalars_), sizeof(DeviceScalars)));
    deviceAlloc(ds_, 1);
    deviceAlloc(counter_, 1);
    hostCounts_ = PinnedBuffer<int>(2);
    for (auto* e : {&ev_[0], &ev_[1], &ev_[2], &nbEv_[0], &nbEv_[1]}) HOPSIM_CUDA_CHECK(cudaEventCreate(e));
    listCounts_.allocate();
    const EngineConfig& e = c.engine;
    coeff_ = makeLjCoefficients<P>(e.lj.epsilon, e.lj.sigma, e.lj.cutoff, e.lj.shift);

    // Half-range bins over the region (5^3 around an atom), clipped at its faces: the region is at least three
    // ranges wide (a sub-box is at least one), so every axis has room for them.
    const double range = interactionRange(e.lj, e.skin);
    region_.reach = 2;
    for (int d = 0; d < 3; ++d) {
      const double width = c.hi[d] - c.lo[d];
      region_.lo[d] = c.lo[d];
      region_.cells[d] = std::max(1, static_cast<int>(std::floor(width * region_.reach / range)));
      region_.inverseCell[d] = region_.cells[d] / width;
    }
    ncell_ = region_.cells[0] * region_.cells[1] * region_.cells[2];
    deviceAlloc(cellStart_, static_cast<std::size_t>(ncell_) + 1);
    // The host sorter's cells, as CpuNeighborList::setRegion computes them, and the faces that decide ownership.
    sorterCells_ = 1;
    for (int d = 0; d < 3; ++d) {
      const double width = c.hi[d] - c.lo[d];
      sortGrid_.lo[d] = c.lo[d];
      sortGrid_.cells[d] = std::max(1, static_cast<int>(std::floor(width / range)));
      sortGrid_.inverseCell[d] = static_cast<double>(sortGrid_.cells[d]) / width;
      sorterCells_ *= sortGrid_.cells[d];
    }
    std::vector<double> faces;
    std::size_t offset[3] = {};
    for (int d = 0; d < 3; ++d) {
      if (c.faces[d].size() < 2) throw std::logic_error("decomposed MD device: the sub-box faces are missing");
      ownership_.parts[d] = static_cast<int>(c.faces[d].size()) - 1;
      ownership_.coords[d] = c.coords[d];
      offset[d] = faces.size();
      faces.insert(faces.end(), c.faces[d].begin(), c.faces[d].end());
    }
    deviceAlloc(faces_, faces.size());
    HOPSIM_CUDA_CHECK(cudaMemcpy(faces_, faces.data(), faces.size() * sizeof(double), cudaMemcpyHostToDevice));
    for (int d = 0; d < 3; ++d) ownership_.faces[d] = faces_ + offset[d];
    rangeSq_ = P(range * range);
    a_.stride = 96;
    DeviceScalars init{};
    init.nhScale1 = init.nhScale2 = 1.0;
    *hostScalars_ = init;
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(ds_, hostScalars_, sizeof(DeviceScalars), cudaMemcpyHostToDevice, stream_));
    HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  ~CudaDomainMdDevice() override {
    freeArrays();
    deviceFree(cellStart_), deviceFree(ds_), deviceFree(faces_);
    listCounts_.release();
    if (hostScalars_) cudaFreeHost(hostScalars_);
    for (auto e : ev_) if (e) cudaEventDestroy(e);
    for (auto e : nbEv_) if (e) cudaEventDestroy(e);
    if (stream_) cudaStreamDestroy(stream_);
  }

  void setMass(double mass) override {
    mass_ = mass;
    const auto& in = config_.engine.integrator;
    params_.dt = in.dt;
    params_.dtf = 0.5 * in.dt / mass;
    params_.trigger = rebuildDisplacementSq(config_.engine.skin);
    params_.useLangevin = in.type == IntegratorType::Langevin;
    params_.useScale = in.type == IntegratorType::NoseHoover;  // the scale comes from the host's thermostat
    if (params_.useLangevin) params_.langevin = langevinParams(in, mass);
  }

  void load(const LocalAtoms<S>& atoms, const std::vector<GhostSwap<S>>& swaps) override {
    HOPSIM_CUDA_CHECK(cudaSetDevice(gpu_));
    // Nothing queued may still read the old arrays, the staging buffer or the inbox.
    HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    owned_ = static_cast<int>(atoms.owned);
    total_ = static_cast<int>(atoms.total());
    const std::size_t n = atoms.owned;
    std::size_t sends = 0, staged = 7 * padded(n * sizeof(long long));
    swaps_.clear();
    for (const GhostSwap<S>& g : swaps) {
      if (g.self && g.count != g.indices->size())
        throw std::logic_error("ghost exchange: a swap to this rank itself receives another count than it sends");
      swaps_.push_back({g.axis, g.shift, sends, g.indices->size(), g.first, g.count, g.self});
      sends += g.indices->size();
      staged += padded(g.indices->size() * sizeof(int));
    }
    growOwned(n, 0);
    growTotal(static_cast<std::size_t>(total_), 0);
    growSends(sends, 0);
    reserveStaging(staged);
    a_.n = owned_;
    // Each array through its own part of the pinned staging buffer: its copy runs while the host stages the next
    // (a pageable source would make every copy a synchronous driver-staged one).
    std::byte* next = staging_.get();
    const auto up = [&](auto* dst, const auto* src, std::size_t count) {
      static_assert(sizeof(*dst) == sizeof(*src));
      if (count == 0) return;  // a rank may hold no ghosts to send, or (thin slabs) no atoms
      const std::size_t bytes = count * sizeof(*src);
      std::memcpy(next, src, bytes);
      HOPSIM_CUDA_CHECK(cudaMemcpyAsync(dst, next, bytes, cudaMemcpyHostToDevice, stream_));
      next += padded(bytes);
    };
    up(a_.x, atoms.x.data(), n), up(a_.y, atoms.y.data(), n), up(a_.z, atoms.z.data(), n);
    up(a_.vx, atoms.vx.data(), n), up(a_.vy, atoms.vy.data(), n), up(a_.vz, atoms.vz.data(), n);
    up(a_.id, atoms.id.data(), n);
    for (std::size_t q = 0; q < swaps.size(); ++q)
      up(sendIndices_ + swaps_[q].sendOffset, swaps[q].indices->data(), swaps_[q].sendCount);
    // Ghosts swap by swap in the exchange's order (a later axis sends ghosts an earlier one filled): a self swap's
    // computed on the GPU, the others' (as the host's borders received them) the way forwarded ones go, through the
    // inbox and the unpack kernel, which also sets pos.
    for (std::size_t q = 0; q < swaps_.size(); ++q) {
      const SwapSlots& s = swaps_[q];
      if (s.self) {
        copyGhosts(q);
        continue;
      }
      S* in = recvHost_ + 3 * (s.first - n);
      for (std::size_t k = 0; k < s.count; ++k) {
        const std::size_t i = s.first + k;
        in[3 * k] = atoms.x[i], in[3 * k + 1] = atoms.y[i], in[3 * k + 2] = atoms.z[i];
      }
      unpackGhosts(q);
    }
    if (owned_ > 0) {
      refreshKernel<S, P><<<blocksFor(owned_), kBlock, 0, stream_>>>(a_);  // pos and the displacement reference
      HOPSIM_CUDA_CHECK_LAUNCH("refreshKernel");
    }
    buildList();
  }

  void download(LocalAtoms<S>& atoms) override {
    HOPSIM_CUDA_CHECK(cudaSetDevice(gpu_));
    const std::size_t n = static_cast<std::size_t>(owned_);
    for (auto* v : {&atoms.x, &atoms.y, &atoms.z, &atoms.vx, &atoms.vy, &atoms.vz}) v->resize(n);
    atoms.id.resize(n);
    atoms.owned = n;
    // Through the pinned staging buffer (full link speed, all seven copies queued at once), then into the vectors.
    reserveStaging(7 * padded(n * sizeof(long long)));
    std::byte* next = staging_.get();
    const auto down = [&](const auto* src) {
      std::byte* at = next;
      if (n > 0) HOPSIM_CUDA_CHECK(cudaMemcpyAsync(at, src, n * sizeof(*src), cudaMemcpyDeviceToHost, stream_));
      next += padded(n * sizeof(*src));
      return at;
    };
    const std::byte* from[7] = {down(a_.x), down(a_.y), down(a_.z), down(a_.vx), down(a_.vy), down(a_.vz),
                                down(a_.id)};
    HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const auto take = [n](auto& dst, const std::byte* at) {
      if (n > 0) std::memcpy(dst.data(), at, n * sizeof(dst[0]));
    };
    take(atoms.x, from[0]), take(atoms.y, from[1]), take(atoms.z, from[2]);
    take(atoms.vx, from[3]), take(atoms.vy, from[4]), take(atoms.vz, from[5]), take(atoms.id, from[6]);
  }

  void reference(std::vector<S>& x0, std::vector<S>& y0, std::vector<S>& z0) override {
    HOPSIM_CUDA_CHECK(cudaSetDevice(gpu_));
    const std::size_t n = static_cast<std::size_t>(owned_);
    std::vector<S>* to[3] = {&x0, &y0, &z0};
    const S* from[3] = {a_.x0, a_.y0, a_.z0};
    for (int c = 0; c < 3; ++c) {
      to[c]->resize(n);
      if (n > 0)
        HOPSIM_CUDA_CHECK(cudaMemcpyAsync(to[c]->data(), from[c], n * sizeof(S), cudaMemcpyDeviceToHost, stream_));
    }
    HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  std::size_t ownedCount() const override { return static_cast<std::size_t>(owned_); }

  void wrapOwned() override {
    HOPSIM_CUDA_CHECK(cudaSetDevice(gpu_));
    total_ = owned_;
    a_.n = owned_;
    if (owned_ == 0) return;
    const auto& L = config_.box;
    wrapKernel<S, P><<<blocksFor(owned_), kBlock, 0, stream_>>>(a_, S(L[0]), S(L[1]), S(L[2]));
    HOPSIM_CUDA_CHECK_LAUNCH("wrapKernel");
  }

  std::span<const double> takeLeaving(int axis, int target) override {
    if (target < 0 || owned_ == 0) return {};
    const int n = owned_;
    const S* pos[3] = {a_.x, a_.y, a_.z};
    leavingFlagsKernel<S><<<blocksFor(n + 1), kBlock, 0, stream_>>>(pos[axis], n, ownership_, axis, target, flags_[0]);
    HOPSIM_CUDA_CHECK_LAUNCH("leavingFlagsKernel");
    scan(flags_[0], scans_[0], n + 1);
    const int leaving = readCounts(scans_[0] + n, nullptr)[0];
    if (leaving == 0) return {};
    const std::size_t words = 7 * static_cast<std::size_t>(leaving);
    if (words > leaving_.size()) leaving_ = PinnedBuffer<double>(words + words / 4 + 7 * 64);
    splitLeavingKernel<S, P><<<blocksFor(n), kBlock, 0, stream_>>>(a_, flags_[0], scans_[0], leaving_.device(),
                                                                   order_);
    HOPSIM_CUDA_CHECK_LAUNCH("splitLeavingKernel");
    permuteOwned(order_, n - leaving);
    HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the message is read by the host
    return {leaving_.get(), words};
  }

  void appendArrivals(std::span<const double> atoms) override {
    const std::size_t count = atoms.size() / 7;
    if (count == 0) return;
    // The previous swap's arrivals may still be read from the pinned buffer.
    HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const std::size_t n = static_cast<std::size_t>(owned_);
    growOwned(n + count, n);
    growTotal(n + count, n);
    if (atoms.size() > arriving_.size()) arriving_ = PinnedBuffer<double>(atoms.size() + atoms.size() / 4 + 7 * 64);
    std::memcpy(arriving_.get(), atoms.data(), atoms.size() * sizeof(double));
    appendArrivalsKernel<S, P><<<blocksFor(static_cast<int>(count)), kBlock, 0, stream_>>>(
        a_, arriving_.device(), owned_, static_cast<int>(count));
    HOPSIM_CUDA_CHECK_LAUNCH("appendArrivalsKernel");
    owned_ += static_cast<int>(count);
    total_ = owned_;
    a_.n = owned_;
  }

  long long misplaced() override {
    HOPSIM_CUDA_CHECK(cudaMemsetAsync(counter_, 0, sizeof(int), stream_));
    if (owned_ > 0) {
      misplacedKernel<S, P><<<blocksFor(owned_), kBlock, 0, stream_>>>(a_, ownership_, counter_);
      HOPSIM_CUDA_CHECK_LAUNCH("misplacedKernel");
    }
    return readCounts(counter_, nullptr)[0];
  }

  void sortOwned() override {
    if (owned_ == 0) return;
    sorterKeyKernel<S, P><<<blocksFor(owned_), kBlock, 0, stream_>>>(a_, sortGrid_, keys_, values_);
    HOPSIM_CUDA_CHECK_LAUNCH("sorterKeyKernel");
    HOPSIM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(sortTemp_, sortBytes_, keys_, keysSorted_, values_, order_,
                                                      owned_, 0, bitsFor(sorterCells_), stream_));
    permuteOwned(order_, owned_);
  }

  void selectBorders(int axis, double lo, double hi, const std::array<bool, 2>& sends,
                     const std::array<S, 2>& shifts) override {
    if (axis == 0) swaps_.assign(6, SwapSlots{});
    const std::size_t q = 2 * static_cast<std::size_t>(axis);
    const std::size_t offset = q == 0 ? 0 : swaps_[q - 1].sendOffset + swaps_[q - 1].sendCount;
    const int n = total_;
    const S* pos[3] = {a_.x, a_.y, a_.z};
    borderFlagsKernel<S><<<blocksFor(n + 1), kBlock, 0, stream_>>>(pos[axis], n, lo, hi, sends[0] ? 1 : 0,
                                                                   sends[1] ? 1 : 0, flags_[0], flags_[1]);
    HOPSIM_CUDA_CHECK_LAUNCH("borderFlagsKernel");
    scan(flags_[0], scans_[0], n + 1);
    scan(flags_[1], scans_[1], n + 1);
    const std::array<int, 2> count = readCounts(scans_[0] + n, scans_[1] + n);
    const std::size_t lower = static_cast<std::size_t>(count[0]), upper = static_cast<std::size_t>(count[1]);
    growSends(offset + lower + upper, offset);
    swaps_[q] = {axis, shifts[0], offset, lower, 0, 0, false};
    swaps_[q + 1] = {axis, shifts[1], offset + lower, upper, 0, 0, false};
    if (n > 0) {
      borderIndicesKernel<<<blocksFor(n), kBlock, 0, stream_>>>(n, flags_[0], scans_[0], flags_[1], scans_[1],
                                                               sendIndices_ + offset, sendIndices_ + offset + lower);
      HOPSIM_CUDA_CHECK_LAUNCH("borderIndicesKernel");
    }
  }

  std::size_t sendCount(std::size_t swap) const override { return swaps_.at(swap).sendCount; }

  void placeGhosts(std::size_t swap, std::size_t count) override {
    SwapSlots& s = swaps_.at(swap);
    const std::size_t total = static_cast<std::size_t>(total_);
    growTotal(total + count, total);
    s.first = total;
    s.count = count;
    total_ = static_cast<int>(total + count);
  }

  void finishRebuild(const std::function<void()>& meanwhile) override {
    a_.n = owned_;
    if (owned_ > 0) {
      refreshKernel<S, P><<<blocksFor(owned_), kBlock, 0, stream_>>>(a_);  // pos and the displacement reference
      HOPSIM_CUDA_CHECK_LAUNCH("refreshKernel");
    }
    buildList(meanwhile);
  }

  std::vector<double> forces() override {
    HOPSIM_CUDA_CHECK(cudaSetDevice(gpu_));
    const std::size_t n = static_cast<std::size_t>(owned_);
    std::vector<P> f[3];
    P* src[3] = {a_.fx, a_.fy, a_.fz};
    for (int c = 0; c < 3; ++c) {
      f[c].resize(n);
      if (n > 0)
        HOPSIM_CUDA_CHECK(cudaMemcpyAsync(f[c].data(), src[c], n * sizeof(P), cudaMemcpyDeviceToHost, stream_));
    }
    HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    std::vector<double> out(3 * n);
    for (std::size_t i = 0; i < n; ++i)
      for (int c = 0; c < 3; ++c) out[3 * i + c] = double(f[c][i]);
    return out;
  }

  void computeForces(bool energy) override {
    if (energy) HOPSIM_CUDA_CHECK(cudaMemsetAsync(&ds_->potential, 0, 2 * sizeof(double), stream_));  // + virial
    if (owned_ == 0) return;
    const int group = forceGroupFor(owned_, smCount_, config_.engine.forceThreadsPerAtom);
    stats_.forceThreadsPerAtom = group;
    launchForceKernel<S, P, A, false>(a_, region_, coeff_, ds_, group, energy, stream_);
  }

  void setStep(long long step) override {
    hostScalars_->step = static_cast<unsigned long long>(step);
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(&ds_->step, &hostScalars_->step, sizeof(unsigned long long),
                                      cudaMemcpyHostToDevice, stream_));
  }

  StepFlags firstHalf(double scale, std::size_t prologue, int slot) override {
    HOPSIM_CUDA_CHECK(cudaSetDevice(gpu_));
    const bool timed = config_.engine.timePhases;
    if (timed) HOPSIM_CUDA_CHECK(cudaEventRecord(ev_[0], stream_));
    if (params_.useScale) {
      hostScalars_->nhScale1 = scale;
      HOPSIM_CUDA_CHECK(cudaMemcpyAsync(&ds_->nhScale1, &hostScalars_->nhScale1, sizeof(double),
                                        cudaMemcpyHostToDevice, stream_));
    }
    HOPSIM_CUDA_CHECK(cudaMemsetAsync(&ds_->rebuild, 0, sizeof(int), stream_));
    if (owned_ > 0) {
      integrateFirstKernel<S, P, false><<<blocksFor(owned_), kBlock, 0, stream_>>>(a_, region_, params_, ds_);
      HOPSIM_CUDA_CHECK_LAUNCH("integrateFirstKernel<region>");
    }
    for (std::size_t q = 0; q < prologue; ++q) {  // a remote swap has its receiver's inbox mapped; a self one none
      if (swaps_.at(q).peerInbox) queuePeerPack(q, slot);
      else copyGhosts(q);
    }
    if (timed) HOPSIM_CUDA_CHECK(cudaEventRecord(ev_[1], stream_));
    // rebuild, overflow and bad are adjacent: one small copy.
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(&hostScalars_->rebuild, &ds_->rebuild, 3 * sizeof(int), cudaMemcpyDeviceToHost,
                                      stream_));
    HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    if (timed) stats_.integrateSeconds += elapsed(ev_[0], ev_[1]);
    return {hostScalars_->rebuild != 0, hostScalars_->bad != 0};
  }

  void secondHalf(bool energy) override {
    HOPSIM_CUDA_CHECK(cudaSetDevice(gpu_));
    const bool timed = config_.engine.timePhases;
    if (timed) HOPSIM_CUDA_CHECK(cudaEventRecord(ev_[0], stream_));
    computeForces(energy);
    if (timed) HOPSIM_CUDA_CHECK(cudaEventRecord(ev_[1], stream_));
    HOPSIM_CUDA_CHECK(cudaMemsetAsync(&ds_->twoKinetic, 0, sizeof(double), stream_));
    if (owned_ > 0) {
      integrateSecondKernel<S, P><<<blocksFor(owned_), kBlock, 0, stream_>>>(a_, params_, ds_);
      HOPSIM_CUDA_CHECK_LAUNCH("integrateSecondKernel");
    }
    kineticKernelScale<<<1, 1, 0, stream_>>>(ds_, mass_);
    HOPSIM_CUDA_CHECK_LAUNCH("kineticKernelScale");
    nextStepKernel<<<1, 1, 0, stream_>>>(ds_);
    HOPSIM_CUDA_CHECK_LAUNCH("nextStepKernel");
    if (timed) {
      HOPSIM_CUDA_CHECK(cudaEventRecord(ev_[2], stream_));
      HOPSIM_CUDA_CHECK(cudaEventSynchronize(ev_[2]));
      stats_.forceSeconds += elapsed(ev_[0], ev_[1]);
      stats_.integrateSeconds += elapsed(ev_[1], ev_[2]);
    }
  }

  void scaleVelocities(double s) override {
    hostScalars_->nhScale2 = s;
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(&ds_->nhScale2, &hostScalars_->nhScale2, sizeof(double), cudaMemcpyHostToDevice,
                                      stream_));
    if (owned_ > 0) {
      scaleVelocitiesKernel<S, P><<<blocksFor(owned_), kBlock, 0, stream_>>>(a_, ds_);
      HOPSIM_CUDA_CHECK_LAUNCH("scaleVelocitiesKernel");
    }
    kineticKernelScale<<<1, 1, 0, stream_>>>(ds_, s * s);
    HOPSIM_CUDA_CHECK_LAUNCH("kineticKernelScale (Nose-Hoover)");
  }

  void measureKinetic() override {
    // A second half-kick with zero dt is a plain reduction (as CudaMdEngine computes the initial kinetic energy).
    StepParams zero = params_;
    zero.dtf = 0;
    zero.useLangevin = false;
    HOPSIM_CUDA_CHECK(cudaMemsetAsync(&ds_->twoKinetic, 0, sizeof(double), stream_));
    if (owned_ > 0) {
      integrateSecondKernel<S, P><<<blocksFor(owned_), kBlock, 0, stream_>>>(a_, zero, ds_);
      HOPSIM_CUDA_CHECK_LAUNCH("integrateSecondKernel (kinetic energy)");
    }
    kineticKernelScale<<<1, 1, 0, stream_>>>(ds_, mass_);
    HOPSIM_CUDA_CHECK_LAUNCH("kineticKernelScale");
  }

  void restore(const LocalAtoms<S>& now, const std::vector<double>& forces, const RawThermo& sums) override {
    HOPSIM_CUDA_CHECK(cudaSetDevice(gpu_));
    HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const std::size_t n = static_cast<std::size_t>(owned_);
    if (n > 0) {
      // Positions x y z per atom through unpackGhostsKernel, which also sets pos (slots 0 .. n - 1 are the owned
      // atoms); x0 keeps the positions load() built the list from.
      std::vector<S> xyz(3 * n);
      std::vector<P> f[3];
      for (auto& v : f) v.resize(n);
      for (std::size_t i = 0; i < n; ++i) {
        xyz[3 * i] = now.x[i], xyz[3 * i + 1] = now.y[i], xyz[3 * i + 2] = now.z[i];
        for (int c = 0; c < 3; ++c) f[c][i] = P(forces[3 * i + c]);
      }
      S* staged = nullptr;
      deviceAlloc(staged, 3 * n);
      HOPSIM_CUDA_CHECK(cudaMemcpy(staged, xyz.data(), 3 * n * sizeof(S), cudaMemcpyHostToDevice));
      unpackGhostsKernel<S, P><<<blocksFor(owned_), kBlock, 0, stream_>>>(a_, staged, 0, owned_);
      HOPSIM_CUDA_CHECK_LAUNCH("unpackGhostsKernel (restored positions)");
      P* dst[3] = {a_.fx, a_.fy, a_.fz};
      for (int c = 0; c < 3; ++c)
        HOPSIM_CUDA_CHECK(cudaMemcpyAsync(dst[c], f[c].data(), n * sizeof(P), cudaMemcpyHostToDevice, stream_));
      HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
      deviceFree(staged);
    }
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(hostScalars_, ds_, sizeof(DeviceScalars), cudaMemcpyDeviceToHost, stream_));
    HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    hostScalars_->potential = sums.potential;
    hostScalars_->virial = sums.virial;
    hostScalars_->twoKinetic = sums.twoKinetic;
    hostScalars_->bad = 0;
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(ds_, hostScalars_, sizeof(DeviceScalars), cudaMemcpyHostToDevice, stream_));
    HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  std::span<const std::byte> packGhosts(std::size_t swap) override {
    const SwapSlots& s = swaps_.at(swap);
    if (s.sendCount > 0) {
      const int count = static_cast<int>(s.sendCount);
      packGhostsKernel<S, P><<<blocksFor(count), kBlock, 0, stream_>>>(a_, sendIndices_ + s.sendOffset, count, s.axis,
                                                                        s.shift, sendDev_ + 3 * s.sendOffset);
      HOPSIM_CUDA_CHECK_LAUNCH("packGhostsKernel");
      HOPSIM_CUDA_CHECK(cudaMemcpyAsync(sendHost_ + 3 * s.sendOffset, sendDev_ + 3 * s.sendOffset,
                                        3 * s.sendCount * sizeof(S), cudaMemcpyDeviceToHost, stream_));
      HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    }
    return std::as_bytes(std::span<const S>(sendHost_ + 3 * s.sendOffset, 3 * s.sendCount));
  }

  std::span<std::byte> ghostInbox(std::size_t swap) override {
    const SwapSlots& s = swaps_.at(swap);
    return std::as_writable_bytes(std::span<S>(recvHost_ + 3 * (s.first - owned_), 3 * s.count));
  }

  void unpackGhosts(std::size_t swap) override {
    const SwapSlots& s = swaps_.at(swap);
    if (s.count == 0) return;
    const std::size_t offset = 3 * (s.first - owned_);
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(recvDev_ + offset, recvHost_ + offset, 3 * s.count * sizeof(S),
                                      cudaMemcpyHostToDevice, stream_));
    unpackGhostsKernel<S, P><<<blocksFor(static_cast<int>(s.count)), kBlock, 0, stream_>>>(
        a_, recvDev_ + offset, static_cast<int>(s.first), static_cast<int>(s.count));
    HOPSIM_CUDA_CHECK_LAUNCH("unpackGhostsKernel");
  }

  void copyGhosts(std::size_t swap) override {
    const SwapSlots& s = swaps_.at(swap);
    if (s.count == 0) return;
    const int count = static_cast<int>(s.count);
    copyGhostsKernel<S, P><<<blocksFor(count), kBlock, 0, stream_>>>(a_, sendIndices_ + s.sendOffset, count, s.axis,
                                                                      s.shift, static_cast<int>(s.first));
    HOPSIM_CUDA_CHECK_LAUNCH("copyGhostsKernel");
  }

  bool peerGhosts() const override { return true; }

  std::vector<std::byte> exportInbox(std::size_t swap) override {
    const SwapSlots& s = swaps_.at(swap);
    InboxHandle m{};
    HOPSIM_CUDA_CHECK(cudaIpcGetMemHandle(&m.handle, recvDev_));
    m.offset = 3 * (s.first - static_cast<std::size_t>(owned_));
    m.slotStride = 3 * totalCap_;
    m.count = s.count;
    std::vector<std::byte> out(this->kInboxHandleBytes);
    std::memcpy(out.data(), &m, sizeof m);
    return out;
  }

  void mapPeerInbox(std::size_t swap, int peer, std::span<const std::byte> handle) override {
    if (handle.size() < sizeof(InboxHandle)) throw std::logic_error("a ghost inbox handle of the wrong size");
    InboxHandle m;
    std::memcpy(&m, handle.data(), sizeof m);
    SwapSlots& s = swaps_.at(swap);
    if (m.count != s.sendCount)
      throw std::logic_error("ghost exchange: the neighbour's inbox holds " + std::to_string(m.count) +
                             " positions, this rank sends " + std::to_string(s.sendCount));
    PeerInbox& p = peers_[peer];
    if (!p.mapping.get() || std::memcmp(&p.handle, &m.handle, sizeof m.handle) != 0) {
      p.mapping = IpcMapping();  // the neighbour's buffer moved (it grew): the old mapping goes first
      p.mapping = IpcMapping(m.handle);
      p.handle = m.handle;
    }
    s.peerInbox = static_cast<S*>(p.mapping.get()) + m.offset;
    s.peerSlotStride = m.slotStride;
  }

  void packGhostsToPeer(std::size_t swap, int slot) override {
    queuePeerPack(swap, slot);
    HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));  // written before the receiver is told
  }

  void unpackGhostsFromInbox(std::size_t swap, int slot) override {
    const SwapSlots& s = swaps_.at(swap);
    if (s.count == 0) return;
    const std::size_t offset =
        static_cast<std::size_t>(slot) * 3 * totalCap_ + 3 * (s.first - static_cast<std::size_t>(owned_));
    unpackGhostsKernel<S, P><<<blocksFor(static_cast<int>(s.count)), kBlock, 0, stream_>>>(
        a_, recvDev_ + offset, static_cast<int>(s.first), static_cast<int>(s.count));
    HOPSIM_CUDA_CHECK_LAUNCH("unpackGhostsKernel (from the inbox)");
  }

  RawThermo localSums() override {
    HOPSIM_CUDA_CHECK(cudaSetDevice(gpu_));
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(hostScalars_, ds_, sizeof(DeviceScalars), cudaMemcpyDeviceToHost, stream_));
    HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    RawThermo t;
    t.potential = hostScalars_->potential;
    t.virial = hostScalars_->virial;
    t.twoKinetic = hostScalars_->twoKinetic;
    t.finite = hostScalars_->bad == 0 && std::isfinite(t.potential) && std::isfinite(t.virial) &&
               std::isfinite(t.twoKinetic);
    return t;
  }

  EngineStats stats() const override {
    EngineStats s = stats_;
    if (!config_.engine.timePhases) s.forceSeconds = s.integrateSeconds = std::numeric_limits<double>::quiet_NaN();
    listCounts_.report(s, a_.ncount, owned_, stats_.neighborBuilds, gpu_, stream_);
    return s;
  }

  std::string deviceName() const override { return deviceName_; }

 private:
  // Where one swap's data sits: its send list in sendIndices_ (and its packed positions at 3x that offset in the send
  // buffers), its ghost slots (and their place in the receive buffers, counted from the first ghost).
  struct SwapSlots {
    int axis = 0;
    S shift = 0;
    std::size_t sendOffset = 0, sendCount = 0;
    std::size_t first = 0, count = 0;
    // Filled by copyGhosts() from this rank's own atoms. Set by load() (the host's rebuild) only: firstHalf() tells
    // a remote swap by its mapped peerInbox instead.
    bool self = false;
    S* peerInbox = nullptr;  // where the receiver wants these positions (mapPeerInbox()), slot 0
    std::size_t peerSlotStride = 0;  // from there to its slot 1 (S elements)
  };

  // exportInbox()'s message: the receive buffer's handle, the swap's place in its slot 0 and the distance to slot 1
  // (S elements), and its ghost count.
  struct InboxHandle {
    cudaIpcMemHandle_t handle;
    std::size_t offset, slotStride, count;
  };
  static_assert(sizeof(InboxHandle) <= DomainMdDevice<S>::kInboxHandleBytes);

  // A neighbour's receive buffer as mapped here, and the handle it was mapped from.
  struct PeerInbox {
    cudaIpcMemHandle_t handle{};
    IpcMapping mapping;
  };

  // The swap's positions (+ its shift) into the receiver's inbox slot `slot`, queued.
  void queuePeerPack(std::size_t swap, int slot) {
    const SwapSlots& s = swaps_.at(swap);
    if (s.sendCount == 0) return;
    if (!s.peerInbox) throw std::logic_error("a ghost pack to the neighbour before mapPeerInbox");
    const int count = static_cast<int>(s.sendCount);
    packGhostsKernel<S, P><<<blocksFor(count), kBlock, 0, stream_>>>(a_, sendIndices_ + s.sendOffset, count, s.axis,
                                                                      s.shift, s.peerInbox + slot * s.peerSlotStride);
    HOPSIM_CUDA_CHECK_LAUNCH("packGhostsKernel (to the neighbour's inbox)");
  }

  float elapsedMs(cudaEvent_t a, cudaEvent_t b) const {
    float ms = 0;
    HOPSIM_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    return ms;
  }
  double elapsed(cudaEvent_t a, cudaEvent_t b) const { return 1e-3 * elapsedMs(a, b); }

  static int bitsFor(int cells) {
    int bits = 1;
    while ((1LL << bits) < cells) ++bits;
    return bits;
  }
  int sortBits() const { return bitsFor(ncell_); }

  // Exclusive sum of n ints.
  void scan(const int* in, int* out, int n) {
    HOPSIM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scanTemp_, scanBytes_, in, out, n, stream_));
  }

  // One or two device ints (a scan's total, a counter) read by the host. Synchronises.
  std::array<int, 2> readCounts(const int* first, const int* second) {
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(&hostCounts_[0], first, sizeof(int), cudaMemcpyDeviceToHost, stream_));
    if (second)
      HOPSIM_CUDA_CHECK(cudaMemcpyAsync(&hostCounts_[1], second, sizeof(int), cudaMemcpyDeviceToHost, stream_));
    HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return {hostCounts_[0], second ? hostCounts_[1] : 0};
  }

  // The owned atoms' moved arrays in the order `order` gives (slot k takes atom order[k]), m of them: gathered into
  // the spares, which then trade places with the arrays.
  void permuteOwned(const int* order, int m) {
    OwnedColumns<S> from{a_.x, a_.y, a_.z, a_.vx, a_.vy, a_.vz, a_.id};
    if (m > 0) {
      gatherOwnedKernel<S><<<blocksFor(m), kBlock, 0, stream_>>>(from, spare_, order, m);
      HOPSIM_CUDA_CHECK_LAUNCH("gatherOwnedKernel");
    }
    a_.x = spare_.x, a_.y = spare_.y, a_.z = spare_.z, a_.vx = spare_.vx, a_.vy = spare_.vy, a_.vz = spare_.vz;
    a_.id = spare_.id;
    spare_ = from;
    owned_ = total_ = m;
    a_.n = m;
  }

  // Device arrays grow by a quarter beyond the need, so that atoms drifting in do not reallocate at every rebuild,
  // and keep their first `keep` elements where a rebuild still needs them (the atoms so far; not forces, lists or
  // scratch, which the rebuild recomputes). The stream is drained first: nothing queued may use the old arrays.
  static std::size_t grown(std::size_t need) { return need + need / 4 + 64; }

  template <class T>
  void regrow(T*& p, std::size_t count, std::size_t keep) {
    T* q = nullptr;
    deviceAlloc(q, count);
    if (keep > 0) HOPSIM_CUDA_CHECK(cudaMemcpyAsync(q, p, keep * sizeof(T), cudaMemcpyDeviceToDevice, stream_));
    HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    deviceFree(p);
    p = q;
  }

  // Per owned atom: the atoms' own arrays (velocities, ids; their positions are per atom of all) keep `keep`.
  void growOwned(std::size_t need, std::size_t keep) {
    if (need <= ownedCap_) return;
    HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    ownedCap_ = grown(need);
    regrow(a_.vx, ownedCap_, keep), regrow(a_.vy, ownedCap_, keep), regrow(a_.vz, ownedCap_, keep);
    regrow(a_.id, ownedCap_, keep);
    for (S** p : {&a_.x0, &a_.y0, &a_.z0, &spare_.vx, &spare_.vy, &spare_.vz}) regrow(*p, ownedCap_, 0);
    for (P** p : {&a_.fx, &a_.fy, &a_.fz}) regrow(*p, ownedCap_, 0);
    regrow(spare_.id, ownedCap_, 0);
    regrow(a_.ncount, ownedCap_, 0);
    regrow(a_.nlist, static_cast<std::size_t>(a_.stride) * ownedCap_, 0);
  }

  // Per atom of all (owned and ghosts): positions and their pair-precision copy keep `keep`; sort, scan and
  // receive scratch is sized anew.
  void growTotal(std::size_t need, std::size_t keep) {
    if (need <= totalCap_) return;
    HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    totalCap_ = grown(need);
    for (S** p : {&a_.x, &a_.y, &a_.z}) regrow(*p, totalCap_, keep);
    regrow(a_.pos, totalCap_, keep);
    regrow(binnedPos_, totalCap_, 0);
    for (S** p : {&spare_.x, &spare_.y, &spare_.z}) regrow(*p, totalCap_, 0);
    for (unsigned** p : {&keys_, &keysSorted_}) regrow(*p, totalCap_, 0);
    for (int** p : {&values_, &order_}) regrow(*p, totalCap_, 0);
    for (int** p : {&flags_[0], &flags_[1], &scans_[0], &scans_[1]}) regrow(*p, totalCap_ + 1, 0);
    const int cap = static_cast<int>(totalCap_);
    std::size_t sortBytes = 0, bytes = 0;
    for (int bits : {sortBits(), bitsFor(sorterCells_)}) {
      HOPSIM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys_, keysSorted_, values_, order_, cap, 0,
                                                        bits, stream_));
      sortBytes = std::max(sortBytes, bytes);
    }
    sortBytes_ = sortBytes;
    regrow(sortTemp_, sortBytes_, 0);
    scanBytes_ = 0;
    HOPSIM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scanBytes_, flags_[0], scans_[0], cap + 1, stream_));
    regrow(scanTemp_, scanBytes_, 0);
    // Ghosts never outnumber all atoms: the receive buffers hold totalCap_ positions; on the device twice (the two
    // slots of the GPU-to-GPU refresh; the staged one uses the first).
    regrow(recvDev_, 2 * 3 * totalCap_, 0);
    if (recvHost_) HOPSIM_CUDA_CHECK(cudaFreeHost(recvHost_));
    HOPSIM_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&recvHost_), 3 * totalCap_ * sizeof(S)));
  }

  // The swaps' send lists (their first `keep` entries kept: earlier axes' lists) and packed positions.
  void growSends(std::size_t need, std::size_t keep) {
    if (need <= sendCap_) return;
    HOPSIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    sendCap_ = grown(need);
    regrow(sendIndices_, sendCap_, keep);
    regrow(sendDev_, 3 * sendCap_, 0);
    if (sendHost_) HOPSIM_CUDA_CHECK(cudaFreeHost(sendHost_));
    HOPSIM_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&sendHost_), 3 * sendCap_ * sizeof(S)));
  }

  // Pinned staging for load() and download(), at least `bytes`; grown by a quarter beyond the need, never shrunk, so
  // that rebuilds do not allocate. Callers have synchronised: no copy still reads the old buffer.
  void reserveStaging(std::size_t bytes) {
    if (bytes > staging_.size()) staging_ = PinnedBuffer<std::byte>(bytes + bytes / 4);
  }
  // Each staged array starts on its own 256-byte boundary (aligned copies).
  static std::size_t padded(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

  // Bin owned and ghost atoms, sort them by bin (indices only), find the bin ranges, build the list of every owned
  // atom (growing it when an atom has more neighbours). Synchronises once per attempt for the overflow check.
  // Bins, the positions in bin order, the list; `meanwhile` runs on the host while the first build runs (see
  // finishRebuild()). Synchronises for the overflow check, and builds again after growing the list.
  void buildList(const std::function<void()>& meanwhile = {}) {
    HOPSIM_CUDA_CHECK(cudaEventRecord(nbEv_[0], stream_));
    if (total_ > 0) {
      Arrays<S, P> all = a_;  // binning covers the ghosts too
      all.n = total_;
      binKernel<S, P, false><<<blocksFor(total_), kBlock, 0, stream_>>>(all, region_, keys_, values_);
      HOPSIM_CUDA_CHECK_LAUNCH("binKernel<region>");
      HOPSIM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(sortTemp_, sortBytes_, keys_, keysSorted_, values_, order_,
                                                        total_, 0, sortBits(), stream_));
    }
    cellStartKernel<<<blocksFor(total_ + 1), kBlock, 0, stream_>>>(keysSorted_, total_, ncell_, cellStart_);
    HOPSIM_CUDA_CHECK_LAUNCH("cellStartKernel");
    if (total_ > 0) {
      gatherKernel<<<blocksFor(total_), kBlock, 0, stream_>>>(a_.pos, binnedPos_, order_, total_);
      HOPSIM_CUDA_CHECK_LAUNCH("gatherKernel (positions in bin order)");
    }
    bool first = true;
    for (;;) {
      HOPSIM_CUDA_CHECK(cudaMemsetAsync(&ds_->overflow, 0, sizeof(int), stream_));
      if (owned_ > 0) {
        buildListRowsKernel<S, P><<<blocksFor(owned_), kBlock, 0, stream_>>>(a_, region_, cellStart_, order_,
                                                                              binnedPos_, rangeSq_, ds_);
        HOPSIM_CUDA_CHECK_LAUNCH("buildListRowsKernel");
      }
      HOPSIM_CUDA_CHECK(cudaEventRecord(nbEv_[1], stream_));
      if (first && meanwhile) meanwhile();
      first = false;
      if (listFits(a_, ownedCap_, ds_, hostScalars_, stream_)) break;
    }
    stats_.neighborSeconds += elapsed(nbEv_[0], nbEv_[1]);
    ++stats_.neighborBuilds;
  }

  void freeArrays() {
    for (S** p : {&a_.x, &a_.y, &a_.z, &a_.vx, &a_.vy, &a_.vz, &a_.x0, &a_.y0, &a_.z0}) deviceFree(*p);
    for (P** p : {&a_.fx, &a_.fy, &a_.fz}) deviceFree(*p);
    deviceFree(a_.pos), deviceFree(a_.id), deviceFree(a_.ncount), deviceFree(a_.nlist), deviceFree(binnedPos_);
    deviceFree(keys_), deviceFree(keysSorted_), deviceFree(values_), deviceFree(order_), deviceFree(sortTemp_);
    deviceFree(sendIndices_), deviceFree(sendDev_), deviceFree(recvDev_);
    for (S** p : {&spare_.x, &spare_.y, &spare_.z, &spare_.vx, &spare_.vy, &spare_.vz}) deviceFree(*p);
    deviceFree(spare_.id);
    for (int** p : {&flags_[0], &flags_[1], &scans_[0], &scans_[1]}) deviceFree(*p);
    deviceFree(scanTemp_), deviceFree(counter_);
    if (sendHost_) cudaFreeHost(sendHost_);
    if (recvHost_) cudaFreeHost(recvHost_);
    sendHost_ = recvHost_ = nullptr;
  }

  DomainDeviceConfig config_;
  int gpu_ = 0;
  std::string deviceName_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t ev_[3] = {nullptr, nullptr, nullptr};  // phase timing (timePhases)
  cudaEvent_t nbEv_[2] = {nullptr, nullptr};         // around each list build, timed in every mode
  DeviceScalars* ds_ = nullptr;
  DeviceScalars* hostScalars_ = nullptr;  // pinned
  LjCoefficients<P> coeff_;
  StepParams params_{};
  BoxParams region_{};
  P rangeSq_ = 0;
  Arrays<S, P> a_{};
  double mass_ = 1;
  int owned_ = 0, total_ = 0, ncell_ = 0;
  int smCount_ = 1;
  std::size_t ownedCap_ = 0, totalCap_ = 0, sendCap_ = 0;
  unsigned *keys_ = nullptr, *keysSorted_ = nullptr;
  int *values_ = nullptr, *order_ = nullptr, *cellStart_ = nullptr;
  typename Vec4<P>::type* binnedPos_ = nullptr;  // pair positions of all atoms in bin order (buildList)
  unsigned char* sortTemp_ = nullptr;
  std::size_t sortBytes_ = 0;
  std::vector<SwapSlots> swaps_;
  // The rebuild on the device: ownership, the host sorter's cells, the moved arrays' spares, flags and their scans,
  // the migrating atoms' messages (pinned, written and read by kernels in place).
  Ownership ownership_{};
  double* faces_ = nullptr;
  SortGrid sortGrid_{};
  int sorterCells_ = 1;
  OwnedColumns<S> spare_{};
  int* flags_[2] = {nullptr, nullptr};
  int* scans_[2] = {nullptr, nullptr};
  unsigned char* scanTemp_ = nullptr;
  std::size_t scanBytes_ = 0;
  int* counter_ = nullptr;
  PinnedBuffer<int> hostCounts_;  // readCounts()' answers
  PinnedBuffer<double> leaving_, arriving_;
  std::map<int, PeerInbox> peers_;  // by rank: the receive buffers of the neighbours this rank writes ghosts into
  int* sendIndices_ = nullptr;
  S *sendDev_ = nullptr, *recvDev_ = nullptr;    // packed positions on the device
  S *sendHost_ = nullptr, *recvHost_ = nullptr;  // and in pinned host memory, for MPI
  PinnedBuffer<std::byte> staging_;  // owned atoms and send lists between host vectors and the device, at rebuilds
  mutable ListCountCache listCounts_;
  EngineStats stats_;
};

}  // namespace

template <class S>
std::unique_ptr<DomainMdDevice<S>> makeDomainMdDevice(const DomainDeviceConfig& config) {
  const Precision p = config.engine.precision;
  if constexpr (std::is_same_v<S, float>) {
    if (p == Precision::Single) return std::make_unique<CudaDomainMdDevice<float, float, float>>(config);
  } else {
    if (p == Precision::Mixed) return std::make_unique<CudaDomainMdDevice<double, float, float>>(config);
    if (p == Precision::Double) return std::make_unique<CudaDomainMdDevice<double, double, double>>(config);
  }
  throw std::logic_error("the storage type of the atoms does not match the precision");
}

template std::unique_ptr<DomainMdDevice<float>> makeDomainMdDevice<float>(const DomainDeviceConfig&);
template std::unique_ptr<DomainMdDevice<double>> makeDomainMdDevice<double>(const DomainDeviceConfig&);

}  // namespace hopsim::md
