// The Hopper temporal kernel's work (temporalColumn(), kernels/lbm/hopper/TemporalStep.cuh) run on the host: each
// block's threads as std::threads that meet at a std::barrier where the kernel's threads meet at __syncthreads(),
// its shared memory a buffer of the block's. One launch of K steps against K steps of the CUDA backend's per-cell
// update run on the host (HostCellUpdateRunner, the wall cells in the bulk pass, as the GPU's portable kernels take
// them): the populations of every fluid cell bitwise equal (the same collide() and the same stored type, and no
// compiler here contracts the multiply-adds differently in one of them). Periodic boxes (the kernel's variant
// without walls) and boxes with walls, a moving wall and solid cells (its wall variant: a wall cell's own
// populations read from its ring slots or held in registers), D2Q9 and D3Q19, FP32 and FP16 storage, 1, 2 and 4
// steps per launch, several tiles across the box and segments along the march axis; on the periodic D3Q19 box also
// at 2 steps in clusters of 4 and 8 blocks (a cluster's blocks run at once, reading each other's shared memory);
// and the column's Open variant on boxes with wrapped inlet and outlet faces (below). Runs without a GPU
// ([cuda-host]).
#if HOPSIM_WITH_CUDA
#include <algorithm>
#include <barrier>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "CatchCompat.h"
#include "HostCellUpdateRunner.h"
#include "LbmAgreementCases.h"
#include "kernels/lbm/hopper/TemporalStep.cuh"

using namespace hopsim::lbm;
using namespace hopsim::lbm::hopper;
using namespace hopsim::lbm::testing;

namespace {

// temporalColumn()'s context for one host thread of a block: its cluster's blocks' shared memory (one block where
// Cy = 1), each `bytes` long, and the cluster's barrier.
struct HostBlockContext {
  int t;
  int b[3];
  int rank;
  unsigned char* clusterSmem;
  std::size_t bytes;
  std::barrier<>* sync;
  int thread() const { return t; }
  int block(int axis) const { return b[axis]; }
  unsigned char* shared() const { return clusterSmem + rank * bytes; }
  void barrier() const { sync->arrive_and_wait(); }
  template <class S>
  const S* neighbour(const S* at, unsigned other) const {
    return reinterpret_cast<const S*>(reinterpret_cast<const unsigned char*>(at) + (static_cast<long>(other) - rank) *
                                                                                    static_cast<long>(bytes));
  }
};

// One launch of K steps from `src` into `dst`: the grid TemporalBulk::planLaunch() makes for `segments`, cluster
// after cluster (a block where Cy = 1), each cluster's threads at once.
template <class L, class S, int K, int Cy, bool Walls, bool Open, int Terms>
void temporalLaunch(const DomainParams<float>& p, const S* src, S* dst, const std::uint8_t* cls,
                    const std::uint8_t* flags, MarchSegments segments, unsigned wrapped) {
  using G = MarchTile<L, K, S, Cy, Walls>;
  constexpr int A = L::D - 1;
  const int tilesX = (p.n[0] + G::outX - 1) / G::outX;
  const int tilesY = L::D == 3 ? (p.n[1] + G::outY - 1) / G::outY : 1;
  const int shortest = std::min(segments.planes, segments.seam);
  const int count = (p.n[A] + shortest - 1) / shortest;
  std::vector<unsigned char> smem(Cy * G::smemBytes + 1);
  for (int sgm = 0; sgm < count; ++sgm)
    for (int ty = 0; ty < tilesY; ++ty)
      for (int bx = 0; bx < tilesX; ++bx) {
        std::barrier<> sync(Cy * G::cells);
        std::vector<std::thread> threads;
        threads.reserve(Cy * G::cells);
        for (int rank = 0; rank < Cy; ++rank)
          for (int t = 0; t < G::cells; ++t)
            threads.emplace_back([&, rank, t] {
              const int by = ty * Cy + rank;
              const HostBlockContext ctx{
                  t, {bx, L::D == 3 ? by : sgm, L::D == 3 ? sgm : 0}, rank, smem.data(), G::smemBytes, &sync};
              temporalColumn<L, S, K, Cy, Terms, Walls, Open>(ctx, p, src, dst, segments, cls, flags, true, wrapped);
            });
        for (std::thread& th : threads) th.join();
      }
}

// K steps both ways on the setup `s` (TRT or BGK, with or without a body force), the temporal kernel's tiles shared
// by clusters of Cy blocks; `what` names the case.
template <class L, class S, int K, int Cy = 1>
void checkSteps(const LbmSetup& s, int segment, const std::string& what) {
  // Inlet and outlet faces wrapped, as CudaLbm does where openWrapFaces() allows it (KernelPlan::openWrap).
  HostCellUpdateRunner<L, S> ref(s, false, /*wallsInBulk=*/true, /*openMoments=*/true, /*openInBulk=*/false,
                                 /*openWrap=*/true);
  std::vector<S> src = ref.populations();
  std::vector<S> dst = src;
  const DomainParams<float> p = convertDomain<float>(s.domain);
  const unsigned wrapped = ref.wrappedFaces();
  const unsigned n32 = static_cast<unsigned>(s.flags.size());
  if (wrapped) {  // the state as the launch reads it: the face pass, then its ghost values wrapped
    OpenFaceMoments<float> m = openFaceLayout(p);
    std::vector<float> values(4 * m.slots), ghosts(L::Q * m.slots);
    m.values = values.data();
    m.ghosts = ghosts.data();
    const TwoLatticeStep<L, S, unsigned> reads{src.data(), dst.data(), n32};
    for (long long k = 0; k < m.slots; ++k) storeOpenMoments<L>(p, s.flags.data(), reads, m, k);
    for (long long k = 0; k < m.slots; ++k) wrapOpenGhosts<L>(p, m, src.data(), n32, k);
  }
  REQUIRE(!p.collision.smagorinsky);
  REQUIRE(!p.collision.regularized);
  const bool walls = ref.cellsOfClass(kCellBulk) != static_cast<long long>(s.flags.size());
  const bool forced = collisionTerms(p.collision) == kGuoTerms;
  // With faces wrapped across x, the seam tiles' blocks take segments of half as many planes (as TemporalBulk plans
  // them where their planes cost more).
  MarchSegments segments{segment, segment, 1 << 30};
  if (wrapped & 3u) segments = {segment, std::max(1, segment / 2), MarchTile<L, K, S, Cy>::seamFrom(p.n[0])};
  const auto launch = [&]<bool Walls, bool Open>() {
    if (forced) temporalLaunch<L, S, K, Cy, Walls, Open, kGuoTerms>(p, src.data(), dst.data(), ref.classes().data(),
                                                                   s.flags.data(), segments, wrapped);
    else temporalLaunch<L, S, K, Cy, Walls, Open, 0>(p, src.data(), dst.data(), ref.classes().data(),
                                                     s.flags.data(), segments, wrapped);
  };
  if constexpr (Cy > 1) {
    REQUIRE(!walls);  // the clusters run boxes whose every cell is bulk
    REQUIRE(!wrapped);
    launch.template operator()<false, false>();
  } else {
    // One step with wrapped faces runs without Open, as the GPU's single steps do (no ring: the same update).
    if (walls && wrapped && K > 1) launch.template operator()<true, true>();
    else if (walls) launch.template operator()<true, false>();
    else if (wrapped && K > 1) launch.template operator()<false, true>();
    else launch.template operator()<false, false>();
  }
  ref.advance(K, false);
  const std::vector<S>& want = ref.populations();
  const std::size_t n = s.flags.size();
  long long differing = 0, fluid = 0;
  double largest = 0;
  for (std::size_t c = 0; c < n; ++c) {
    if (s.flags[c] != kFluid) continue;
    ++fluid;
    for (int i = 0; i < L::Q; ++i) {
      const S a = want[i * n + c], b = dst[i * n + c];
      if (std::memcmp(&a, &b, sizeof(S)) == 0) continue;
      ++differing;
      const double d = std::abs(double(PopulationStorage<S>::read(&a)) - double(PopulationStorage<S>::read(&b)));
      largest = d > largest ? d : largest;
    }
  }
  INFO(what << ", " << K << " steps per launch, clusters of " << Cy << ", segments of " << segments.planes
            << " planes (" << segments.seam << " in the seam tiles), "
            << (wrapped ? "inlet and outlet wrapped, " : "")
            << (walls ? "wall variant" : "every cell bulk") << ": " << differing << " of " << fluid * L::Q
            << " populations differ, by up to " << largest);
  CHECK(fluid > 0);
  CHECK(differing == 0);
}

template <class L, class S>
void checkEverySteps(const LbmSetup& s, const std::string& what, bool clusters = false) {
  const int planes = s.domain.n[L::D - 1];
  for (const int segment : {5, planes}) {
    checkSteps<L, S, 1>(s, segment, what);
    checkSteps<L, S, 2>(s, segment, what);
    checkSteps<L, S, 4>(s, segment, what);
    if constexpr (L::D == 3) {
      if (!clusters) continue;
      checkSteps<L, S, 2, 4>(s, segment, what);
      checkSteps<L, S, 2, 8>(s, segment, what);
    }
  }
}

template <class L>
void checkBoth(const std::string& yaml, const std::string& what, bool clusters = false) {
  const LbmSetup single = buildSetup(parseCase(yaml));
  checkEverySteps<L, float>(single, what + ", FP32", clusters);
  LbmSetup half = single;
  half.precision = Precision::Half;
  checkEverySteps<L, __half>(half, what + ", FP16 storage", clusters);
}

std::string header(const std::string& lattice, const std::string& collision) {
  return "solver: lbm\nlattice: " + lattice + "\ncollision: {model: " + collision +
         "}\nfluid: {tau: 0.62}\nrun: {steps: 4}\ndevice: {backend: cpu}\n";
}

}  // namespace

TEST_CASE("Hopper temporal kernel run on host threads equals the per-cell update's steps bitwise",
          "[unit][lbm][cuda-host][hopper-host]") {
  // Periodic, solid-free, a body force: the variant without walls; D2Q9 wider than a 256-cell tile (two tiles).
  checkBoth<D2Q9>(header("D2Q9", "trt") +
                      "domain: {cells: [260, 14], periodic: [x, y]}\nbody_force: [2.0e-5, -1.0e-5]\n"
                      "initial: {taylor_green: {u0: 0.04, form: 2d}}\n",
                  "D2Q9 periodic box, body force");
  checkBoth<D3Q19>(header("D3Q19", "bgk") +
                       "domain: {cells: [40, 20, 11], periodic: [x, y, z]}\nbody_force: [2.0e-5, 0, -1.0e-5]\n"
                       "initial: {taylor_green: {u0: 0.04, form: 2d}}\n",
                   "D3Q19 periodic box, body force", /*clusters=*/true);
  // Walls, a moving lid, solid cells: the wall variant.
  checkBoth<D2Q9>(header("D2Q9", "trt") +
                      "domain: {cells: [33, 30]}\nboundaries:\n  x-: {type: wall}\n  x+: {type: wall}\n"
                      "  y-: {type: wall}\n  y+: {type: moving_wall, velocity: [0.05, 0]}\n"
                      "obstacles:\n  - {name: cyl, shape: circle, center: [12, 9.3], radius: 4}\n"
                      "  - {name: block, shape: box, min: [22, 18], max: [27, 22]}\n"
                      "initial: {density: 1.0, velocity: [0.01, -0.02]}\n",
                  "D2Q9 cavity with a circle and a box");
  checkBoth<D2Q9>(header("D2Q9", "bgk") +
                      "domain: {cells: [260, 16], periodic: [x]}\nbody_force: [3.0e-5, 0]\nboundaries:\n"
                      "  y-: {type: wall}\n  y+: {type: wall}\n"
                      "obstacles:\n  - {name: block, shape: box, min: [244, 5], max: [256, 9]}\n"
                      "initial: {density: 1.0, velocity: [0.02, 0.004]}\n",
                  "D2Q9 channel periodic along x, walls, body force, a box across the tiles' seam");
  checkBoth<D3Q19>(header("D3Q19", "trt") +
                       "domain: {cells: [40, 20, 11]}\nboundaries:\n  x-: {type: wall}\n  x+: {type: wall}\n"
                       "  y-: {type: wall}\n  y+: {type: wall}\n  z-: {type: wall}\n"
                       "  z+: {type: moving_wall, velocity: [0.05, 0.02, 0]}\n"
                       "obstacles:\n  - {name: ball, shape: sphere, center: [14, 9.3, 5.2], radius: 3.5}\n"
                       "initial: {density: 1.0, velocity: [0.01, -0.005, 0.02]}\n",
                   "D3Q19 cavity with a sphere");
  checkBoth<D3Q19>(header("D3Q19", "bgk") +
                       "domain: {cells: [10, 16, 14], periodic: [x]}\nbody_force: [5.0e-5, 0, 0]\nboundaries:\n"
                       "  y-: {type: wall}\n  y+: {type: wall}\n  z-: {type: wall}\n  z+: {type: wall}\n"
                       "initial: {density: 1.0, velocity: [0.01, 0.002, -0.001]}\n",
                   "D3Q19 duct, body force");
}

// Inlet and outlet faces wrapped into the opposite face (openWrapFaces(); the face pass's ghost values in the slots
// of the opposite face's cells, each level's computed and wrapped in its ring): a parabolic velocity inlet and a
// pressure outlet with walls, a moving wall, an inflow at an angle, a body force and obstacles four cells from the
// faces; a D2Q9 channel two tiles wide (the tiles' seam and the faces' in different blocks); D3Q19 with the faces
// across x (a periodic y) and across y.
TEST_CASE("Hopper temporal kernel run on host threads with wrapped inlet and outlet faces equals the per-cell update",
          "[unit][lbm][cuda-host][hopper-host]") {
  checkBoth<D2Q9>(openFacesYaml("D2Q9", "single", /*onPlanes=*/false), "D2Q9 open faces");
  checkBoth<D2Q9>(caseYaml("D2Q9", "single", "trt", Flow::Channel), "D2Q9 channel with a cylinder");
  checkBoth<D2Q9>(header("D2Q9", "trt") + channel2dYaml(260, 16) +
                      "obstacles:\n  - {name: block, shape: box, min: [244, 5], max: [256, 9]}\n"
                      "initial: {density: 1.0, velocity: [0.03, 0.002]}\n",
                  "D2Q9 channel two tiles wide");
  // Three tiles at 4 steps: the middle one is no seam tile (its segments the longer ones, its blocks past them idle).
  checkBoth<D2Q9>(header("D2Q9", "bgk") + channel2dYaml(520, 12, "{type: moving_wall, velocity: [0.02, 0]}") +
                      "initial: {density: 1.0, velocity: [0.03, -0.002]}\n",
                  "D2Q9 channel three tiles wide");
  checkBoth<D3Q19>(openFacesYaml("D3Q19", "single", /*onPlanes=*/false), "D3Q19 open faces across x");
  checkBoth<D3Q19>(caseYaml("D3Q19", "single", "bgk", Flow::Channel), "D3Q19 channel with a sphere");
  checkBoth<D3Q19>(header("D3Q19", "trt") +
                       "domain: {cells: [12, 20, 10], periodic: [z]}\nboundaries:\n"
                       "  y-: {type: velocity_inlet, profile: parabolic, velocity: [0, 0.04, 0]}\n"
                       "  y+: {type: pressure_outlet, density: 1.0}\n  x-: {type: wall}\n"
                       "  x+: {type: moving_wall, velocity: [0, 0.02, 0.01]}\n"
                       "initial: {density: 1.0, velocity: [0.002, 0.03, 0]}\n",
                   "D3Q19 channel with the faces across y");
}

// The launch's segments (planMarchSegments()) against the cost model's values worked out apart from it
// (docs/performance.md, "Measured on an H100"): the 2-D cavity 4096^2 (17 tiles, 4 blocks per SM on 132 SMs) keeps
// the one length it had before seam tiles existed, 133 planes, which the H100 run printed; the 2-D channel
// 8192 x 1024 (33 tiles, two of them seam tiles weighing 3) gives its seam tiles about a third of the others' length.
TEST_CASE("Hopper temporal kernel: segments along the march axis, the seam tiles' shorter",
          "[unit][lbm][cuda-host][hopper-host]") {
  const MarchSegments cavity = planMarchSegments(4096, 17, 0, 1 << 30, 4 * 132, 4, 3.0);
  CHECK(cavity.planes == 133);
  CHECK(cavity.seam == 133);
  const int seamFrom = MarchTile<D2Q9, 4, float, 1, true>::seamFrom(8192);
  CHECK(seamFrom == 32);  // tile 32 holds x = 8191; tile 31 ends at x = 8002
  for (const auto& [resident, planes, seam] : {std::tuple{3 * 132, 103, 30}, std::tuple{4 * 132, 78, 22}}) {
    const MarchSegments channel = planMarchSegments(1024, 33, 2, seamFrom, resident, 4, 3.0);
    INFO(resident << " resident blocks: segments of " << channel.planes << " and " << channel.seam);
    CHECK(channel.planes == planes);
    CHECK(channel.seam == seam);
    CHECK(channel.seamFrom == seamFrom);
    // One wave, and the longest block (a seam block's planes weighing 3) shorter than with equal segments.
    const long long blocks = 31 * ((1024 + planes - 1) / planes) + 2 * ((1024 + seam - 1) / seam);
    CHECK(blocks <= resident);
    const MarchSegments equal = planMarchSegments(1024, 33, 0, 1 << 30, resident, 4, 3.0);
    CHECK(std::max(planes + 6, 3 * (seam + 6)) < 3 * (equal.planes + 6));
  }
  CHECK(MarchTile<D2Q9, 4, float, 1, true>::seamFrom(96) == 1);  // one tile: tile 0 holds both faces
}
#endif
