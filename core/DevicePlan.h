// The device choices of a run, settled once above the kernels and handed to the backends: nothing below the solvers'
// planners (solvers/common/DevicePlanner.h, solvers/lbm/LbmKernelPlanner.h) reads the case's device section, the
// command line or the environment again. The run log, run.json and the bench JSON print the plan.
#pragma once

#include <string>

#include "core/DeviceSpec.h"
#include "core/lbm/LbmTypes.h"

namespace hopsim {

namespace lbm {

// How the Hopper cluster kernel fills its tiles: TMA where the shape allows it (Auto, Tma) or plain loads.
enum class TileLoad { Auto, Tma, Plain };

// The CUDA LBM backend's bulk update (its state, boundaries, graphs and observables are the same for all):
// Portable: one cell per thread (two per thread for FP16 storage with halfPairs), every GPU from sm_80.
// HopperCluster: thread block clusters with TMA tiles and halos over DSMEM (kernels/lbm/hopper/ClusterStep.cuh).
// HopperTemporal: k steps per launch where every cell is bulk (kernels/lbm/hopper/TemporalStep.cuh).
enum class BulkUpdate { Portable, HopperCluster, HopperTemporal };

const char* toString(TileLoad t);
const char* toString(BulkUpdate b);

// What the CUDA LBM backend runs, resolved: the backend follows it and decides only what it must measure on the
// device (the cluster size from occupancy where clusterBlocks is 0, plain loads where TMA refuses the shape).
struct KernelPlan {
  BulkUpdate bulk = BulkUpdate::Portable;
  StreamingLayout layout = StreamingLayout::TwoLattice;  // TwoLattice or InPlace
  int blockThreads = 256;   // threads per block of the portable kernels: 64, 128 or 256 (the planner's choice)
  int graphSteps = 32;      // steps per captured CUDA graph (even)
  bool halfPairs = true;    // FP16 storage, portable bulk, two lattices: two cells per thread
  // Portable bulk, two lattices, one rank: the bulk kernel also updates the wall cells (bounce-back links only) in
  // its own pass where that measured faster; off: the boundary kernel does them (the one path of the Hopper kernels
  // and of decomposed boxes).
  bool wallsInBulk = true;
  // Two lattices, one rank, inlet or outlet faces: the moments of the cells on those faces computed once per step
  // in a pass of their own, so that each ghost-node link reads one population and four moments instead of its
  // inner neighbour's Q populations, where that measured faster (3-D lattices); off: every link rebuilds them (the
  // one path of decomposed boxes).
  bool openMoments = true;
  // With wallsInBulk and openMoments: the bulk kernel also updates the inlet and outlet face cells (their ghost
  // links read the face moments, computed before it), so that a step without forces has no boundary kernel. FP32
  // storage on 3-D lattices with 32-bit indices only (the kernel is compiled for that case). Off unless asked: it
  // measured slower (LbmKernelPlanner.cpp, openInBulkMeasuredFaster).
  bool openInBulk = false;
  // With openMoments, the portable bulk update one cell per thread (or the temporal kernel) and an inlet and an
  // outlet on the two faces of one axis: the face pass also writes each face's ghost values into the slots of the
  // opposite face's cells that a face cell's link pulls through the wrap, so that the inlet and outlet cells are bulk
  // or wall cells of the bulk kernel's pass (openWrapFaces(), kernels/lbm/LbmBackend.h; the backend checks the
  // geometry). On where it measured faster (LbmKernelPlanner.cpp, openWrapMeasuredFaster: 3-D lattices), and for
  // the temporal kernel, which runs inlets and outlets only so.
  bool openWrap = false;
  // With openWrap and wallsInBulk: the bulk kernel's face cells store the face pass's values of the state it writes
  // and write their ghost values into it (keepFaceCell(), kernels/lbm/cuda/CellUpdate.cuh), so that a step after a
  // step without forces runs neither the face pass nor the copy; they then run only for the first step, after a
  // load, after a step with forces or a sample, and (the copy) after the state was read. Off unless asked until
  // measured (LbmKernelPlanner.cpp, keepFacesMeasuredFaster).
  bool keepFaces = false;
  // One rank: the small kernels of a step (face moments, boundary cells, curved cells) on a second stream of the
  // highest priority, beside the bulk update instead of after it (they write other cells, and their latency-bound
  // chains then hide under the bulk kernel's time); off: all on one stream, one after the other.
  bool sideStream = true;
  // With sideStream: the side stream's list kernels launch at most this many blocks, each thread taking several
  // cells; 0 (the default): one thread per cell. An experiment's override: every cap measured slower on the 3-D
  // channel (docs/performance.md, "The side stream's list kernels on fewer blocks").
  int sideBlocks = 0;
  // The steps' CUDA graphs keep the priorities of the streams they were captured from (the side stream's, above),
  // instead of running every node at the priority of the stream they are launched into (CUDA's default, under
  // which the side stream's kernels waited behind the bulk kernel's blocks). Off only to measure what it is worth.
  bool graphPriority = true;
  // One rank: a step whose state is sampled (observables) sums them in a variant of the portable bulk kernel as it
  // stores the populations, instead of a pass of the observables kernel over the state after it (FP32 storage, two
  // lattices, one cell per thread, 32-bit indices: the variant is compiled for that; LbmBackend::advanceSampled).
  bool sampleInStep = true;
  int clusterBlocks = 0;    // HopperCluster: 2, 4, 8 or 16 blocks per cluster; 0: the most resident cells
  TileLoad tileLoad = TileLoad::Auto;
  int stepsPerLaunch = 1;   // HopperTemporal: 1, 2 or 4
  int temporalCluster = 1;  // HopperTemporal: blocks per cluster (4 or 8 only for 3-D lattices at 2 steps)
  // HopperTemporal with wrapped inlet and outlet faces (its Open variant, D2Q9 at 4 steps): resident blocks per SM
  // asked of the compiler, 3 (76-80 registers, no spills) or 4 (64 registers, spills); 3 measured faster on the
  // H100 (the 2-D channel with a cylinder, 63,066 against 59,850 MLUPS; LbmKernelPlanner.cpp).
  int temporalOpenBlocks = 3;
  // Portable bulk kernel one cell per thread, two lattices: a block first asks L2 for what the block this many waves
  // of resident blocks later in launch order will read (its cells' classes and pulls; kernels/lbm/cuda/
  // L2Prefetch.cuh), so that those loads find L2 instead of waiting on DRAM. 0: no prefetch. The planner asks for 1
  // where that measured faster (FP16 storage on bounded 3-D boxes; LbmKernelPlanner.cpp).
  int prefetchWaves = 0;
  std::string note;         // what the plan did not do that was asked for, e.g. "in-place layout not used: ..."
};

}  // namespace lbm

// Overrides for experiments, from the environment (bench/README.md lists them). readDeviceOverrides() in
// solvers/common/DevicePlanner.cpp is the one place that reads them; zero / Auto / -1 = not set (the step count
// unset is kStepsAuto, as HOPSIM_HOPPER_STEPS=auto).
struct DeviceOverrides {
  static constexpr int kStepsAuto = -2, kStepsOff = -1;
  lbm::StreamingLayout layout = lbm::StreamingLayout::Auto;  // HOPSIM_LBM_LAYOUT=two-lattice|in-place|auto
  int blockThreads = 0;                  // HOPSIM_LBM_BLOCK_THREADS=64|128|256
  int graphSteps = 0;                    // HOPSIM_LBM_GRAPH_STEPS=N
  int halfPairs = -1;                    // HOPSIM_LBM_HALF_PAIRS=0|1
  int wallsInBulk = -1;                  // HOPSIM_LBM_WALLS_IN_BULK=0|1
  int openMoments = -1;                  // HOPSIM_LBM_OPEN_MOMENTS=0|1
  int openInBulk = -1;                   // HOPSIM_LBM_OPEN_IN_BULK=0|1
  int openWrap = -1;                     // HOPSIM_LBM_OPEN_WRAP=0|1
  int keepFaces = -1;                    // HOPSIM_LBM_KEEP_FACES=0|1
  int sideStream = -1;                   // HOPSIM_LBM_SIDE_STREAM=0|1
  int sideBlocks = -1;                   // HOPSIM_LBM_SIDE_BLOCKS=N (0: one thread per cell; -1: not set)
  int graphPriority = -1;                // HOPSIM_LBM_GRAPH_PRIORITY=0|1
  int sampleInStep = -1;                 // HOPSIM_LBM_SAMPLE_IN_STEP=0|1
  int hopperCluster = 0;                 // HOPSIM_HOPPER_CLUSTER=2|4|8|16
  lbm::TileLoad tileLoad = lbm::TileLoad::Auto;  // HOPSIM_HOPPER_TILE_LOAD=tma|plain|auto
  int hopperSteps = kStepsAuto;          // HOPSIM_HOPPER_STEPS=1|2|4|auto|off
  int temporalCluster = 0;               // HOPSIM_HOPPER_TEMPORAL_CLUSTER=1|4|8
  int temporalOpenBlocks = 0;            // HOPSIM_HOPPER_OPEN_BLOCKS=3|4
  int prefetchWaves = -1;                // HOPSIM_LBM_PREFETCH_WAVES=0|1|2|4
  bool skipHalo = false;                 // HOPSIM_LBM_SKIP_HALO=1: decomposed runs without the exchange (wrong results)
  int cpuCellsPerThread = -1;            // HOPSIM_CPU_CELLS_PER_THREAD=N (LbmSetup::cellsPerThread; -1: not set)
  int mdThreadsPerAtom = 0;              // HOPSIM_MD_THREADS_PER_ATOM=1|2|4|8|16|32 (EngineConfig::forceThreadsPerAtom)
  bool mdHostRebuild = false;            // HOPSIM_MD_HOST_REBUILD=1 (EngineConfig::rebuildOnHost)
};

struct DevicePlan {
  Backend backend = Backend::Cpu;                   // cpu or cuda, never auto
  KernelVariant kernels = KernelVariant::Portable;  // portable or hopper, never auto
  int gpu = -1;                                     // CUDA device index; -1 on the cpu backend
  HaloTransport halo = HaloTransport::Auto;         // decomposed LBM runs settle auto once the neighbours are known
  std::string why;                                  // how backend and kernels were chosen, for the log
  lbm::KernelPlan lbm;                              // LBM on cuda
  DeviceOverrides overrides;
};

}  // namespace hopsim
