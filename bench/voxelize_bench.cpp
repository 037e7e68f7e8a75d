// hopsim_voxelize_bench: how long voxelising a large closed surface takes on the CPU (geometry::voxelize) and on a
// GPU (geometry::voxelizeOnGpu), and whether both give the same cells (issue 18: a 1M-triangle surface into 512^3
// cells in under 5 s). Prints one JSON object on stdout, progress on stderr.
//
//   hopsim_voxelize_bench [--cells 512] [--shape torus|sphere] [--triangles 1000000] [--stl FILE]
//                         [--repeats 5] [--cpu-repeats 1] [--no-cpu] [--device 0]
//
// The GPU figure is the median of --repeats timed calls after one warm-up (CUDA context, first allocations), with
// its phases from CUDA events; the wall time adds what the caller pays besides (allocations, the host vector).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "core/geometry/MeshVoxelizer.h"
#include "core/geometry/TriangleMesh.h"
#include "io/StlReader.h"
#include "kernels/common/DeviceInfo.h"
#include "kernels/geometry/GpuVoxelizer.h"

namespace {

using hopsim::geometry::TriangleMesh;
using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// A torus tilted off the axes (so rows meet it at every angle) or a sphere, about the box centre, with at least
// `triangles` triangles.
TriangleMesh makeMesh(const std::string& shape, double triangles, long long cells) {
  const double n = static_cast<double>(cells);
  const hopsim::geometry::Vec3 centre{n / 2, n / 2, n / 2};
  if (shape == "sphere") {
    int s = 0;
    while (20.0 * std::pow(4.0, s) < triangles) ++s;
    return hopsim::geometry::icosphere(centre, 0.4 * n, s);
  }
  // 2 * around * across triangles with around = 2 * across: 1000 x 500 quads for 1M.
  const int across = static_cast<int>(std::ceil(std::sqrt(triangles / 4)));
  const TriangleMesh flat = hopsim::geometry::torus({0, 0, 0}, 0.3 * n, 0.12 * n, 2 * across, across);
  return hopsim::geometry::transform(flat, 1.0, {30, 20, 0}, centre);
}

}  // namespace

int main(int argc, char** argv) {
  long long cells = 512;
  std::string shape = "torus", stl;
  double triangles = 1e6;
  int repeats = 5, cpuRepeats = 1, device = 0;
  bool cpu = true;
  CLI::App app{"Voxelise a large closed surface on the CPU and on a GPU; time both and compare the cells"};
  app.add_option("--cells", cells, "cells per side of the cubic box")->check(CLI::Range(1LL, 4096LL));
  app.add_option("--shape", shape, "generated surface")->check(CLI::IsMember({"torus", "sphere"}));
  app.add_option("--triangles", triangles, "at least this many triangles")->check(CLI::PositiveNumber);
  app.add_option("--stl", stl, "an STL file instead of a generated surface")->check(CLI::ExistingFile);
  app.add_option("--repeats", repeats, "timed GPU calls after a warm-up")->check(CLI::Range(1, 1000));
  app.add_option("--cpu-repeats", cpuRepeats, "timed CPU calls")->check(CLI::Range(1, 1000));
  app.add_flag("!--no-cpu", cpu, "skip the CPU voxeliser (and the comparison)");
  app.add_option("--device", device, "CUDA device")->check(CLI::NonNegativeNumber);
  CLI11_PARSE(app, argc, argv);
  try {
    Clock::time_point t = Clock::now();
    const TriangleMesh mesh = stl.empty() ? makeMesh(shape, triangles, cells) : hopsim::io::readStl(stl);
    const double buildSeconds = secondsSince(t);
    const std::string closed = hopsim::geometry::checkClosed(mesh);
    if (!closed.empty()) throw std::runtime_error("the mesh is not closed: " + closed);
    const std::array<long long, 3> origin{0, 0, 0}, count{cells, cells, cells};
    std::fprintf(stderr, "mesh: %zu triangles (%s, %.2f s); box %lld^3\n", mesh.triangles.size(),
                 stl.empty() ? shape.c_str() : stl.c_str(), buildSeconds, cells);

    nlohmann::json out;
    out["mesh"] = {{"source", stl.empty() ? shape : stl}, {"triangles", mesh.triangles.size()}};
    out["box"] = {{"cells", {cells, cells, cells}}, {"total", cells * cells * cells}};
    std::vector<std::uint8_t> cpuCells;
    if (cpu) {
      std::vector<double> total, index, rows;
      hopsim::geometry::VoxelizeTimes times;
      for (int r = 0; r < cpuRepeats; ++r) {
        t = Clock::now();
        cpuCells = hopsim::geometry::voxelize(mesh, origin, count, &times);
        total.push_back(secondsSince(t));
        index.push_back(times.indexSeconds);
        rows.push_back(times.rowsSeconds);
        std::fprintf(stderr, "cpu: %.3f s (index %.3f s, rows %.3f s, %zu pairs)\n", total.back(), index.back(),
                     rows.back(), times.items);
      }
      long long solid = 0;
      for (std::uint8_t c : cpuCells) solid += c;
      out["cpu"] = {{"seconds", median(total)},     {"index_seconds", median(index)},
                    {"rows_seconds", median(rows)}, {"pairs", times.items},
                    {"repeats", cpuRepeats},        {"solid_cells", solid}};
    }
    if (hopsim::cudaDeviceCount() == 0) {
      std::fprintf(stderr, "gpu: no CUDA device (or hopsim built without CUDA)\n");
      out["gpu"] = nullptr;
    } else {
      const auto gpus = hopsim::cudaDevices();
      hopsim::geometry::GpuVoxelizeTimes times;
      std::vector<std::uint8_t> gpuCells = hopsim::geometry::voxelizeOnGpu(mesh, origin, count, device);  // warm-up
      std::vector<double> wall, total, upload, index, rows, download;
      for (int r = 0; r < repeats; ++r) {
        t = Clock::now();
        gpuCells = hopsim::geometry::voxelizeOnGpu(mesh, origin, count, device, &times);
        wall.push_back(secondsSince(t) * 1e3);
        total.push_back(times.totalMs);
        upload.push_back(times.uploadMs);
        index.push_back(times.indexMs);
        rows.push_back(times.rowsMs);
        download.push_back(times.downloadMs);
        std::fprintf(stderr, "gpu: %.2f ms wall, %.2f ms events (upload %.2f, index %.2f, rows %.2f, download %.2f)\n",
                     wall.back(), total.back(), upload.back(), index.back(), rows.back(), download.back());
      }
      out["gpu"] = {{"name", device < static_cast<int>(gpus.size()) ? gpus[device].name : ""},
                    {"wall_ms", median(wall)},
                    {"events_ms", median(total)},
                    {"upload_ms", median(upload)},
                    {"index_ms", median(index)},
                    {"rows_ms", median(rows)},
                    {"download_ms", median(download)},
                    {"pairs", times.items},
                    {"repeats", repeats}};
      if (cpu) {
        long long differ = 0;
        for (std::size_t i = 0; i < cpuCells.size(); ++i) differ += cpuCells[i] != gpuCells[i] ? 1 : 0;
        out["cells_differing"] = differ;
        if (differ) std::fprintf(stderr, "MISMATCH: %lld cells differ between the CPU and the GPU\n", differ);
      }
    }
    std::printf("%s\n", out.dump(2).c_str());
    return out.contains("cells_differing") && out["cells_differing"].get<long long>() != 0 ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hopsim_voxelize_bench: %s\n", e.what());
    return 1;
  }
}
