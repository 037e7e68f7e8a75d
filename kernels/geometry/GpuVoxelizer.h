// Voxelisation of closed triangle surfaces on a CUDA device: the same bytes as geometry::voxelize
// (core/geometry/MeshVoxelizer.h) for the same mesh and box, in milliseconds where the CPU takes seconds.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/geometry/TriangleMesh.h"

namespace hopsim::geometry {

// Where the time of one GPU voxelisation went, from CUDA events on its stream (milliseconds).
struct GpuVoxelizeTimes {
  double uploadMs = 0;    // the triangles to the device
  double indexMs = 0;     // filing triangles under rows: row ranges, scan, (row, triangle) pairs, radix sort
  double rowsMs = 0;      // what each row's line meets of its triangles, and the row's cells
  double downloadMs = 0;  // the cells back to the host
  double totalMs = 0;     // first event to last (includes the host's wait for the pair count)
  std::size_t items = 0;  // (triangle, row) pairs filed
};

// True when hopsim was built with CUDA (whether a device is present is cudaDeviceCount's question).
bool gpuVoxelizerBuilt();

// geometry::voxelize on CUDA device `device`: one byte per cell of the box of `count` cells starting at cell
// `origin`, x fastest, 1 where the cell centre lies inside the closed mesh or on its surface; the same bytes as
// the CPU voxeliser, cell for cell, because both run core/geometry/ScanLine.h (compiled without FMA contraction on
// both sides). Throws std::invalid_argument where voxelize does (a line crossing the surface an odd number of
// times, more than 2^32 triangles) and for non-finite coordinates; std::runtime_error when the device lacks the
// memory it needs (said before allocating) or hopsim was built without CUDA; CudaError for a failed CUDA call.
std::vector<std::uint8_t> voxelizeOnGpu(const TriangleMesh& mesh, std::array<long long, 3> origin,
                                        std::array<long long, 3> count, int device,
                                        GpuVoxelizeTimes* times = nullptr);

}  // namespace hopsim::geometry
