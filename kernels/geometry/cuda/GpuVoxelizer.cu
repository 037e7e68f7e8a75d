// Scan-line voxelisation on the GPU, the CPU voxeliser's algorithm (core/geometry/MeshVoxelizer.cpp) laid out for
// many threads:
//   1. one thread per triangle: the rows its y-z bounding box covers (scanline::rowRange) and how many;
//   2. a scan of those counts numbers the (triangle, row) pairs; one thread per pair writes its row key;
//   3. a stable radix sort by row groups each row's triangles together, in ascending triangle order as on the CPU;
//   4. one thread per pair: what the row's line meets of the triangle (scanline::meetTriangle);
//   5. one warp per row: a cell is inside where an odd number of crossings lie before its centre, or a crossing lies
//      exactly at it, or an on-surface range holds it. That is the CPU's rule (sort the crossings, fill between
//      pairs, fill the on-surface ranges) without the sort: with the crossings sorted as x_0 <= x_1 <= ..., a
//      centre c lies in some [x_2n, x_2n+1] exactly when #{x < c} is odd or some x == c.
// Every decision and every rounded number comes from core/geometry/ScanLine.h, compiled here with -fmad=false
// (CMakeLists.txt) as the host's copy is with -ffp-contract=off, so each cell gets the CPU's answer.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <iomanip>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

#include "core/geometry/ScanLine.h"
#include "kernels/common/DeviceBuffer.cuh"
#include "kernels/geometry/GpuVoxelizer.h"

namespace hopsim::geometry {
namespace {

using scanline::HitKind;
using scanline::TriangleView;

constexpr int kThreads = 256;
constexpr int kWarpsPerBlock = kThreads / 32;
// Cells of a row each lane classifies per pass over the row's hits: the hits are read once per pass, and the
// pass's counters stay in registers.
constexpr int kCellsPerLane = 8;

unsigned blocksFor(unsigned long long n, int threads = kThreads) {
  // Grid-stride kernels: enough blocks to fill any current GPU, never more than the work needs.
  const unsigned long long blocks = (n + threads - 1) / threads;
  return static_cast<unsigned>(blocks < 65536 ? (blocks ? blocks : 1) : 65536);
}

struct Box {
  long long ox, oy, oz;
  long long nx, ny, nz;
};

__global__ void triangleRowsKernel(const double* __restrict__ tris, unsigned long long triangles, Box box,
                                   int4* __restrict__ ranges, unsigned long long* __restrict__ pairs,
                                   int* __restrict__ nonFinite) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long t = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; t < triangles;
       t += stride) {
    const TriangleView tri{tris + 9 * t};
    bool finite = true;
    for (int i = 0; i < 9; ++i) finite = finite && isfinite(tri.v[i]);
    long long j0 = 0, j1 = -1, k0 = 0, k1 = -1;
    if (finite)
      scanline::rowRange(tri, box.oy, box.ny, box.oz, box.nz, j0, j1, k0, k1);
    else
      atomicExch(nonFinite, 1);
    const bool any = j1 >= j0 && k1 >= k0;
    ranges[t] = make_int4(static_cast<int>(j0), static_cast<int>(j1), static_cast<int>(k0), static_cast<int>(k1));
    pairs[t] = any ? static_cast<unsigned long long>(j1 - j0 + 1) * static_cast<unsigned long long>(k1 - k0 + 1) : 0;
  }
}

// first[t] is the first pair number of triangle t (an exclusive scan, first[triangles] the total).
__global__ void expandPairsKernel(const unsigned long long* __restrict__ first, unsigned long long triangles,
                                  const int4* __restrict__ ranges, long long ny, unsigned long long total,
                                  unsigned* __restrict__ rowOf, unsigned* __restrict__ triangleOf) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long n = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; n < total;
       n += stride) {
    // The last triangle whose first pair is at or before n: triangles with no rows share their first with the next.
    unsigned long long lo = 0, hi = triangles - 1;
    while (lo < hi) {
      const unsigned long long mid = (lo + hi + 1) / 2;
      if (first[mid] <= n)
        lo = mid;
      else
        hi = mid - 1;
    }
    const int4 r = ranges[lo];
    const unsigned long long local = n - first[lo];
    const unsigned long long width = static_cast<unsigned long long>(r.y - r.x + 1);
    const long long j = r.x + static_cast<long long>(local % width);
    const long long k = r.z + static_cast<long long>(local / width);
    rowOf[n] = static_cast<unsigned>(j + ny * k);
    triangleOf[n] = static_cast<unsigned>(lo);
  }
}

// start[r] = the first sorted pair of row r (a lower bound in the sorted row keys), for r in [0, rows].
__global__ void rowStartsKernel(const unsigned* __restrict__ sortedRows, unsigned long long total,
                                unsigned long long rows, unsigned* __restrict__ start) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long r = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; r <= rows;
       r += stride) {
    unsigned long long lo = 0, hi = total;
    while (lo < hi) {
      const unsigned long long mid = (lo + hi) / 2;
      if (sortedRows[mid] < r)
        lo = mid + 1;
      else
        hi = mid;
    }
    start[r] = static_cast<unsigned>(lo);
  }
}

__global__ void meetKernel(const double* __restrict__ tris, const unsigned* __restrict__ sortedRows,
                           const unsigned* __restrict__ sortedTriangles, unsigned long long total, Box box,
                           unsigned char* __restrict__ kind, double2* __restrict__ range) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long n = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; n < total;
       n += stride) {
    const long long row = sortedRows[n];
    const scanline::Point2 p{scanline::centre(box.oy, row % box.ny), scanline::centre(box.oz, row / box.ny)};
    const scanline::RowHit hit =
        scanline::meetTriangle(TriangleView{tris + 9 * static_cast<unsigned long long>(sortedTriangles[n])}, p);
    kind[n] = static_cast<unsigned char>(hit.kind);
    range[n] = make_double2(hit.lo, hit.hi);
  }
}

// One warp per row. oddRow takes (row << 32 | crossings) of the first row whose line crosses the surface an odd
// number of times; that row stays empty, as on the CPU.
__global__ void fillRowsKernel(const unsigned* __restrict__ start, const unsigned char* __restrict__ kind,
                               const double2* __restrict__ range, Box box, unsigned char* __restrict__ solid,
                               unsigned long long* __restrict__ oddRow) {
  const int lane = threadIdx.x & 31;
  const unsigned long long rows = static_cast<unsigned long long>(box.ny) * static_cast<unsigned long long>(box.nz);
  const unsigned long long warps = static_cast<unsigned long long>(gridDim.x) * kWarpsPerBlock;
  for (unsigned long long row = static_cast<unsigned long long>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
       row < rows; row += warps) {
    const unsigned first = start[row], last = start[row + 1];
    unsigned crossings = 0;
    for (unsigned n = first + lane; n < last; n += 32)
      crossings += kind[n] == static_cast<unsigned char>(HitKind::Crossing) ? 1 : 0;
    crossings = __reduce_add_sync(0xffffffffu, crossings);
    const bool odd = (crossings & 1) != 0;
    if (odd && lane == 0) atomicMin(oddRow, (row << 32) | crossings);
    unsigned char* line = solid + row * static_cast<unsigned long long>(box.nx);
    for (long long base = 0; base < box.nx; base += 32 * kCellsPerLane) {
      double c[kCellsPerLane];
      unsigned before[kCellsPerLane];
      bool inside[kCellsPerLane];
#pragma unroll
      for (int s = 0; s < kCellsPerLane; ++s) {
        c[s] = scanline::centre(box.ox, base + lane + 32 * s);
        before[s] = 0;
        inside[s] = false;
      }
      if (!odd) {
        for (unsigned n = first; n < last; ++n) {
          const unsigned char k = kind[n];
          if (k == static_cast<unsigned char>(HitKind::None)) continue;
          const double2 r = range[n];
          if (k == static_cast<unsigned char>(HitKind::Crossing)) {
#pragma unroll
            for (int s = 0; s < kCellsPerLane; ++s) {
              before[s] += r.x < c[s] ? 1 : 0;
              inside[s] = inside[s] || r.x == c[s];
            }
          } else {
#pragma unroll
            for (int s = 0; s < kCellsPerLane; ++s) inside[s] = inside[s] || (r.x <= c[s] && c[s] <= r.y);
          }
        }
      }
#pragma unroll
      for (int s = 0; s < kCellsPerLane; ++s) {
        const long long i = base + lane + 32 * s;
        if (i < box.nx) line[i] = (inside[s] || (before[s] & 1) != 0) ? 1 : 0;
      }
    }
  }
}

// Messages without fmt: nvcc 13 rejects fmt 9's compile-time format strings.
template <class... Parts>
std::string text(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

double elapsedMs(const CudaEvent& from, const CudaEvent& to) { return static_cast<double>(to.since(from)); }

std::string gib(double bytes) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(2) << bytes / double(1ull << 30) << " GiB";
  return out.str();
}

// Refuses, before allocating, what the device cannot hold (with a margin for the runtime and CUB's scratch).
void checkDeviceMemory(double needed, const std::string& what) {
  std::size_t freeBytes = 0, totalBytes = 0;
  HOPSIM_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
  const double margin = 64.0 * (1 << 20);
  if (needed + margin > static_cast<double>(freeBytes))
    throw std::runtime_error(text("GPU voxelisation: ", what, " needs ", gib(needed), " of GPU memory, ",
                                  gib(static_cast<double>(freeBytes)), " free of ",
                                  gib(static_cast<double>(totalBytes))));
}

}  // namespace

bool gpuVoxelizerBuilt() { return true; }

std::vector<std::uint8_t> voxelizeOnGpu(const TriangleMesh& mesh, std::array<long long, 3> origin,
                                        std::array<long long, 3> count, int device, GpuVoxelizeTimes* times) {
  static_assert(sizeof(Triangle) == 9 * sizeof(double), "the triangles are copied to the device as 9 doubles each");
  for (long long n : count)
    if (n < 0) throw std::invalid_argument(text("voxelize: negative cell count ", n));
  const long long nx = count[0], ny = count[1], nz = count[2];
  std::vector<std::uint8_t> solid(static_cast<std::size_t>(nx * ny * nz), 0);
  if (times) *times = GpuVoxelizeTimes{};
  if (solid.empty() || mesh.triangles.empty()) return solid;
  const unsigned long long triangles = mesh.triangles.size();
  const unsigned long long rows = static_cast<unsigned long long>(ny) * static_cast<unsigned long long>(nz);
  if (triangles > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument(text("voxelize: ", triangles, " triangles are more than 2^32"));
  // CUB's scan counts items in an int here.
  if (triangles >= static_cast<unsigned long long>(std::numeric_limits<int>::max()))
    throw std::runtime_error(text("GPU voxelisation: ", triangles, " triangles are more than it scans (2^31)"));
  // Row keys and row starts are 32-bit, row ranges 32-bit ints.
  if (rows >= std::numeric_limits<std::uint32_t>::max() || ny > std::numeric_limits<int>::max() ||
      nz > std::numeric_limits<int>::max())
    throw std::invalid_argument(text("GPU voxelisation: ", ny, " x ", nz, " rows are more than it numbers"));
  int devices = 0;
  HOPSIM_CUDA_CHECK(cudaGetDeviceCount(&devices));
  if (device < 0 || device >= devices)
    throw std::runtime_error(text("GPU voxelisation: no CUDA device ", device, " (", devices, " present)"));
  HOPSIM_CUDA_CHECK(cudaSetDevice(device));

  const std::string what = text(triangles, " triangles into ", nx, " x ", ny, " x ", nz, " cells");
  // Step 1's buffers and the cells, sized from the mesh and the box alone.
  checkDeviceMemory(double(triangles) * (9 * sizeof(double) + sizeof(int4) + 2 * sizeof(unsigned long long)) +
                        double(solid.size()) + double(rows + 1) * sizeof(unsigned),
                    what);
  CudaStream stream;
  CudaEvent eStart, eUploaded, eIndexed, eFilled, eDone;
  DeviceBuffer<double> tris(9 * triangles);
  DeviceBuffer<int4> ranges(triangles);
  DeviceBuffer<unsigned long long> pairs(triangles), first(triangles + 1);
  DeviceBuffer<unsigned long long> oddRow(1);
  DeviceBuffer<int> nonFinite(1);
  const Box box{origin[0], origin[1], origin[2], nx, ny, nz};

  eStart.record(stream.get());
  HOPSIM_CUDA_CHECK(
      cudaMemcpyAsync(tris.get(), mesh.triangles.data(), tris.bytes(), cudaMemcpyHostToDevice, stream.get()));
  eUploaded.record(stream.get());
  HOPSIM_CUDA_CHECK(cudaMemsetAsync(oddRow.get(), 0xff, sizeof(unsigned long long), stream.get()));
  nonFinite.zero(stream.get());
  triangleRowsKernel<<<blocksFor(triangles), kThreads, 0, stream.get()>>>(tris.get(), triangles, box, ranges.get(),
                                                                          pairs.get(), nonFinite.get());
  HOPSIM_CUDA_CHECK_LAUNCH("triangleRowsKernel");
  // first = 0, then the inclusive sum of the pair counts.
  HOPSIM_CUDA_CHECK(cudaMemsetAsync(first.get(), 0, sizeof(unsigned long long), stream.get()));
  std::size_t scanBytes = 0;
  HOPSIM_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, scanBytes, pairs.get(), first.get() + 1,
                                                  static_cast<int>(triangles), stream.get()));
  DeviceBuffer<unsigned char> scanScratch(scanBytes);
  HOPSIM_CUDA_CHECK(cub::DeviceScan::InclusiveSum(scanScratch.get(), scanBytes, pairs.get(), first.get() + 1,
                                                  static_cast<int>(triangles), stream.get()));
  unsigned long long total = 0;
  int badCoordinate = 0;
  HOPSIM_CUDA_CHECK(
      cudaMemcpyAsync(&total, first.get() + triangles, sizeof(total), cudaMemcpyDeviceToHost, stream.get()));
  HOPSIM_CUDA_CHECK(
      cudaMemcpyAsync(&badCoordinate, nonFinite.get(), sizeof(int), cudaMemcpyDeviceToHost, stream.get()));
  stream.synchronize();
  if (badCoordinate) throw std::invalid_argument("GPU voxelisation: the mesh has a non-finite coordinate");
  // CUB's radix sort counts items in an int here; the pairs are also numbered in 32 bits in the row starts.
  if (total >= static_cast<unsigned long long>(std::numeric_limits<int>::max()))
    throw std::runtime_error(
        text("GPU voxelisation: ", what, " files ", total, " (triangle, row) pairs, more than 2^31"));

  DeviceBuffer<unsigned char> solidDevice(solid.size());
  DeviceBuffer<unsigned> start(rows + 1);
  int endBit = 1;
  while (endBit < 32 && (1ull << endBit) < rows) ++endBit;
  std::size_t sortBytes = 0;
  cub::DoubleBuffer<unsigned> noKeys(nullptr, nullptr), noValues(nullptr, nullptr);
  HOPSIM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sortBytes, noKeys, noValues, static_cast<int>(total), 0,
                                                    endBit, stream.get()));
  // The pairs' buffers: row and triangle, twice for the sort, then the hit of each pair.
  checkDeviceMemory(
      double(total) * (4 * sizeof(unsigned) + sizeof(unsigned char) + sizeof(double2)) + double(sortBytes),
      text(what, " (", total, " (triangle, row) pairs)"));
  DeviceBuffer<unsigned> rowA(total), rowB(total), triA(total), triB(total);
  DeviceBuffer<unsigned char> sortScratch(sortBytes), kind(total);
  DeviceBuffer<double2> hit(total);
  if (total > 0) {
    expandPairsKernel<<<blocksFor(total), kThreads, 0, stream.get()>>>(first.get(), triangles, ranges.get(), ny, total,
                                                                       rowA.get(), triA.get());
    HOPSIM_CUDA_CHECK_LAUNCH("expandPairsKernel");
  }
  cub::DoubleBuffer<unsigned> keys(rowA.get(), rowB.get()), values(triA.get(), triB.get());
  if (total > 0)
    HOPSIM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(sortScratch.get(), sortBytes, keys, values,
                                                      static_cast<int>(total), 0, endBit, stream.get()));
  rowStartsKernel<<<blocksFor(rows + 1), kThreads, 0, stream.get()>>>(keys.Current(), total, rows, start.get());
  HOPSIM_CUDA_CHECK_LAUNCH("rowStartsKernel");
  eIndexed.record(stream.get());
  if (total > 0) {
    meetKernel<<<blocksFor(total), kThreads, 0, stream.get()>>>(tris.get(), keys.Current(), values.Current(), total,
                                                                box, kind.get(), hit.get());
    HOPSIM_CUDA_CHECK_LAUNCH("meetKernel");
  }
  fillRowsKernel<<<blocksFor(rows, kWarpsPerBlock), kThreads, 0, stream.get()>>>(start.get(), kind.get(), hit.get(),
                                                                                 box, solidDevice.get(), oddRow.get());
  HOPSIM_CUDA_CHECK_LAUNCH("fillRowsKernel");
  eFilled.record(stream.get());
  unsigned long long odd = 0;
  HOPSIM_CUDA_CHECK(
      cudaMemcpyAsync(solid.data(), solidDevice.get(), solid.size(), cudaMemcpyDeviceToHost, stream.get()));
  HOPSIM_CUDA_CHECK(cudaMemcpyAsync(&odd, oddRow.get(), sizeof(odd), cudaMemcpyDeviceToHost, stream.get()));
  eDone.record(stream.get());
  stream.synchronize();
  if (odd != std::numeric_limits<unsigned long long>::max()) {
    const long long row = static_cast<long long>(odd >> 32);
    throw std::invalid_argument(text("voxelize: the line along x through (y, z) = (",
                                     scanline::centre(origin[1], row % ny), ", ", scanline::centre(origin[2], row / ny),
                                     ") crosses the surface ", odd & 0xffffffffull,
                                     " times, an odd number: the mesh is not closed (checkClosed says where)"));
  }
  if (times) {
    times->uploadMs = elapsedMs(eStart, eUploaded);
    times->indexMs = elapsedMs(eUploaded, eIndexed);
    times->rowsMs = elapsedMs(eIndexed, eFilled);
    times->downloadMs = elapsedMs(eFilled, eDone);
    times->totalMs = elapsedMs(eStart, eDone);
    times->items = total;
  }
  return solid;
}

}  // namespace hopsim::geometry
