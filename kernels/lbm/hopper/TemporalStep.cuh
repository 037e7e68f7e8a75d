// Temporal blocking for the Hopper LBM backend: K time steps per launch for boxes whose every cell is bulk
// (periodic on every axis, no solids) or, in the kernel's wall variant, bulk or a wall cell (walls, moving walls and
// solid cells bounce back inside the levels; no curved cells, and no inlets or outlets except, in the Open variant
// (D2Q9 at 4 steps on the GPU), faces wrapped as openWrapFaces() wraps them), two lattices; the
// results are those of K single steps to round-off (the same collide(), which nvcc contracts into fused multiply-adds
// a little differently inside this kernel; bitwise on the host).
// A box split over MPI ranks runs it with ghost layers K cells deep on its split faces, refreshed after each launch:
// the pulls wrap around the box's edges there too, but only ghost cells see it (the K levels of an owned cell reach
// K cells, all inside the box), and what the launch leaves in the ghost cells is overwritten by the exchange.
//
// The scheme (a 2.5-D wavefront, one block or one cluster per column of the box):
//   - a block owns a cross-section tile of x * y cells (x, y in 3-D; y = 1 in 2-D) and marches along the last axis
//     (z in 3-D, y in 2-D) through a segment of `segment` planes, one thread per tile cell;
//   - iteration j computes level 1 (one step from the source lattice) of plane j, pulling from global memory as the
//     portable kernel does (neighbour re-reads hit L1/L2; for K > 1 loaded one iteration ahead), then level 2 of
//     plane j - 1 from the level-1 planes held in shared memory, ..., level K of plane j - (K - 1), which is stored
//     to the destination lattice;
//   - level l is computed on the tile shrunk by l - 1 cells on each side of the cross-section (the pulls of level l
//     reach one cell into the level l - 1 tile), so the tile's ring of K - 1 cells is recomputed by the
//     neighbouring columns (the redundant halo work), and each segment starts K - 1 planes early and ends K - 1 late;
//   - the intermediate levels live in shared memory in rings along the march axis: population i of plane q is
//     pulled by plane q + c_i (A = march axis), i.e. in the same iteration (c_A = -1), one later (0) or two later
//     (+1), so it needs c_A + 2 ring slots, not 3: 38 instead of 57 planes of D3Q19 populations per level.
//     A barrier after each level orders the rings' writes and reads;
//   - with clusters (3-D, K = 2), Cy blocks stacked along y share one tile: a cell on a block's first or last row
//     pulls the neighbouring block's level-1 values over distributed shared memory (map_shared_rank), so only the
//     cluster's tile has a halo, and the barrier is the cluster's.
//
// DRAM traffic per cell-step: the source lattice is read once (76 B FP32 D3Q19) if the halo re-reads of the
// neighbouring columns hit L2, and the destination written once, per K steps: 152 / K B instead of 152 B. The
// arithmetic grows by the redundant halo collisions: for a 32 x 16 tile and K = 2, (512 + 420) / (2 x 420) = 1.11
// collisions per cell-step. Shared memory sets the limit: (K - 1) levels x 38 population planes x tile cells x 4 B
// = 78 KB per 512-cell block at K = 2 (one or two blocks per SM), 233 KB at K = 4 (does not fit: K = 4 takes a
// 32 x 8 tile, whose useful share is 26 x 2 / 256 = 20%). In 2-D a 256-cell row holds 18 population rows per level
// and loses 2 (K - 1) of 256 cells to the halo, so K = 4 fits four blocks per SM.
//
// Measured on the H200 (docs/performance.md, "Temporal blocking"): D2Q9 FP32 at K = 4 moves 18 B per cell-step
// instead of 72 and runs at 2.0x the one-step copy-bandwidth roofline; D3Q19 FP32 at K = 2 moves 88-103 B instead
// of 152 but stays latency-bound (1 block of 512 or 4 of 256 threads per SM, a barrier per level) at 0.82 of the
// portable kernel, and K = 4 (one 256-thread block per SM) at 0.45.
// The kernel's work is temporalColumn(), a host-device function of the block's context (its thread and block
// indices, shared memory and barrier), so that the tests can run it on host threads (test_lbm_temporal_host.cpp).
#pragma once

#ifdef __CUDACC__
#include <cooperative_groups.h>
#endif

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "kernels/lbm/cuda/CellUpdate.cuh"
#include "kernels/lbm/hopper/HopperSupport.h"

namespace hopsim::lbm::hopper {

// Ring slots population i needs in one intermediate level: c_A + 2 (A = the march axis, see above), and the
// population planes of the populations before i, which for i = Q is a level's size: 38 planes for D3Q19, 18 for
// D2Q9. Host-side sizes only: in the kernel a loop over k < i (unrolled or not) would index L::c's table at run time.
// The wall variant's layout is the same: a wall cell's bounced links also read the cell's own populations of the
// level before on its own plane, and those with c_A = -1 are overwritten by the next plane before the level above
// reads them, so the cell's thread keeps them in registers instead (the kernel's `held`); a second ring plane for
// them (21 instead of 18 planes per D2Q9 level) cost the D2Q9 FP32 kernel at 4 steps its fourth block per SM.
template <class L>
HOPSIM_HD constexpr int marchSlots(int i) {
  return L::c(i, L::D - 1) + 2;
}
template <class L>
HOPSIM_HD constexpr int marchPlanesBefore(int i) {
  int s = 0;
  for (int k = 0; k < i; ++k) s += marchSlots<L>(k);
  return s;
}

// The populations with c_A = -1: a wall cell's thread holds its own of these for the level above (see the kernel).
template <class L>
HOPSIM_HD constexpr int marchDownPopulations() {
  int s = 0;
  for (int k = 0; k < L::Q; ++k) s += L::c(k, L::D - 1) < 0 ? 1 : 0;
  return s;
}

template <class L, int K, class S>
constexpr std::size_t marchLevelBytes(int cells) {
  return static_cast<std::size_t>(K - 1) * marchPlanesBefore<L>(L::Q) * cells * sizeof(S);
}

// The cross-section tile of the temporal kernel for lattice L, K steps per launch, stored type S and Cy blocks per
// thread block cluster. Cy = 1: one block per tile, 32 x 16 cells in 3-D (32 x 8 when 16 rows of K - 1 levels would
// not fit in shared memory), 256 x 1 in 2-D. Cy = 4 or 8 (3-D): the tile is shared by a cluster of Cy blocks stacked
// along y, 32 x 8 or 64 x 4 cells each, whose intermediate levels are read across block borders through
// distributed shared memory: only the cluster's tile (32 x 32 or 64 x 32) has a halo to recompute, and each block
// needs a quarter (a half) of the 32 x 16 block's shared memory, so 4 blocks fit per SM instead of 2.
template <class L, int K, class S, int Cy = 1, bool Walls = false>
struct MarchTile {
  static_assert(Cy == 1 || (L::D == 3 && (Cy == 4 || Cy == 8)), "clusters of 4 or 8 blocks, 3-D only");
  static_assert(!Walls || Cy == 1, "walls inside the levels: one block per column");
  static constexpr int A = L::D - 1;  // the march axis
  static constexpr int haloX = K - 1;
  static constexpr int haloY = L::D == 3 ? K - 1 : 0;
  static constexpr int levelPlanes = marchPlanesBefore<L>(L::Q);
  static constexpr std::size_t kSmemLimit = 200 * 1024;  // leaves room below the 227 KB a block may have
  static constexpr int x = L::D == 2 ? 256 : (Cy == 8 ? 64 : 32);
  static constexpr int y = L::D == 2 ? 1
                           : Cy == 8 ? 4
                           : Cy == 4 ? 8
                                     : (marchLevelBytes<L, K, S>(32 * 16) <= kSmemLimit ? 16 : 8);
  static constexpr int cells = x * y;  // cells (threads) of a block
  static constexpr int rows = y * Cy;  // rows of the (cluster's) tile
  static constexpr int outX = x - 2 * haloX, outY = rows - 2 * haloY;  // cells of the tile stored at level K
  static constexpr std::size_t smemBytes = marchLevelBytes<L, K, S>(cells);
  // Whether level 1 loads its populations one plane ahead (K > 1: their latency then runs under the barriers).
  static constexpr bool prefetch = K > 1;
  // Resident blocks per SM asked of the compiler: 1024 threads per SM (a register cap of 64, as the portable
  // kernels), 768 for D3Q19 with the prefetch (85 registers: the next plane's 19 populations and a level's are live
  // together; at 64 registers ptxas spilled 74-234 bytes), fewer where the shared memory allows fewer.
  static constexpr int kSmBytes = 228 * 1024, kBlockReserve = 1024;
  static constexpr int kThreadsPerSm = prefetch && L::Q > 9 ? 768 : 1024;
  static constexpr int blocksPerSm =
      smemBytes == 0 ? kThreadsPerSm / cells
                     : (kThreadsPerSm / cells < kSmBytes / static_cast<int>(smemBytes + kBlockReserve)
                            ? kThreadsPerSm / cells
                            : kSmBytes / static_cast<int>(smemBytes + kBlockReserve));
  // The first tile after tile 0 whose cells (stored or halo) reach x = nx - 1 (or beyond, wrapped): with tile 0, the
  // seam tiles of wrapped x faces (MarchSegments).
  static int seamFrom(int nx) {
    const int from = (nx - haloX - 1) / outX;  // tile t's last cell is at (t + 1) outX + haloX - 1
    return from > 1 ? from : 1;
  }
  static_assert(outX > 0 && outY > 0, "tile too small for K steps");
  static_assert(smemBytes <= 227 * 1024, "the intermediate levels do not fit in shared memory");
};

// Resident blocks per SM asked of the compiler: the tile's, or with Open (wrapped inlet and outlet faces) at most
// `open` (KernelPlan::temporalOpenBlocks): the face cells' ring stores at 4 blocks (64 registers) spilled 52 B a
// thread in the D2Q9 FP32 4-step kernel and none at 3 (76-80 registers; ptxas, nvcc 13.0, 2026-12-05).
template <class L, int K, class S, int Cy, bool Walls, int Open>
constexpr int temporalBlocksPerSm() {
  constexpr int tile = MarchTile<L, K, S, Cy, Walls>::blocksPerSm;
  return Open > 0 && tile > Open ? Open : tile;
}

// The lattices and storage types the temporal kernel is built for (HopperSupport.h, which the planner asks), at
// K = 1, 2, 4.
template <class L, class S>
constexpr bool temporalKernelBuilt() {
  return hopperKernelsBuilt(L::kind, PopulationStorage<S>::precision);
}

// The planes of the march axis each block stores: segments of `planes`, except in the seam tiles of the Open
// variant (those whose columns hold cells of the wrapped x faces: tile 0 and the tiles from `seamFrom` on), whose
// face cells' ring stores and ghost values hold their blocks' barriers, which take segments of `seam` planes (more
// blocks, each shorter: TemporalBulk::planLaunch()). The grid has the larger count of segments; a block past the
// end of its tile's segments does nothing.
struct MarchSegments {
  int planes = 1;
  int seam = 1;
  int seamFrom = 1 << 30;
};

// The segments of a launch over `tiles` columns of `planes` planes, `resident` blocks at once, K steps: the length
// with the fewest plane-iterations per SM (waves of resident blocks x planes per block, the K - 1 planes of lead-in
// and lead-out on each side counted). With `seamTiles` seam tiles of the Open variant (from `seamFrom` on, and tile
// 0), whose planes cost `seamWeight` of another's, those take segments short enough that they take no longer than
// the others where that costs fewer plane-iterations.
inline MarchSegments planMarchSegments(int planes, long long tiles, long long seamTiles, int seamFrom, int resident,
                                       int K, double seamWeight) {
  const int lead = 2 * (K - 1);
  MarchSegments best{planes, planes, seamTiles ? seamFrom : 1 << 30};
  double bestCost = 0;
  for (int m = planes < 4 * K ? planes : 4 * K; m <= planes; ++m) {
    int balanced = static_cast<int>((m + lead) / seamWeight) - lead;
    balanced = balanced < 1 ? 1 : (balanced > m ? m : balanced);
    for (const int ms : {m, balanced}) {
      if (!seamTiles && ms != m) continue;
      const long long blocks = (tiles - seamTiles) * ((planes + m - 1) / m) + seamTiles * ((planes + ms - 1) / ms);
      const long long waves = (blocks + resident - 1) / resident;
      const double perBlock = seamTiles ? std::max<double>(m + lead, seamWeight * (ms + lead)) : m + lead;
      const double cost = static_cast<double>(waves) * perBlock;
      if (bestCost == 0 || cost < bestCost) best.planes = m, best.seam = ms, bestCost = cost;
    }
  }
  return best;
}

HOPSIM_HD int wrapIndex(int v, int n) {
  const int r = v % n;
  return r < 0 ? r + n : r;
}

// The ring stores of one level's plane by a cell on the plane of a wrapped inlet or outlet face (openWrapFaces(): the
// box runs as periodic along that axis, the face pass's ghost values in the slots of the opposite face's cells, as
// wrapOpenGhosts() leaves a state; the levels do it for themselves): its post-collision populations `f`, rounded to
// the stored type, except those that the opposite face's ghost values displace (displacedLink()), then its own ghost
// values (storeFaceValues()'s, from the rounded populations, as the face pass reads a stored state) into the
// displaced slots of the cell across the seam, the tile cell `acrossT` (-1: not in the tile). `s2`, `s3`: the
// plane's ring slots (the kernel's). Inlined: as a call (HOPSIM_HD_NOINLINE) its arguments and the caller's live
// values spilled more (ptxas, the D2Q9 FP32 4-step wall kernel with it: 144 B at 4 blocks per SM against 52 B
// inlined; at 3 blocks, 28 B against none).
template <class L, class S, class T>
HOPSIM_HD void ringFaceStores(const DomainParams<T>& p, S* level, int cells, int t, int acrossT, int s2, int s3,
                              int face, const int pos[3], const T* f) {
  using Store = PopulationStorage<S>;
  constexpr int A = L::D - 1;
  T fs[L::Q];
  int planes = 0;
HOPSIM_UNROLL
  for (int i = 0; i < L::Q; ++i) {
    const int ca = L::c(i, A), slot = ca < 0 ? 0 : (ca == 0 ? s2 : s3);
    S stored;
    Store::write(&stored, f[i]);
    fs[i] = Store::read(&stored);
    if (!displacedLink<L>(p, face, pos, i)) level[(planes + slot) * cells + t] = stored;
    planes += marchSlots<L>(i);
  }
  if (acrossT < 0) return;
  T rho, u[3];
  postCollisionMoments<L>(fs, p.collision.force, rho, u);
  // Axes picked by compares, as in storeFaceValues().
  const int normal = face >> 1, inward = (face & 1) ? -1 : 1, plane = p.facePlane(face ^ 1);
  const int g[3] = {pos[0] - (normal == 0 ? inward : 0), pos[1] - (normal == 1 ? inward : 0),
                    pos[2] - (normal == 2 ? inward : 0)};
  const int across[3] = {normal == 0 ? plane : pos[0], normal == 1 ? plane : pos[1], normal == 2 ? plane : pos[2]};
  planes = 0;
HOPSIM_UNROLL
  for (int i = 0; i < L::Q; ++i) {
    const int ca = L::c(i, A), slot = ca < 0 ? 0 : (ca == 0 ? s2 : s3);
    const int along = normal == 0 ? L::c(i, 0) : (normal == 1 ? L::c(i, 1) : (L::D == 3 ? L::c(i, 2) : 0));
    if (along == inward && displacedLink<L>(p, face ^ 1, across, i))
      Store::write(level + (planes + slot) * cells + acrossT, ghostFromInner<L>(p, face, i, g, fs[i], rho, u));
    planes += marchSlots<L>(i);
  }
}

// One thread's part of its block's column (temporalStepKernel below runs it on the GPU). `ctx` gives thread() (the
// index in the block), block(a) (the block's index along grid axis a), shared() (the block's dynamic shared memory,
// MarchTile::smemBytes), barrier() (the block's, or the cluster's where Cy > 1: every thread reaches each one) and,
// where Cy > 1, neighbour(at, rank) (the address `at` of this block's shared memory in the cluster block of that
// rank). Without Walls every cell of the box must be bulk and the box periodic on every axis (the pulls wrap without
// tests; `cls`, `flags` and `takeWalls` are not read). With Walls the cells' classes `cls` say which are bulk
// (kCellBulk), wall cells (kCellWall, kCellWallSolid: their links off walls, moving walls and solid cells bounce back,
// wallLinks(), from the cell's own opposite population of the level before) or neither (kCellSkip: solid cells,
// never pulled from, neither computed nor stored); there must be no other class (inlet and outlet cells, curved
// cells). `takeWalls` false (one step per launch only): the wall cells are left to the boundary kernel, as in the
// steps that compute obstacle forces. Open (`wrapped`, openWrapFaces()): inlet and outlet faces on an axis across the
// tile (x, or y in 3-D; one block per column), whose cells are bulk or wall cells of `cls`: `src` holds the face
// pass's ghost values in the displaced slots of the opposite face's cells (wrapOpenGhosts()), and each level below
// K does the same in its ring (ringFaceStores()); the stored level K is the plain state. (At K = 1 there is no ring
// and the variant equals Open = false: the GPU's single steps run that.)
#ifdef __CUDACC__
#pragma nv_exec_check_disable
#endif
template <class L, class S, int K, int Cy, int Terms, bool Walls, bool Open, class Ctx>
HOPSIM_HD void temporalColumn(const Ctx& ctx, const DomainParams<typename PopulationStorage<S>::Arith>& p,
                              const S* __restrict__ src, S* __restrict__ dst, MarchSegments segments,
                              const std::uint8_t* __restrict__ cls, const std::uint8_t* __restrict__ flags,
                              bool takeWalls, unsigned wrapped) {
  using G = MarchTile<L, K, S, Cy, Walls>;
  using Store = PopulationStorage<S>;
  using T = typename Store::Arith;
  using Index = unsigned;
  constexpr int A = G::A;
  S* const ring = reinterpret_cast<S*>(ctx.shared());  // [level 1 .. K-1][population i: slots(i) planes][tile cell]
  // Orders each level's ring writes before the next level's reads, and those reads before the ring is overwritten.
  const auto barrier = [&] { ctx.barrier(); };

  const int t = ctx.thread();
  const int tx = t % G::x, ty = t / G::x;
  const int b = Cy > 1 ? ctx.block(1) % Cy : 0;  // the block's rank in its cluster (stacked along y)
  const int row = b * G::y + ty;                 // the cell's row in the (cluster's) tile
  const int ox = ctx.block(0) * G::outX + tx - G::haloX;  // unwrapped cross-section position
  const int oy = L::D == 3 ? ctx.block(1) / Cy * G::outY + row - G::haloY : 0;
  const int x = wrapIndex(ox, p.n[0]);
  const int y = L::D == 3 ? wrapIndex(oy, p.n[1]) : 0;
  const int nA = p.n[A];
  const bool seam = Open && (wrapped & 3u) && (ctx.block(0) == 0 || ctx.block(0) >= segments.seamFrom);
  const int segment = seam ? segments.seam : segments.planes;
  const int z0 = (L::D == 3 ? ctx.block(2) : ctx.block(1)) * segment;
  if (z0 >= nA) return;  // past its tile's last segment: the whole block, before any barrier
  const int z1 = z0 + segment < nA ? z0 + segment : nA;  // this block stores planes [z0, z1)
  const bool storesCell = tx >= G::haloX && tx < G::x - G::haloX && ox < p.n[0] &&
                          (L::D == 2 || (row >= G::haloY && row < G::rows - G::haloY && oy < p.n[1]));
  // A cell on a plane of the wrapped faces: its face, and the tile cell across the seam (-1: none in the tile).
  int openFace = -1, acrossT = -1;
  if (Open && wrapped) {
    const int axis = (wrapped & 3u) ? 0 : 1, at = axis == 0 ? x : y, inward = at == 0 ? 1 : -1;
    const int tileAt = (axis == 0 ? tx : row) - inward, tileSize = axis == 0 ? G::x : G::rows;
    if (at == 0 || at == p.n[axis] - 1) {
      openFace = 2 * axis + (at == 0 ? 0 : 1);
      if (tileAt >= 0 && tileAt < tileSize) acrossT = t - inward * (axis == 0 ? 1 : G::x);
    }
  }
  const Index n = static_cast<Index>(p.cells);
  const auto cursor = [&](int plane) {
    const int a = wrapIndex(plane, nA);
    return L::D == 3 ? CellCursor<Index>::make(p, x, y, a) : CellCursor<Index>::make(p, x, a, 0);
  };
  // Whether a cell of class k is computed (Walls: bulk cells, and wall cells where this launch takes them).
  const auto computed = [&](std::uint8_t k) { return k == kCellBulk || (takeWalls && isWallCell(k)); };
  // The populations level 1 of a plane pulls from the source lattice, loaded one iteration ahead where G::prefetch:
  // their latency runs under the barriers and the upper levels of the iteration before (software pipelining).
  // With Walls the plane's class is known one plane earlier (classAhead), so that a wall cell's bounce-back links
  // load the cell's own opposite populations in the same batch, instead of after it (whose latency stalled each
  // plane of the blocks at the walls: ncu, 2026-12-04); its links (wallLinks()) are kept for the levels above.
  // A cell's state on a plane in one word (fewer registers than a class and links apart): bit i bounces back, bit
  // Q + i off a moving wall, the class in the top byte.
  using CellState = std::conditional_t<(2 * L::Q > 24), unsigned long long, unsigned>;
  constexpr int kClassShift = 8 * sizeof(CellState) - 8;
  constexpr CellState kLinkBits = (CellState(1) << L::Q) - 1;
  const auto classOf = [](CellState s) { return static_cast<std::uint8_t>(s >> kClassShift); };
  const auto bouncedOf = [](CellState s) { return static_cast<unsigned>(s & kLinkBits); };
  const auto movingOf = [](CellState s) { return static_cast<unsigned>((s >> L::Q) & kLinkBits); };
  T next[L::Q];
  std::uint8_t classAhead = kCellBulk;
  CellState nextState = CellState(kCellBulk) << kClassShift;
  const auto pullPlane = [&](int plane) {
    const auto c = cursor(plane);
    unsigned bounce = 0, moving = 0;
    if constexpr (Walls) {
      const std::uint8_t k = classAhead;
      if (takeWalls && isWallCell(k)) wallLinks<L>(p, flags, c, k == kCellWallSolid, bounce, moving);
      nextState = static_cast<CellState>(bounce) | (static_cast<CellState>(moving) << L::Q) |
                  (static_cast<CellState>(k) << kClassShift);
    }
HOPSIM_UNROLL
    for (int i = 0; i < L::Q; ++i) {
      const Index from = Walls && ((bounce >> i) & 1u)
                             ? static_cast<Index>(opposite(i)) * n + c.self
                             : static_cast<Index>(i) * n + static_cast<Index>(c.self + c.template offset<L>(i, -1));
      next[i] = Store::read(src + from);
    }
    if constexpr (Walls) classAhead = cls[cursor(plane + 1).self];
  };
  // With Walls, the states of the cells this thread's levels work on, newest first: entry l - 1 is that of level l's
  // plane (a thread keeps one column of the tile: what its level 1 found l - 1 iterations ago).
  CellState states[K];
HOPSIM_UNROLL
  for (int l = 0; l < K; ++l) states[l] = CellState(kCellBulk) << kClassShift;
  // With Walls, a wall cell's own populations with c_A = -1 of level l - 1 on level l's plane, for level l's bounced
  // links: in the iteration where level l reads them, level l - 1 overwrites them in its ring (with the next plane's,
  // which the level above pulls), so the cell's thread reads them into `held` first. They are there: this thread
  // computed level l - 1 of that plane in the iteration before (a wall cell at level l is one at level l - 1, whose
  // region contains level l's). Without Open only this thread writes its cell's slots, and it reads them in level
  // l - 1's phase, after the collision there (which consumed the buffer) and before its own ring write: one buffer.
  // With Open the cell across the seam writes ghost values into those slots in that same phase, so the read moves to
  // the phase before (between two barriers: level l - 2's, or level K's of the iteration before for l = 2), where no
  // thread writes that ring, into held[l % 2] after what that phase consumes of the same buffer: two buffers.
  T held[Open ? 2 : 1][marchDownPopulations<L>()];
  const auto heldOf = [&](int l) -> T* { return held[Open ? l % 2 : 0]; };
  const auto hold = [&](T* into, int fromLevel, CellState state) {
    if (!isWallCell(classOf(state))) return;
    const S* level = ring + static_cast<std::size_t>(fromLevel - 1) * G::levelPlanes * G::cells;
    const unsigned bounce = bouncedOf(state);
    int planes = 0, d = 0;  // running sums: the unrolled loop folds them to constants
HOPSIM_UNROLL
    for (int i = 0; i < L::Q; ++i) {
      if (L::c(i, A) < 0) {
        if ((bounce >> opposite(i)) & 1u) into[d] = Store::read(level + planes * G::cells + t);  // slot 0
        ++d;
      }
      planes += marchSlots<L>(i);
    }
  };
  // A level's post-collision populations of global plane `plane` (`rel` relative to the segment's first plane, whose
  // ring slots they take) into its ring `level`; a cell on a wrapped face plane through ringFaceStores().
  const auto storePlane = [&](S* level, int plane, int rel, const T* f) {
    const int s2 = rel % 2, s3 = rel % 3;
    if (Open && openFace >= 0) {
      const int a = wrapIndex(plane, nA), pos[3] = {x, L::D == 3 ? y : a, L::D == 3 ? a : 0};
      ringFaceStores<L, S>(p, level, G::cells, t, acrossT, s2, s3, openFace, pos, f);
      return;
    }
    int planes = 0;  // population planes before i (a running sum: the unrolled loop folds it to constants)
HOPSIM_UNROLL
    for (int i = 0; i < L::Q; ++i) {
      const int ca = L::c(i, A), slot = ca < 0 ? 0 : (ca == 0 ? s2 : s3);
      Store::write(level + (planes + slot) * G::cells + t, f[i]);
      planes += marchSlots<L>(i);
    }
  };
  const int jEnd = z1 + (K - 1);
  if constexpr (Walls) classAhead = cls[cursor(z0 - (K - 1)).self];
  if constexpr (G::prefetch) pullPlane(z0 - (K - 1));

  for (int r = 0, j = z0 - (K - 1); j < jEnd; ++r, ++j) {
    // Level 1 of plane j: the portable bulk update, from the source lattice.
    {
      if constexpr (!G::prefetch) pullPlane(j);
      T f[L::Q];
HOPSIM_UNROLL
      for (int i = 0; i < L::Q; ++i) f[i] = next[i];
      const std::uint8_t k = classOf(nextState);
      if constexpr (Walls) {
HOPSIM_UNROLL
        for (int l = K - 1; l > 0; --l) states[l] = states[l - 1];
        states[0] = nextState;
      }
      if (G::prefetch && j + 1 < jEnd) pullPlane(j + 1);
      const bool computes = !Walls || computed(k);
      if (computes) {
        // The bounced links came with the pulls; a moving wall adds its term.
        if (Walls && k != kCellBulk)
          addMovingWallTerms<L>(p, cursor(j), movingOf(states[0]), f);
        T rho, u[3];
        collideWith<L, Terms>(f, p.collision, rho, u);
      }
      if constexpr (Walls && Open && K > 2) hold(heldOf(3), 2, states[2 < K ? 2 : K - 1]);  // level 2's, for level 3
      if constexpr (Walls && !Open && K > 1) hold(heldOf(2), 1, states[1]);  // level 1's output, for level 2
      if (computes) {
        if constexpr (K == 1) {
          if (storesCell) {
            const Index self = cursor(j).self;
HOPSIM_UNROLL
            for (int i = 0; i < L::Q; ++i) Store::write(dst + (static_cast<Index>(i) * n + self), f[i]);
          }
        } else {
          storePlane(ring, j, r, f);
        }
      }
    }
    if constexpr (K > 1) barrier();

    // Levels 2 .. K: level l of plane j - (l - 1) from the level l - 1 ring; level K to the destination lattice.
HOPSIM_UNROLL
    for (int l = 2; l <= K; ++l) {
      const int plane = r - (l - 1);  // relative to the segment's first plane
      const bool active = r >= 2 * l - 2 && tx >= l - 1 && tx < G::x - (l - 1) &&
                          (L::D == 2 || (row >= l - 1 && row < G::rows - (l - 1)));
      const std::uint8_t k = classOf(states[l - 1]);
      const bool computes = active && (l < K || storesCell) && computed(k);
      T f[L::Q];
      if (computes) {
        const S* from = ring + static_cast<std::size_t>(l - 2) * G::levelPlanes * G::cells;
        // Slots of planes `plane + 1` (c_A = -1), `plane` (c_A = 0) and `plane - 1` (c_A = +1).
        const int p2 = plane % 2, p3 = (plane + 2) % 3;
        int planes = 0;
HOPSIM_UNROLL
        for (int i = 0; i < L::Q; ++i) {
          const int ca = L::c(i, A), slot = ca < 0 ? 0 : (ca == 0 ? p2 : p3);
          const int cy = L::D == 3 ? L::c(i, 1) : 0, sy = ty - cy;  // source row in this block: -1 .. y
          const S* at = from + (planes + slot) * G::cells + t - L::c(i, 0) - cy * G::x;
          if (Cy > 1 && (sy < 0 || sy >= G::y)) {
            // A row of the neighbouring block of the cluster (uniform across a warp: a warp is part of one row).
            const int side = sy < 0 ? -1 : 1;
            f[i] = Store::read(ctx.neighbour(at - side * G::cells, static_cast<unsigned>(b + side)));
          } else {
            f[i] = Store::read(at);
          }
          planes += marchSlots<L>(i);
        }
        if (Walls && k != kCellBulk) {
          // A bounced link takes the cell's own opposite population of the level before, on plane `plane`: slot p2
          // for c_A = 0, plane % 3 for +1, held for -1 (gather()'s and updateCellWithWalls()'s rules, wallLinks()).
          const int q3 = plane % 3;
          const unsigned bounce = bouncedOf(states[l - 1]);
HOPSIM_UNROLL
          for (int i = 1; i < L::Q; ++i) {
            if (!((bounce >> i) & 1u)) continue;
            const int o = opposite(i);
            int before = 0, down = 0;  // o is a constant once this loop is unrolled: so are these sums
HOPSIM_UNROLL
            for (int m = 0; m < o; ++m) before += marchSlots<L>(m), down += L::c(m, A) < 0 ? 1 : 0;
            f[i] = L::c(o, A) < 0 ? heldOf(l)[down]
                                  : Store::read(from + (before + (L::c(o, A) == 0 ? p2 : q3)) * G::cells + t);
          }
          addMovingWallTerms<L>(p, cursor(j - (l - 1)), movingOf(states[l - 1]), f);
        }
        T rho, u[3];
        collideWith<L, Terms>(f, p.collision, rho, u);
      }
      // This level has read its held values. Without Open: this level's output for level l + 1 (before its ring
      // write below). With Open, in the phase before level l + 1's: level l + 1's output for level l + 2, and at l = K
      // level 1's output of this iteration for level 2 of the next.
      if constexpr (Walls && !Open) {
        if (l < K) hold(heldOf(l + 1), l, states[l < K ? l : K - 1]);
      }
      if constexpr (Walls && Open) {
        if (l + 2 <= K) hold(heldOf(l + 2), l + 1, states[l + 1 < K ? l + 1 : K - 1]);
        if (l == K) hold(heldOf(2), 1, states[0]);
      }
      if (computes) {
        if (l < K) {  // for level l + 1, whose held values were read above
          storePlane(ring + static_cast<std::size_t>(l - 1) * G::levelPlanes * G::cells, j - (l - 1), plane, f);
        } else {
          const int a = wrapIndex(j - (K - 1), nA);
          const Index self = L::D == 3 ? (static_cast<Index>(a) * static_cast<Index>(p.n[1]) + static_cast<Index>(y)) *
                                                 static_cast<Index>(p.n[0]) +
                                             static_cast<Index>(x)
                                       : static_cast<Index>(a) * static_cast<Index>(p.n[0]) + static_cast<Index>(x);
HOPSIM_UNROLL
          for (int i = 0; i < L::Q; ++i) Store::write(dst + (static_cast<Index>(i) * n + self), f[i]);
        }
      }
      barrier();  // the last one also keeps this block's rings alive while its cluster neighbours read them
    }
  }
}

#ifdef __CUDACC__
// The kernel's context: its thread and block indices, its dynamic shared memory, and the barrier of the block or of
// its cluster of Cy blocks.
template <int Cy>
struct TemporalDeviceContext {
  __device__ int thread() const { return static_cast<int>(threadIdx.x); }
  __device__ int block(int axis) const {
    return static_cast<int>(axis == 0 ? blockIdx.x : axis == 1 ? blockIdx.y : blockIdx.z);
  }
  __device__ unsigned char* shared() const {
    extern __shared__ unsigned char smemRaw[];
    return smemRaw;
  }
  __device__ void barrier() const {
    if constexpr (Cy > 1) cooperative_groups::this_cluster().sync();
    else __syncthreads();
  }
  template <class S>
  __device__ const S* neighbour(const S* at, unsigned rank) const {
    return cooperative_groups::this_cluster().map_shared_rank(at, rank);
  }
};

// Launch: blocks of MarchTile::cells threads (1-D); grid (ceil(nx / outX), Cy ceil(ny / outY), ceil(nz / segment))
// in 3-D, (ceil(nx / outX), ceil(ny / segment), 1) in 2-D (segment: the shorter of MarchSegments' two), clusters of
// (1, Cy, 1) blocks where Cy > 1; MarchTile::smemBytes of dynamic shared memory. Open > 0: temporalColumn()'s Open
// variant (wrapped inlet and outlet faces, `wrapped`) with at most Open blocks per SM asked of the compiler
// (temporalBlocksPerSm()).
template <class L, class S, int K, int Cy, int Terms, bool Walls = false, int Open = 0>
__global__ void __launch_bounds__(MarchTile<L, K, S, Cy, Walls>::cells,
                                  (temporalBlocksPerSm<L, K, S, Cy, Walls, Open>()))
    temporalStepKernel(const __grid_constant__ DomainParams<typename PopulationStorage<S>::Arith> p,
                       const S* __restrict__ src, S* __restrict__ dst, MarchSegments segments,
                       const std::uint8_t* __restrict__ cls, const std::uint8_t* __restrict__ flags, bool takeWalls,
                       unsigned wrapped) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900  // the Hopper backend only runs on 9.0 and newer
  temporalColumn<L, S, K, Cy, Terms, Walls, (Open > 0)>(TemporalDeviceContext<Cy>{}, p, src, dst, segments, cls,
                                                        flags, takeWalls, wrapped);
#endif
}
#endif

}  // namespace hopsim::lbm::hopper
