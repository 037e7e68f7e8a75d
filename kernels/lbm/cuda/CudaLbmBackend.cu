// makeCudaBackend: picks the lattice's portable or Hopper CUDA backend and resolves the layout and launch options.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "kernels/lbm/cuda/CudaLbmFactory.h"

namespace hopsim::lbm {
namespace {

// The layout used when neither the setup nor HOPSIM_LBM_LAYOUT names one (see docs/performance.md for the
// measurement that decides it).
constexpr StreamingLayout kDefaultLayout = StreamingLayout::TwoLattice;

StreamingLayout layoutFromEnvironment() {
  const char* v = std::getenv("HOPSIM_LBM_LAYOUT");
  if (!v || !*v) return StreamingLayout::Auto;
  const std::string s = v;
  if (s == "two-lattice") return StreamingLayout::TwoLattice;
  if (s == "in-place") return StreamingLayout::InPlace;
  if (s == "auto") return StreamingLayout::Auto;
  throw std::runtime_error("HOPSIM_LBM_LAYOUT=" + s + ": expected two-lattice, in-place or auto");
}

int intFromEnvironment(const char* name, int fallback, int lo, int hi) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  if (*end || x < lo || x > hi)
    throw std::runtime_error(std::string(name) + "=" + v + ": expected an integer in [" + std::to_string(lo) + ", " +
                             std::to_string(hi) + "]");
  return static_cast<int>(x);
}

// HOPSIM_HOPPER_TILE_LOAD=tma|plain|auto: how the Hopper cluster kernel fills its tiles (auto: TMA where it can).
HopperLbmOptions::TileLoad tileLoadFromEnvironment() {
  const char* v = std::getenv("HOPSIM_HOPPER_TILE_LOAD");
  if (!v || !*v) return HopperLbmOptions::TileLoad::Auto;
  const std::string s = v;
  if (s == "tma") return HopperLbmOptions::TileLoad::Tma;
  if (s == "plain") return HopperLbmOptions::TileLoad::Plain;
  if (s == "auto") return HopperLbmOptions::TileLoad::Auto;
  throw std::runtime_error("HOPSIM_HOPPER_TILE_LOAD=" + s + ": expected tma, plain or auto");
}

// HOPSIM_HOPPER_STEPS=1|2|4|auto|off: time steps per launch of the Hopper temporal kernel (off: the cluster kernel).
int stepsFromEnvironment() {
  const char* v = std::getenv("HOPSIM_HOPPER_STEPS");
  if (!v || !*v) return HopperLbmOptions::kTemporalAuto;
  const std::string s = v;
  if (s == "1" || s == "2" || s == "4") return std::stoi(s);
  if (s == "auto") return HopperLbmOptions::kTemporalAuto;
  if (s == "off") return HopperLbmOptions::kTemporalOff;
  throw std::runtime_error("HOPSIM_HOPPER_STEPS=" + s + ": expected 1, 2, 4, auto or off");
}

// Whether `kernels: auto` takes the Hopper backend: where its temporal kernel runs (every cell bulk: periodic on
// every axis of the lattice, no solid cell, one rank, two lattices) for a lattice and precision whose measured
// speed on the H200 beat the portable kernels (docs/performance.md, "Temporal blocking"): D2Q9 in single precision
// (4 steps per launch: 1.9x). D3Q19 stays portable (its temporal kernel measured below the portable one).
bool hopperTemporalWins(const LbmSetup& s, const CudaLbmOptions& o) {
  if (s.lattice != LatticeKind::D2Q9 || s.precision != Precision::Single) return false;
  if (o.layout != StreamingLayout::TwoLattice || s.domain.hasGhosts()) return false;
  for (int a = 0; a < 2; ++a)
    if (!s.domain.periodic[a]) return false;
  for (const std::uint8_t f : s.flags)
    if (f != kFluid) return false;
  int major = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, o.device) != cudaSuccess) {
    (void)cudaGetLastError();  // no such device: the portable backend says so clearly
    return false;
  }
  return major >= 9;
}

}  // namespace

std::unique_ptr<LbmBackend> makeCudaBackend(const LbmSetup& setup, KernelVariant variant, int device) {
  CudaLbmOptions o;
  o.device = device;
  o.layout = setup.layout;
  if (o.layout == StreamingLayout::Auto) o.layout = layoutFromEnvironment();
  if (o.layout == StreamingLayout::Auto) o.layout = kDefaultLayout;
  if (o.layout == StreamingLayout::InPlace && !inPlaceSupports(setup)) {
    o.layout = StreamingLayout::TwoLattice;
    o.note = "; in-place layout not used: inlet and outlet faces need two lattices";
  }
  o.blockThreads = intFromEnvironment("HOPSIM_LBM_BLOCK_THREADS", 256, 64, 256);
  o.graphSteps = intFromEnvironment("HOPSIM_LBM_GRAPH_STEPS", 32, 2, 4096);
  // kernels: auto takes the portable kernels except where the Hopper temporal kernel measured faster (above); the
  // Hopper cluster kernel measured 0.33-0.56 of their speed on an H200 (docs/performance.md, "Hopper kernels").
  if (variant == KernelVariant::Auto && hopperTemporalWins(setup, o)) variant = KernelVariant::Hopper;
  if (variant == KernelVariant::Hopper) {
    // Thread block clusters (kernels/lbm/hopper/); two lattices always, so no in-place fallback note here.
    o.note.clear();
    HopperLbmOptions h;
    h.clusterBlocks = intFromEnvironment("HOPSIM_HOPPER_CLUSTER", 0, 0, 16);
    h.tileLoad = tileLoadFromEnvironment();
    h.stepsPerLaunch = stepsFromEnvironment();
    h.temporalCluster = intFromEnvironment("HOPSIM_HOPPER_TEMPORAL_CLUSTER", 0, 0, 8);
    return makeHopperLbm(setup, o, h);
  }
  switch (setup.lattice) {
    case LatticeKind::D2Q9: return makeCudaLbmD2Q9(setup, o);
    case LatticeKind::D3Q19: return makeCudaLbmD3Q19(setup, o);
    case LatticeKind::D3Q27: return makeCudaLbmD3Q27(setup, o);
  }
  throw std::logic_error("unknown lattice");
}

}  // namespace hopsim::lbm
