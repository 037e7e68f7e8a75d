// The CUDA LBM kernel planner's choices that follow from the case alone (set before it asks the GPU anything, so
// they can be checked on a machine without one): which cells the bulk kernel takes, by the measured rules of
// solvers/lbm/LbmKernelPlanner.cpp, what the environment's overrides change, and which Hopper bulk update a
// domain split over MPI ranks runs.
#include <cstdlib>
#include <string>

#include "CatchCompat.h"
#include "core/ExitCode.h"
#include "gpu/lbm/LbmAgreementCases.h"
#include "gpu/lbm/PlannedBackend.h"
#include "solvers/common/DevicePlanner.h"
#include "solvers/lbm/LbmKernelPlanner.h"
#include "solvers/lbm/LbmSimulation.h"

using namespace hopsim;
using namespace hopsim::lbm;
using namespace hopsim::lbm::testing;

namespace {

KernelPlan planForYaml(const std::string& yaml, DeviceOverrides o = {}) {
  DevicePlan plan;  // the cpu backend: the planner stops before the GPU's own choices
  plan.overrides = o;
  planLbmKernels(plan, buildSetup(parseCase(yaml)));
  return plan.lbm;
}

KernelPlan planFor(const std::string& lattice, const std::string& precision, Flow flow, DeviceOverrides o = {}) {
  return planForYaml(caseYaml(lattice, precision, "trt", flow), o);
}

// A box periodic on every axis of its lattice, without walls or solid cells.
std::string periodicYaml(const std::string& lattice, const std::string& cells,
                         const std::string& precision = "single") {
  return "solver: lbm\nlattice: " + lattice + "\nprecision: " + precision + "\nfluid: {tau: 0.7}\ndomain: {cells: " +
         cells + ", periodic: " + (lattice == "D2Q9" ? "[x, y]" : "[x, y, z]") + "}\nrun: {steps: 1}\n";
}

}  // namespace

TEST_CASE("LBM kernel plan: wall cells, face moments, inlet/outlet cells, sampled steps, side stream",
          "[unit][lbm]") {
  // FP16 storage on a 3-D channel: the wall cells in the pair kernel with the face moments in their own pass
  // (measured faster, 18,629 against 17,959 MLUPS), not without them (17,131 against 17,808).
  KernelPlan k = planFor("D3Q19", "half", Flow::Channel);
  CHECK(k.openMoments);
  CHECK(k.wallsInBulk);
  DeviceOverrides noMoments;
  noMoments.openMoments = 0;
  k = planFor("D3Q19", "half", Flow::Channel, noMoments);
  CHECK(!k.openMoments);
  CHECK(!k.wallsInBulk);
  // The face moments pass on 3-D lattices only; wall cells in the bulk kernel on every other bounded case.
  k = planFor("D2Q9", "single", Flow::Channel);
  CHECK(!k.openMoments);
  CHECK(k.wallsInBulk);
  CHECK(planFor("D3Q19", "half", Flow::Cavity).wallsInBulk);
  // The inlet and outlet cells in the bulk kernel: measured slower, so only when asked, and only with the wall
  // cells and the face moments there too.
  for (const std::string precision : {"double", "single", "half"}) {
    INFO(precision);
    CHECK(!planFor("D3Q19", precision, Flow::Channel).openInBulk);
  }
  DeviceOverrides asked;
  asked.openInBulk = 1;
  CHECK(planFor("D3Q19", "single", Flow::Channel, asked).openInBulk);
  asked.wallsInBulk = 0;
  CHECK(!planFor("D3Q19", "single", Flow::Channel, asked).openInBulk);
  // The face pass's ghost values wrapped into the opposite face: on 3-D lattices unless told not to (measured
  // faster), only with the face pass, and not with the inlet and outlet cells in the bulk kernel's face path.
  for (const std::string precision : {"double", "single", "half"}) {
    INFO(precision);
    CHECK(planFor("D3Q19", precision, Flow::Channel).openWrap);
    CHECK(planFor("D3Q27", precision, Flow::Channel).openWrap);
  }
  CHECK(!planFor("D2Q9", "single", Flow::Channel).openWrap);
  DeviceOverrides unwrapped;
  unwrapped.openWrap = 0;
  CHECK(!planFor("D3Q19", "single", Flow::Channel, unwrapped).openWrap);
  DeviceOverrides noFacePass;
  noFacePass.openWrap = 1;
  noFacePass.openMoments = 0;
  CHECK(!planFor("D3Q19", "single", Flow::Channel, noFacePass).openWrap);
  DeviceOverrides wrap;
  wrap.openWrap = 1;
  CHECK(!planFor("D2Q9", "single", Flow::Channel, wrap).openWrap);  // no face pass on 2-D lattices by default
  wrap.openMoments = 1;
  CHECK(planFor("D2Q9", "single", Flow::Channel, wrap).openWrap);
  CHECK(!planFor("D2Q9", "half", Flow::Channel, wrap).openWrap);  // two cells per thread
  wrap.openInBulk = 1;
  CHECK(!planFor("D3Q19", "single", Flow::Channel, wrap).openWrap);
  // The face values kept by the bulk kernel: not measured yet, so only when asked, and only with the wrap and the
  // wall cells in the bulk kernel.
  CHECK(!planFor("D3Q19", "single", Flow::Channel).keepFaces);
  DeviceOverrides keep;
  keep.keepFaces = 1;
  CHECK(planFor("D3Q19", "single", Flow::Channel, keep).keepFaces);
  CHECK(planFor("D3Q27", "half", Flow::Channel, keep).keepFaces);
  CHECK(!planFor("D2Q9", "single", Flow::Channel, keep).keepFaces);  // not wrapped by default
  CHECK(!planFor("D3Q19", "single", Flow::Cavity, keep).keepFaces);  // no open face
  keep.openWrap = 0;
  CHECK(!planFor("D3Q19", "single", Flow::Channel, keep).keepFaces);
  keep.openWrap = 1;
  keep.wallsInBulk = 0;
  CHECK(!planFor("D3Q19", "single", Flow::Channel, keep).keepFaces);
  // Sampled steps sum the observables in the bulk kernel unless told not to.
  CHECK(planFor("D3Q19", "single", Flow::Cavity).sampleInStep);
  DeviceOverrides separate;
  separate.sampleInStep = 0;
  CHECK(!planFor("D3Q19", "single", Flow::Cavity, separate).sampleInStep);
  // The side stream's list kernels: one thread per cell unless HOPSIM_LBM_SIDE_BLOCKS caps their blocks, and only
  // where there is a side stream.
  CHECK(planFor("D3Q19", "single", Flow::Channel).sideBlocks == 0);
  DeviceOverrides capped;
  capped.sideBlocks = 66;
  CHECK(planFor("D3Q19", "single", Flow::Channel, capped).sideBlocks == 66);
  capped.sideStream = 0;
  CHECK(planFor("D3Q19", "single", Flow::Channel, capped).sideBlocks == 0);
  // The graphs keep their kernels' stream priorities unless HOPSIM_LBM_GRAPH_PRIORITY=0.
  CHECK(planFor("D3Q19", "single", Flow::Channel).graphPriority);
  DeviceOverrides flat;
  flat.graphPriority = 0;
  CHECK(!planFor("D3Q19", "single", Flow::Channel, flat).graphPriority);
}

TEST_CASE("LBM kernel plan: threads per block as measured, unless asked", "[unit][lbm]") {
  const auto periodic = [](const std::string& lattice, const std::string& precision) {
    return periodicYaml(lattice, lattice == "D2Q9" ? "[32, 32]" : "[16, 16, 16]", precision);
  };
  // 128 on every D2Q9 case, on 3-D boxes with walls, obstacles or open faces, and for FP16 storage.
  for (const std::string precision : {"single", "half"}) {
    INFO(precision);
    CHECK(planForYaml(periodic("D2Q9", precision)).blockThreads == 128);
    CHECK(planFor("D2Q9", precision, Flow::Cavity).blockThreads == 128);
    CHECK(planFor("D3Q19", precision, Flow::Cavity).blockThreads == 128);
    CHECK(planFor("D3Q19", precision, Flow::Channel).blockThreads == 128);
    CHECK(planFor("D3Q27", precision, Flow::PeriodicForce).blockThreads == 128);  // an obstacle in the box
  }
  CHECK(planForYaml(periodic("D3Q19", "half")).blockThreads == 128);
  // 256 on solid-free periodic 3-D boxes in FP32 (128 measured slower) and in double precision (not measured).
  CHECK(planForYaml(periodic("D3Q19", "single")).blockThreads == 256);
  CHECK(planForYaml(periodic("D3Q27", "single")).blockThreads == 256);
  CHECK(planFor("D3Q19", "double", Flow::Cavity).blockThreads == 256);
  CHECK(planFor("D2Q9", "double", Flow::Channel).blockThreads == 256);
  DeviceOverrides asked;
  asked.blockThreads = 64;
  CHECK(planFor("D3Q19", "single", Flow::Cavity, asked).blockThreads == 64);
  asked.blockThreads = 256;
  CHECK(planFor("D2Q9", "single", Flow::Cavity, asked).blockThreads == 256);
}

TEST_CASE("LBM kernel plan: FP16 storage with two cells per thread where that measured faster", "[unit][lbm]") {
  // Every D2Q9 case; 3-D boxes only where they are periodic and solid-free (no wall cell in the bulk kernel).
  for (const Flow flow : {Flow::PeriodicForce, Flow::Channel, Flow::Cavity}) {
    INFO(flowName(flow));
    CHECK(planFor("D2Q9", "half", flow).halfPairs);
    for (const std::string lattice : {"D3Q19", "D3Q27"}) {
      INFO(lattice);
      CHECK(!planFor(lattice, "half", flow).halfPairs);
    }
  }
  CHECK(!planFor("D3Q19", "half", Flow::Duct).halfPairs);
  for (const std::string lattice : {"D3Q19", "D3Q27"}) {
    INFO(lattice);
    CHECK(planForYaml(periodicYaml(lattice, "[16, 12, 10]", "half")).halfPairs);
  }
  // The wall cells in the boundary kernel (the pair kernel then takes bulk pairs only; not measured against one cell
  // per thread on that path): two cells per thread, as before.
  DeviceOverrides wallsApart;
  wallsApart.wallsInBulk = 0;
  CHECK(planFor("D3Q19", "half", Flow::Cavity, wallsApart).halfPairs);
  // HOPSIM_LBM_HALF_PAIRS overrides the measured choice either way.
  DeviceOverrides pairs, single;
  pairs.halfPairs = 1;
  single.halfPairs = 0;
  CHECK(planFor("D3Q19", "half", Flow::Cavity, pairs).halfPairs);
  CHECK(!planFor("D2Q9", "half", Flow::Cavity, single).halfPairs);
}

TEST_CASE("LBM kernel plan: the bulk kernel's L2 prefetch where it measured faster or is asked, one cell per thread, "
          "two lattices",
          "[unit][lbm]") {
  // Measured faster (H100, 2026-12-07): one wave, FP16 storage on bounded 3-D boxes (one cell per thread there);
  // slower in FP32, on the FP16 D2Q9 one-cell kernel; not built into the pair kernel of periodic FP16 boxes.
  CHECK(planFor("D3Q19", "half", Flow::Cavity).prefetchWaves == 1);
  CHECK(planFor("D3Q19", "half", Flow::Channel).prefetchWaves == 1);
  CHECK(planFor("D3Q19", "half", Flow::PeriodicForce).prefetchWaves == 1);  // an obstacle: one cell per thread
  CHECK(planFor("D3Q19", "single", Flow::Cavity).prefetchWaves == 0);
  CHECK(planFor("D3Q27", "half", Flow::Cavity).prefetchWaves == 1);
  CHECK(planFor("D2Q9", "half", Flow::Cavity).prefetchWaves == 0);
  const KernelPlan periodic = planForYaml(periodicYaml("D3Q19", "[32, 32, 32]", "half"));
  CHECK(periodic.halfPairs);
  CHECK(periodic.prefetchWaves == 0);
  CHECK(periodic.note.find("L2 prefetch") == std::string::npos);  // not asked for: nothing to explain
  DeviceOverrides none;
  none.prefetchWaves = 0;  // HOPSIM_LBM_PREFETCH_WAVES=0
  CHECK(planFor("D3Q19", "half", Flow::Cavity, none).prefetchWaves == 0);
  DeviceOverrides ahead;
  ahead.prefetchWaves = 2;  // HOPSIM_LBM_PREFETCH_WAVES
  CHECK(planFor("D3Q19", "single", Flow::Cavity, ahead).prefetchWaves == 2);
  CHECK(planFor("D3Q19", "half", Flow::Cavity, ahead).prefetchWaves == 2);  // one cell per thread: walls in the box
  CHECK(planFor("D2Q9", "single", Flow::Channel, ahead).prefetchWaves == 2);
  // FP16 on D2Q9 runs the pair kernel, which has no prefetch, unless HOPSIM_LBM_HALF_PAIRS=0.
  const KernelPlan pairs = planFor("D2Q9", "half", Flow::Channel, ahead);
  CHECK(pairs.halfPairs);
  CHECK(pairs.prefetchWaves == 0);
  CHECK(pairs.note.find("the FP16 pair kernel has none") != std::string::npos);
  DeviceOverrides oneCell = ahead;
  oneCell.halfPairs = 0;
  CHECK(planFor("D2Q9", "half", Flow::Channel, oneCell).prefetchWaves == 2);
  // The in-place layout reads other slots: not built for it, and the plan says so.
  ahead.layout = StreamingLayout::InPlace;
  const KernelPlan k = planFor("D3Q19", "half", Flow::Cavity, ahead);
  CHECK(k.layout == StreamingLayout::InPlace);
  CHECK(k.prefetchWaves == 0);
  CHECK(k.note.find("L2 prefetch not used") != std::string::npos);
  // The environment's spelling: 0, 1, 2 or 4; anything else is an input error naming the variable.
  struct Unset {
    ~Unset() { unsetenv("HOPSIM_LBM_PREFETCH_WAVES"); }
  } unset;
  setenv("HOPSIM_LBM_PREFETCH_WAVES", "4", 1);
  CHECK(readDeviceOverrides().prefetchWaves == 4);
  setenv("HOPSIM_LBM_PREFETCH_WAVES", "3", 1);
  try {
    readDeviceOverrides();
    FAIL("HOPSIM_LBM_PREFETCH_WAVES=3 accepted");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == "HOPSIM_LBM_PREFETCH_WAVES=3: expected 0, 1, 2 or 4");
  }
}

namespace {

// This rank's part of `yaml`'s domain split in two along y (`ownedY` rows owned), ghost layers one cell deep on both
// y faces, as the solver sets it up before the plan.
LbmSetup splitAlongY(const std::string& yaml, long long ownedY) {
  const LbmCase c = parseCase(yaml);
  LbmPartition part = wholeDomain(c);
  part.count[1] = ownedY;
  part.ghost[2] = part.ghost[3] = 1;
  part.neighbor[2] = part.neighbor[3] = 1;
  return buildSetup(c, part);
}

DevicePlan hopperPlan(const LbmSetup& s, KernelVariant kernels = KernelVariant::Hopper, DeviceOverrides o = {}) {
  return plannedCudaDevice(s, kernels, o);
}

}  // namespace

TEST_CASE("LBM kernel plan: the Hopper kernels on a domain split over MPI ranks", "[unit][lbm]") {
  // A periodic D2Q9 box: the temporal kernel at 4 steps per launch, with ghost layers 4 deep.
  const std::string d2q9 = periodicYaml("D2Q9", "[64, 48]");
  DevicePlan plan = hopperPlan(splitAlongY(d2q9, 24));
  CHECK(plan.lbm.bulk == BulkUpdate::HopperTemporal);
  CHECK(plan.lbm.stepsPerLaunch == 4);
  CHECK(ghostDepth(plan.lbm) == 4);
  // A rank that owns fewer rows than the steps per launch: its neighbours' ghost layers would reach past it.
  plan = hopperPlan(splitAlongY(d2q9, 3));
  CHECK(plan.lbm.bulk == BulkUpdate::HopperCluster);
  CHECK(ghostDepth(plan.lbm) == 1);
  CHECK(plan.lbm.note.find("a rank owns 3 cells along y") != std::string::npos);
  DeviceOverrides four;
  four.hopperSteps = 4;
  CHECK_THROWS_AS(hopperPlan(splitAlongY(d2q9, 3), KernelVariant::Hopper, four), InputError);
  // D3Q19 runs one step per launch by default: split, that is the cluster kernel with the shell-first overlap;
  // two steps per launch when asked, with ghost layers 2 deep.
  const std::string d3q19 = periodicYaml("D3Q19", "[32, 24, 16]");
  CHECK(hopperPlan(splitAlongY(d3q19, 12)).lbm.bulk == BulkUpdate::HopperCluster);
  DeviceOverrides two;
  two.hopperSteps = 2;
  plan = hopperPlan(splitAlongY(d3q19, 12), KernelVariant::Hopper, two);
  CHECK(plan.lbm.bulk == BulkUpdate::HopperTemporal);
  CHECK(ghostDepth(plan.lbm) == 2);
  // Bounded boxes: the temporal kernel's wall variant where it can run (ghost layers 4 deep; auto takes it on a
  // Hopper GPU, 1.34x portable split over 2 ranks), the cluster kernel on the interior of boxes with inlets.
  plan = hopperPlan(splitAlongY(caseYaml("D3Q19", "single", "bgk", Flow::Channel), 6));
  CHECK(plan.lbm.bulk == BulkUpdate::HopperCluster);
  CHECK(ghostDepth(plan.lbm) == 1);
  plan = hopperPlan(splitAlongY(caseYaml("D2Q9", "single", "bgk", Flow::Cavity), 14));
  CHECK(plan.lbm.bulk == BulkUpdate::HopperTemporal);
  CHECK(ghostDepth(plan.lbm) == 4);
  plan = hopperPlan(splitAlongY(caseYaml("D2Q9", "single", "bgk", Flow::Cavity), 14), KernelVariant::Auto);
  CHECK((plan.lbm.bulk == BulkUpdate::HopperTemporal) == (plan.kernels == KernelVariant::Hopper));
  // The portable kernels never need deeper layers.
  CHECK(ghostDepth(hopperPlan(splitAlongY(d2q9, 24), KernelVariant::Portable).lbm) == 1);
  // auto: the temporal kernel where it measured faster split over ranks too (D2Q9 FP32, 1.94x on 2 and 4 ranks),
  // on a Hopper GPU only (on a machine without a GPU the planner knows no compute capability: portable).
  plan = hopperPlan(splitAlongY(d2q9, 24), KernelVariant::Auto);
  const bool hopperGpu = plan.kernels == KernelVariant::Hopper;
  CHECK((plan.lbm.bulk == BulkUpdate::HopperTemporal) == hopperGpu);
  CHECK(hopperPlan(splitAlongY(d2q9, 3), KernelVariant::Auto).kernels == KernelVariant::Portable);
  CHECK(hopperPlan(splitAlongY(d3q19, 12), KernelVariant::Auto).kernels == KernelVariant::Portable);
}

TEST_CASE("LBM kernel plan: the Hopper temporal kernel on boxes with walls and solids", "[unit][lbm]") {
  // Walls, a moving lid, solid obstacles: the temporal kernel's wall variant, which takes the wall cells.
  for (const Flow flow : {Flow::Cavity, Flow::PeriodicForce}) {
    INFO(flowName(flow));
    const DevicePlan plan = hopperPlan(buildSetup(parseCase(caseYaml("D2Q9", "single", "trt", flow))));
    CHECK(plan.lbm.bulk == BulkUpdate::HopperTemporal);
    CHECK(plan.lbm.stepsPerLaunch == 4);
    CHECK(plan.lbm.wallsInBulk);
  }
  // Inlet and outlet faces across x: the wall variant at 4 steps per launch (its Open variant) after the face pass
  // and the copy of its ghost values into the opposite face; 2 steps per launch is an error; auto takes it in FP32
  // on a Hopper GPU (measured 1.64x portable on the H100), the portable kernels in FP16 storage.
  DeviceOverrides two;
  two.hopperSteps = 2;
  {
    const LbmSetup s = buildSetup(parseCase(caseYaml("D2Q9", "single", "trt", Flow::Channel)));
    const KernelPlan k = hopperPlan(s).lbm;
    CHECK(k.bulk == BulkUpdate::HopperTemporal);
    CHECK(k.stepsPerLaunch == 4);
    CHECK(k.wallsInBulk);
    CHECK(k.openMoments);
    CHECK(k.openWrap);
    CHECK(!k.openInBulk);
    CHECK(!k.keepFaces);
    CHECK(k.temporalOpenBlocks == 3);  // no spills; 4 (HOPSIM_HOPPER_OPEN_BLOCKS=4) when asked
    DeviceOverrides fourBlocks;
    fourBlocks.temporalOpenBlocks = 4;
    CHECK(hopperPlan(s, KernelVariant::Hopper, fourBlocks).lbm.temporalOpenBlocks == 4);
    CHECK_THROWS_AS(hopperPlan(s, KernelVariant::Hopper, two), InputError);
    const DevicePlan autoPlan = hopperPlan(s, KernelVariant::Auto);
    CHECK((autoPlan.lbm.bulk == BulkUpdate::HopperTemporal) == (autoPlan.kernels == KernelVariant::Hopper));
    CHECK(hopperPlan(buildSetup(parseCase(caseYaml("D2Q9", "half", "trt", Flow::Channel))), KernelVariant::Auto)
              .kernels == KernelVariant::Portable);
    // D3Q19: one step per launch (its default), 2 asked is an error.
    const LbmSetup d3 = buildSetup(parseCase(caseYaml("D3Q19", "single", "trt", Flow::Channel)));
    CHECK(hopperPlan(d3).lbm.bulk == BulkUpdate::HopperTemporal);
    CHECK(hopperPlan(d3).lbm.stepsPerLaunch == 1);
    CHECK_THROWS_AS(hopperPlan(d3, KernelVariant::Hopper, two), InputError);
  }
  // Faces that cannot be wrapped (obstacles on the inlet and outlet planes), interpolated bounce-back: the cluster
  // kernel; an explicit step count is an error.
  for (const std::string& yaml :
       {openFacesYaml("D2Q9", "single", /*onPlanes=*/true), caseYaml("D2Q9", "single", "trt", Flow::Curved)}) {
    INFO(yaml);
    const LbmSetup s = buildSetup(parseCase(yaml));
    const KernelPlan k = hopperPlan(s).lbm;
    CHECK(k.bulk == BulkUpdate::HopperCluster);
    CHECK(!k.openWrap);
    CHECK_THROWS_AS(hopperPlan(s, KernelVariant::Hopper, two), InputError);
  }
  // auto: the wall variant where it measured faster (D2Q9 FP32, on a Hopper GPU; a machine without a GPU knows no
  // compute capability and plans portable), the portable kernels for FP16 storage and D3Q19.
  const DevicePlan cavity =
      hopperPlan(buildSetup(parseCase(caseYaml("D2Q9", "single", "trt", Flow::Cavity))), KernelVariant::Auto);
  CHECK((cavity.lbm.bulk == BulkUpdate::HopperTemporal) == (cavity.kernels == KernelVariant::Hopper));
  CHECK(hopperPlan(buildSetup(parseCase(caseYaml("D2Q9", "half", "trt", Flow::Cavity))), KernelVariant::Auto)
            .kernels == KernelVariant::Portable);
  CHECK(hopperPlan(buildSetup(parseCase(caseYaml("D3Q19", "single", "trt", Flow::Cavity))), KernelVariant::Auto)
            .kernels == KernelVariant::Portable);
}
