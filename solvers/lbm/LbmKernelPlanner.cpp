// The CUDA LBM kernel plan of a case: the one place that decides between the portable and Hopper kernels.
#include "solvers/lbm/LbmKernelPlanner.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "core/ExitCode.h"
#include "kernels/common/DeviceInfo.h"
#include "core/lbm/LbmCase.h"
#include "kernels/lbm/hopper/HopperSupport.h"
#include "solvers/common/DevicePlanner.h"

namespace hopsim::lbm {
namespace {

// The layout when neither the case nor HOPSIM_LBM_LAYOUT names one (docs/performance.md has the measurement).
constexpr StreamingLayout kDefaultLayout = StreamingLayout::TwoLattice;

// Steps per launch of the temporal kernel when nothing asks for a number, the fastest measured on the H200
// (docs/performance.md, "Temporal blocking"): 4 for D2Q9; 1 for D3Q19, whose 2-step kernel measured slower.
int autoTemporalSteps(LatticeKind l) { return l == LatticeKind::D2Q9 ? 4 : 1; }

int dimensionsOf(LatticeKind l) { return l == LatticeKind::D2Q9 ? 2 : 3; }

// Compute capability major of `gpu`, 0 where it does not exist (the backend then says so when it selects it).
int computeCapability(int gpu) {
  for (const GpuInfo& g : cudaDevices())
    if (g.index == gpu) return g.ccMajor;
  return 0;
}

// Whether a box has walls, moving walls or solid cells (not periodic on every axis of its lattice, or a solid flag).
bool bounded(const LbmSetup& s) {
  for (int a = 0; a < dimensionsOf(s.lattice); ++a)
    if (!s.domain.periodic[a]) return true;
  return std::any_of(s.flags.begin(), s.flags.end(), [](std::uint8_t f) { return f != kFluid; });
}

// Why the temporal kernel cannot run `s` at `steps` steps per launch, or empty where it can: bulk cells and wall
// cells (walls, moving walls and solid cells bounce back inside its levels), no interpolated bounce-back, and 32-bit
// population indices. Inlet and outlet faces only where the face pass can wrap their ghost values into the
// opposite face (openWrapFaces(): their cells are then bulk or wall cells), and at more than one step per launch
// only across x on D2Q9 at 4 steps (the kernel's Open variant, which computes those ghost values inside its levels;
// the march axis is y). A box split over MPI ranks runs it with ghost layers `steps` cells deep, exchanged after
// each launch: each rank must own at least as many cells along a split axis (its neighbours' ghost layers are its
// own cells); one step per launch is left to the cluster kernel, whose shell-first step overlaps the exchange.
std::string temporalRefusal(const LbmSetup& s, int steps) {
  if (!hopperKernelsBuilt(s.lattice, s.precision))
    return fmt::format("no temporal kernel is built for {} {}", toString(s.lattice), toString(s.precision));
  if (hasOpenFaces(s)) {
    const unsigned wrapped = openWrapFaces(s);
    if (!wrapped)
      return "its inlet and outlet faces cannot be wrapped (an inlet or outlet on both faces of one axis only, "
             "their cells fluid and without interpolated links, one rank)";
    if (steps > 1 && !(s.lattice == LatticeKind::D2Q9 && steps == 4 && wrapped == 3u))
      return fmt::format("inlet and outlet faces at {} steps per launch (they run at 4 steps across x on D2Q9, "
                         "or at one step)", steps);
  }
  if (!s.curved.cells.empty()) return "it has obstacles with interpolated bounce-back";
  double cells = 1;  // the box with its ghost layers as deep as the kernel needs
  for (int a = 0; a < 3; ++a) {
    const int lo = s.domain.ghost[2 * a], hi = s.domain.ghost[2 * a + 1];
    const int owned = s.domain.n[a] - lo - hi;
    if ((lo || hi) && steps < 2) return "one step per launch on a domain split over MPI ranks";
    if ((lo || hi) && owned < steps)
      return fmt::format("a rank owns {} cells along {}, fewer than the {} steps per launch its neighbours' ghost "
                         "layers need", owned, "xyz"[a], steps);
    cells *= owned + (lo ? steps : 0) + (hi ? steps : 0);
  }
  if (static_cast<double>(populationCount(s.lattice)) * cells > 4294967295.0) return "more than 2^32 populations";
  return {};
}

// `kernels: auto` takes the Hopper kernels only where they measured faster than the portable ones on the H200
// (docs/performance.md, "Temporal blocking", 2026-11-29): the temporal kernel, 4 steps per launch, on periodic
// solid-free D2Q9 boxes in single precision (2.0x: 109,383 vs 54,432 MLUPS at 4096^2). D3Q19's temporal kernel
// (23,632 vs 25,720 at 256^3) and the cluster kernel on every case (0.33-0.56x) measured slower. With Smagorinsky
// LES the D2Q9 temporal kernel measured 1.33x portable (60,352 vs 45,416 MLUPS at 4096^2, 2026-12-02). Split over
// ranks sharing the H200 (MPS), with ghost layers 4 deep, it measured 1.94x the portable decomposed run at 4096^2
// (2 ranks 98,034 vs 50,446 MLUPS, 4 ranks 81,107 vs 41,835; docs/performance.md, "Hopper kernels in decomposed
// runs", 2026-12-04); where a rank owns fewer than 4 cells along a split axis the temporal kernel refuses the case.
// Its wall variant (walls, a moving lid and solid cells bounced back inside the levels; docs/performance.md, "The
// temporal kernel on bounded boxes", 2026-12-04) measured faster on D2Q9 FP32 too: the cavity 4096^2 63,203 vs
// 50,701 MLUPS, the periodic box with a circle 86,956 vs 51,373; slower in FP16 storage (cavity 62,397 vs 71,137)
// and on D3Q19 (cavity 256^3 at 2 steps per launch 19,621 vs 24,649), which keep the portable kernels.
// Split over ranks sharing the H200 (MPS), the cavity 4096^2 on the wall variant measured 1.34x the portable
// decomposed run on 2 ranks (63,012 vs 46,944) and 1.36x on 4 (54,885 vs 40,417). With the collision in pair form
// (2026-12-05, docs/performance.md, "The collision in pair form"): the periodic box 127,669 vs 53,090 (2.40x), the
// cavity 79,858 vs 53,030 (1.51x); FP16 storage's cavity still slower (78,739 vs 82,021), D3Q19's cavity too (k = 1
// 23,661 vs 25,092, k = 2 17,968 vs 25,080). On an H100 (2026-12-05, docs/performance.md, "Measured on an H100"),
// the D2Q9 FP32 wall variant at four blocks per SM: the cavity 82,911 vs 38,392 (2.16x), the periodic box with a
// circle 106,318 vs 38,498 (2.76x). Boxes with inlet and outlet faces (the kernel's Open variant, 3 blocks per SM):
// the 2-D channel 8192 x 1024 with a cylinder measured 31,093 vs 37,841 on the H100 with equal segments, and with
// the seam tiles on shorter segments 63,066 vs 38,421 (1.64x; 2026-12-07, docs/performance.md, "The seam tiles on
// shorter segments"); in FP16 storage still slower (58,799 vs 68,794).
bool hopperMeasuredFaster(const LbmSetup& s, const KernelPlan& k, int cc) {
  return cc >= 9 && s.lattice == LatticeKind::D2Q9 && s.precision == Precision::Single &&
         k.layout == StreamingLayout::TwoLattice && temporalRefusal(s, autoTemporalSteps(s.lattice)).empty();
}

void planHopper(DevicePlan& plan, const LbmSetup& s, int cc) {
  KernelPlan& k = plan.lbm;
  const DeviceOverrides& o = plan.overrides;
  if (cc > 0 && cc < 9)
    throw InputError(fmt::format("device.kernels: hopper needs a Hopper GPU (compute capability 9.0 or newer: thread "
                                 "block clusters, TMA); GPU {} is {}.x: use device.kernels: portable or auto",
                                 plan.gpu, cc));
  if (k.layout == StreamingLayout::InPlace) {
    k.layout = StreamingLayout::TwoLattice;
    k.note += "; in-place layout not used: the Hopper kernels run two lattices";
  }
  if (o.hopperCluster && o.hopperCluster != 2 && o.hopperCluster != 4 && o.hopperCluster != 8 &&
      o.hopperCluster != 16)
    throw InputError(fmt::format("HOPSIM_HOPPER_CLUSTER={}: expected 2, 4, 8 or 16", o.hopperCluster));
  k.clusterBlocks = o.hopperCluster;
  k.tileLoad = o.tileLoad;
  // The temporal kernel where it can run and is not switched off, the cluster kernel elsewhere, the portable bulk
  // update where no Hopper kernel is built; a step count asked for where the temporal kernel cannot run is an error.
  const int asked = o.hopperSteps;
  const bool explicitSteps = asked == 1 || asked == 2 || asked == 4;
  const int steps = explicitSteps ? asked : autoTemporalSteps(s.lattice);
  const std::string refusal = temporalRefusal(s, steps);
  if (explicitSteps && !refusal.empty())
    throw InputError(fmt::format("HOPSIM_HOPPER_STEPS={}: the temporal kernel cannot run this case ({}); leave it "
                                 "to auto or off", asked, refusal));
  if (!hopperKernelsBuilt(s.lattice, s.precision)) {
    k.note += fmt::format("; portable bulk update: no Hopper kernel is built for {} {}", toString(s.lattice),
                          toString(s.precision));
    k.halfPairs = false;  // one cell per thread, as the Hopper kernels' fallback has always run
    return;
  }
  if (asked == DeviceOverrides::kStepsOff || !refusal.empty()) {
    k.bulk = BulkUpdate::HopperCluster;
    k.wallsInBulk = k.openInBulk = k.openWrap = k.keepFaces = false;  // the cluster kernel's tiles: bulk cells only
    if (s.domain.hasGhosts() && asked != DeviceOverrides::kStepsOff)
      k.note += "; temporal kernel not used: " + refusal;
    return;
  }
  k.bulk = BulkUpdate::HopperTemporal;
  k.wallsInBulk = bounded(s);  // the kernel's wall variant takes them, in every step without obstacle forces
  // Inlet and outlet faces: the face pass, its ghost values wrapped into the opposite face (the face cells bulk or
  // wall cells of the kernel's pass), before every launch.
  k.openMoments = k.openWrap = hasOpenFaces(s);
  k.openInBulk = k.keepFaces = false;
  k.stepsPerLaunch = steps;
  const int cluster = o.temporalCluster;
  const bool clusters = dimensionsOf(s.lattice) == 3 && k.stepsPerLaunch == 2 && !k.wallsInBulk;
  if (cluster > 1 && !(clusters && (cluster == 4 || cluster == 8)))
    throw InputError(fmt::format("HOPSIM_HOPPER_TEMPORAL_CLUSTER={}: clusters of 4 or 8 blocks run the 3-D lattices "
                                 "at 2 steps per launch, on boxes without walls or solid cells", cluster));
  k.temporalCluster = std::max(1, cluster);
  // The Open variant at 3 blocks per SM, where ptxas spills nothing, unless 4 are asked for (the 2-D channel with a
  // cylinder on the H100, 2026-12-07: 63,066 MLUPS at 3, 59,850 at 4).
  k.temporalOpenBlocks = o.temporalOpenBlocks ? o.temporalOpenBlocks : 3;
  // Graphs hold an even number of launches of k steps, so each leaves the current array where it found it.
  const int even = 2 * k.stepsPerLaunch;
  k.graphSteps = (k.graphSteps + even - 1) / even * even;
}

// Whether the wall cells measured faster in the portable bulk kernel's own pass than in the boundary kernel
// (KernelPlan::wallsInBulk), H200, 2026-12-01 (docs/performance.md, "Bounded cases"): yes on every bounded case
// (3-D cavity 256^3 FP32 24,641 vs 16,938 MLUPS, FP16 27,594 vs 18,029; 2-D cavity and cylinder channel, FP32 and
// FP16, +1-5%; 3-D channel with a cylinder FP32 16,904 vs 16,512) except FP16 storage on a 3-D lattice with inlet
// or outlet faces (the 3-D channel: 17,131 vs 17,808), where the pair kernel's wall pairs cost more than the
// boundary kernel saves while the ghost-node cells rebuild their inner neighbours' moments link by link; with the
// face moments in their own pass (`openMoments`) the wall cells measured faster there too (18,511 vs 17,798,
// 2026-12-02).
bool wallsInBulkMeasuredFaster(const LbmSetup& s, bool openMoments) {
  return openMoments || !(s.precision == Precision::Half && dimensionsOf(s.lattice) == 3 && hasOpenFaces(s));
}

// Whether the inlet and outlet face cells' moments in a pass of their own (KernelPlan::openMoments) measured faster
// than every ghost-node link rebuilding them, H200, 2026-12-02 (docs/performance.md, "Inlet and outlet faces"): on
// 3-D lattices (the channel with a cylinder, 512 x 128 x 128: FP32 16,897 -> 18,195 MLUPS, FP16 17,458 -> 17,697),
// not on 2-D ones (8192 x 1024: FP32 46,478 -> 45,929, FP16 60,629 -> 59,578), where a face cell has three ghost
// links of nine loads each and the extra launch costs more than it saves.
bool openMomentsMeasuredFaster(const LbmSetup& s) { return dimensionsOf(s.lattice) == 3; }

// Whether two cells per thread (FP16 storage, KernelPlan::halfPairs) measured faster than one, H200, 2026-12-03
// (docs/performance.md, "Two cells per thread on bounded boxes"; `hopsim bench --kernels portable`, each variant its
// own process, two rounds): yes on every D2Q9 case (periodic 4096^2 76,700 vs 67,900 MLUPS, cavity 71,110 vs 63,680)
// and on solid-free periodic 3-D boxes (D3Q19 256^3 39,685 vs 37,750, D3Q27 27,853 vs 26,170); no on 3-D boxes whose
// wall cells the bulk kernel takes (the cavity 256^3: D3Q19 27,593 vs 29,412, D3Q27 13,769 vs 17,943), where a pair
// with a wall cell holds both cells' bounce and moving-wall code and the pair kernel's 80 registers (D3Q19; 128
// for D3Q27) leave fewer warps to hide it. With the wall cells in the boundary kernel the pair kernel takes bulk
// pairs only; that path keeps two cells per thread, as before (not measured against one).
bool halfPairsMeasuredFaster(const LbmSetup& s, bool wallsInBulk) {
  if (dimensionsOf(s.lattice) == 2 || !wallsInBulk) return true;
  for (int a = 0; a < 3; ++a)
    if (!s.domain.periodic[a]) return false;
  return std::none_of(s.flags.begin(), s.flags.end(), [](std::uint8_t f) { return f != kFluid; });
}

// Whether the inlet and outlet face cells measured faster in the bulk kernel's pass than in the boundary kernel
// (KernelPlan::openInBulk), H200, 2026-12-03 (docs/performance.md, "Inlet and outlet cells in the bulk kernel"): no.
// The 3-D channel with a cylinder, FP32 (the only case the kernel is compiled for): 14,616 against 18,311 MLUPS; a
// face cell's ghost links hold its warp, and so its block, for two more memory round trips than a bulk cell's.
bool openInBulkMeasuredFaster(const LbmSetup&) { return false; }

// Whether the face pass's ghost values wrapped into the opposite face (KernelPlan::openWrap: the inlet and outlet
// cells bulk or wall cells of the bulk kernel) measured faster than the boundary kernel's face cells, H200,
// 2026-12-05 (docs/performance.md, "Inlet and outlet cells as bulk cells"): yes on 3-D lattices, where the face pass
// runs by default; the 3-D channel with a cylinder 19,364 -> 22,431 MLUPS in FP32 (staircase), 18,808 -> 21,571
// (interpolated), 27,318 -> 32,497 in FP16 storage. No on D2Q9, which has no face pass by default: with it and the
// wrap the 2-D channel ran 50,730 against 52,118 without either.
bool openWrapMeasuredFaster(const LbmSetup& s) { return dimensionsOf(s.lattice) == 3; }

// Whether the face cells of the bulk kernel keeping the next step's face values and ghost values (KernelPlan::
// keepFaces: neither the face pass nor the copy in a step after a step without forces) measured faster than both in
// every step: not measured yet. Prediction (docs/performance.md, "The face values kept by the bulk kernel"): the 3-D
// channel's face pass and copy, 31-35 us of a 374 us step on the H200, gone for a few hundred instructions of the
// bulk kernel's face lanes.
bool keepFacesMeasuredFaster(const LbmSetup&) { return false; }

// Waves of the L2 prefetch where nothing asks for a number (KernelPlan::prefetchWaves): 1 where it measured faster
// than none on the H100 (2026-12-07, docs/performance.md, "L2 prefetch ahead of the bulk kernel's blocks"; `hopsim
// bench --kernels portable`, each distance its own process, two rounds): the one-cell FP16 kernel on bounded 3-D
// boxes, D3Q19 (the cavity 256^3 30,282 -> 32,496 MLUPS, the channel with a cylinder 27,529 -> 30,031, with an
// interpolated one 26,067 -> 27,661; 2 and 4 waves slower than 1: 28,259 and 25,194 on the cavity) and D3Q27 (the
// cavity 19,716 -> 21,734, the channel 18,750 -> 20,781). None elsewhere: FP32 measured slower with it (the cavity
// 18,581 -> 15,623, which ran at 0.98 of the copy bandwidth without; the periodic D3Q19 box 18,899 -> 16,632), as did
// the one-cell FP16 D2Q9 cavity (62,740 -> 61,833); boxes split over ranks are not measured. Boxes of more than 2^32
// populations run the kernel without it (PortableBulk).
int autoPrefetchWaves(const LbmSetup& s) {
  const bool measuredFaster = s.precision == Precision::Half && dimensionsOf(s.lattice) == 3 && bounded(s);
  return measuredFaster && !s.domain.hasGhosts() ? 1 : 0;
}

// Threads per block of the portable kernels where nothing asks for a number: 128 where that measured faster than 256
// on the H200 (2026-12-04, docs/performance.md, "Blocks of 128 threads"; `hopsim bench --kernels portable`, two
// rounds): every D2Q9 case (periodic 4096^2 +2.1%, cavity +2.5%, channel with a cylinder +2.6%), 3-D boxes with
// walls, obstacles or open faces (FP32 cavity +0.7%, channel +0.6%; FP16 cavity +7.7%, channel +3.0%) and FP16
// storage on periodic 3-D boxes (+1.1%, two cells per thread); 256 where it measured slower (periodic solid-free 3-D
// boxes in FP32: D3Q19 -0.17%, D3Q27 -0.28%) or was not measured (double precision, boxes split over ranks).
int autoBlockThreads(const LbmSetup& s) {
  if (s.precision == Precision::Double || s.domain.hasGhosts()) return 256;
  if (dimensionsOf(s.lattice) == 3 && s.precision == Precision::Single && !bounded(s)) return 256;
  return 128;
}

}  // namespace

void planLbmKernels(DevicePlan& plan, const LbmSetup& s) {
  KernelPlan& k = plan.lbm;
  const DeviceOverrides& o = plan.overrides;
  k = KernelPlan{};
  k.layout = s.layout != StreamingLayout::Auto ? s.layout : o.layout;
  if (k.layout == StreamingLayout::Auto) k.layout = kDefaultLayout;
  if (const std::string refusal = inPlaceRefusal(s); k.layout == StreamingLayout::InPlace && !refusal.empty()) {
    k.layout = StreamingLayout::TwoLattice;
    k.note += "; in-place layout not used: " + refusal;
  }
  if (o.blockThreads && o.blockThreads != 64 && o.blockThreads != 128 && o.blockThreads != 256)
    throw InputError(fmt::format("HOPSIM_LBM_BLOCK_THREADS={}: expected 64, 128 or 256", o.blockThreads));
  k.blockThreads = o.blockThreads ? o.blockThreads : autoBlockThreads(s);
  k.graphSteps = o.graphSteps ? o.graphSteps + (o.graphSteps & 1) : 32;  // even: a graph ends on its start parity
  const bool momentsAsked = o.openMoments == 1 || (o.openMoments < 0 && openMomentsMeasuredFaster(s));
  k.openMoments = momentsAsked && k.layout == StreamingLayout::TwoLattice && !s.domain.hasGhosts() && hasOpenFaces(s);
  const bool wallsAsked = o.wallsInBulk == 1 || (o.wallsInBulk < 0 && wallsInBulkMeasuredFaster(s, k.openMoments));
  k.wallsInBulk = wallsAsked && k.layout == StreamingLayout::TwoLattice && !s.domain.hasGhosts();
  const bool openAsked = o.openInBulk == 1 || (o.openInBulk < 0 && openInBulkMeasuredFaster(s));
  k.openInBulk = openAsked && k.openMoments && k.wallsInBulk;
  k.halfPairs = o.halfPairs == 1 || (o.halfPairs < 0 && halfPairsMeasuredFaster(s, k.wallsInBulk));
  const bool pairKernel = k.halfPairs && s.precision == Precision::Half;  // two cells per thread: FP16 storage only
  // Not with two cells per thread: the wrapped face cells are bulk cells of the one-cell kernel.
  const bool wrapAsked = o.openWrap == 1 || (o.openWrap < 0 && openWrapMeasuredFaster(s));
  k.openWrap = wrapAsked && k.openMoments && !k.openInBulk && !pairKernel;
  const bool keepAsked = o.keepFaces == 1 || (o.keepFaces < 0 && keepFacesMeasuredFaster(s));
  k.keepFaces = keepAsked && k.openWrap && k.wallsInBulk;
  k.sideStream = o.sideStream != 0 && !s.domain.hasGhosts();
  k.sideBlocks = k.sideStream && o.sideBlocks > 0 ? o.sideBlocks : 0;
  k.graphPriority = o.graphPriority != 0;
  k.sampleInStep = o.sampleInStep != 0 && !s.domain.hasGhosts();
  // The L2 prefetch is built into the one-cell bulk kernel with two lattices (not the FP16 pair kernel).
  const int waves = o.prefetchWaves >= 0 ? o.prefetchWaves : autoPrefetchWaves(s);
  k.prefetchWaves = k.layout == StreamingLayout::TwoLattice && !pairKernel ? waves : 0;
  if (o.prefetchWaves > 0 && !k.prefetchWaves)
    k.note += pairKernel ? "; L2 prefetch not used: the FP16 pair kernel has none (HOPSIM_LBM_HALF_PAIRS=0 has it)"
                         : "; L2 prefetch not used: it is built for two lattices";
  if (plan.backend != Backend::Cuda) return;

  const int cc = computeCapability(plan.gpu);
  if (plan.kernels == KernelVariant::Auto) {
    const bool hopper = hopperMeasuredFaster(s, k, cc);
    plan.kernels = hopper ? KernelVariant::Hopper : KernelVariant::Portable;
    plan.why += hopper ? "; kernels auto: hopper (the temporal kernel measured faster than portable on D2Q9 FP32 "
                         "boxes: 2.4x periodic, 1.9x split over ranks, 1.5x the cavity, 1.6x a channel)"
                       : "; kernels auto: portable (the fastest measured for this case)";
  }
  if (plan.kernels == KernelVariant::Hopper) planHopper(plan, s, cc);
}

int ghostDepth(const KernelPlan& k) { return k.bulk == BulkUpdate::HopperTemporal ? k.stepsPerLaunch : 1; }

nlohmann::json planJson(const DevicePlan& plan) {
  nlohmann::json j = toJson(plan);
  if (plan.backend == Backend::Cuda) j["lbm"] = toJson(plan.lbm);
  return j;
}

}  // namespace hopsim::lbm
