// Builds a lattice Boltzmann state from a case: flags from obstacle shapes, initial fields, face parameters.
#include "solvers/lbm/LbmSimulation.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <numbers>
#include <stdexcept>

#include "core/ExitCode.h"
#include "core/Log.h"
#include "core/RunOptions.h"
#include "core/lbm/ObstacleShapes.h"
#include "core/lbm/Relaxation.h"
#include "kernels/common/DeviceInfo.h"
#include "kernels/geometry/GpuVoxelizer.h"
#include "kernels/lbm/Collision.h"
#include "kernels/lbm/Lattice.h"
#include "kernels/lbm/StreamCollide.h"
#include "kernels/lbm/cpu/CpuLbmBackend.h"
#include "solvers/common/DevicePlanner.h"
#include "solvers/common/HostMemory.h"
#include "solvers/lbm/LbmKernelPlanner.h"

namespace hopsim::lbm {
namespace {

FaceType faceType(BoundaryType b) {
  switch (b) {
    case BoundaryType::Periodic: return kFacePeriodic;
    case BoundaryType::Wall: return kFaceWall;
    case BoundaryType::MovingWall: return kFaceMovingWall;
    case BoundaryType::VelocityInlet: return kFaceVelocityInlet;
    case BoundaryType::PressureOutlet: return kFacePressureOutlet;
  }
  return kFacePeriodic;
}

// The flag of each cell of a range of global cells: the first obstacle that contains its centre, else fluid. Shapes
// are tested at the centre; meshes are voxelised once over the range, on GPU `meshGpu` where it is >= 0
// (geometry::voxelizeOnGpu, the same cells in milliseconds) else on the CPU (geometry::voxelize).
class ObstacleRaster {
 public:
  ObstacleRaster(const LbmCase& c, std::array<long long, 3> lo, std::array<long long, 3> hi, int meshGpu)
      : c_(c), lo_(lo) {
    for (int a = 0; a < 3; ++a) count_[a] = hi[a] - lo[a];
    masks_.resize(c.obstacles.size());
    for (std::size_t k = 0; k < c.obstacles.size(); ++k) {
      if (c.obstacles[k].shape != ShapeKind::Mesh) continue;
      const geometry::TriangleMesh& mesh = c.obstacles[k].mesh->mesh();
      const auto start = std::chrono::steady_clock::now();
      masks_[k] = meshGpu >= 0 ? geometry::voxelizeOnGpu(mesh, lo, count_, meshGpu)
                               : geometry::voxelize(mesh, lo, count_);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      log::info("obstacle '{}': {} triangles voxelised into {} x {} x {} cells on {} in {:.3f} s", c.obstacles[k].name,
                mesh.triangles.size(), count_[0], count_[1], count_[2],
                meshGpu >= 0 ? fmt::format("GPU {}", meshGpu) : std::string("the CPU"), seconds);
    }
  }

  // Global coordinates (x, y, z), inside the range.
  std::uint8_t flag(long long x, long long y, long long z) const {
    const Vec3 centre{x + 0.5, y + 0.5, z + 0.5};
    for (std::size_t k = 0; k < c_.obstacles.size(); ++k) {
      const bool solid = masks_[k].empty()
                             ? inside(c_.obstacles[k], centre, c_.dimensions)
                             : masks_[k][((z - lo_[2]) * count_[1] + (y - lo_[1])) * count_[0] + (x - lo_[0])] != 0;
      if (solid) return static_cast<std::uint8_t>(kObstacleBase + k);
    }
    return kFluid;
  }

 private:
  const LbmCase& c_;
  std::array<long long, 3> lo_, count_{};
  std::vector<std::vector<std::uint8_t>> masks_;  // per mesh obstacle; empty for shapes
};

// The global cells a part's box covers, as a range per axis: its own cells and ghost layers, or the whole axis
// where a ghost layer wraps around a periodic face.
ObstacleRaster rasterFor(const LbmCase& c, const LbmPartition& part, int meshGpu) {
  std::array<long long, 3> lo{}, hi{};
  for (int a = 0; a < 3; ++a) {
    lo[a] = part.first[a] - part.ghost[2 * a];
    hi[a] = part.first[a] + part.count[a] + part.ghost[2 * a + 1];
    if (lo[a] < 0 || hi[a] > c.cells[a]) {
      lo[a] = 0;
      hi[a] = c.cells[a];
    }
  }
  return ObstacleRaster(c, lo, hi, meshGpu);
}

// Global coordinate of local coordinate i along an axis of a part: ghosts beyond a periodic end wrap around.
long long globalCoord(const LbmCase& c, const LbmPartition& part, int axis, long long i) {
  const long long n = c.cells[axis];
  const long long g = part.first[axis] - part.ghost[2 * axis] + i;
  return ((g % n) + n) % n;
}

// Where the segment from `from` to `to` enters the obstacle or one of its periodic images. The images count where
// `from` lies beyond a periodic face: a box that spans a periodic axis continues into its image there, and the
// segment enters their union where it first enters either.
std::optional<double> periodicEntry(const LbmCase& c, const Obstacle& ob, const Vec3& from, const Vec3& to) {
  std::optional<double> first;
  int shift[3];
  for (shift[2] = -1; shift[2] <= 1; ++shift[2])
    for (shift[1] = -1; shift[1] <= 1; ++shift[1])
      for (shift[0] = -1; shift[0] <= 1; ++shift[0]) {
        Vec3 a = from, b = to;
        bool image = true;
        for (int k = 0; k < 3; ++k) {
          if (shift[k] == 0) continue;
          const double n = static_cast<double>(c.cells[k]);
          image = image && c.periodic[k] && (from[k] < 0 || from[k] > n);
          a[k] += shift[k] * n;
          b[k] += shift[k] * n;
        }
        if (!image) continue;
        const std::optional<double> t = segmentEntry(ob, a, b, c.dimensions);
        if (t && (!first || *t < *first)) first = t;
      }
  return first;
}

// The wall distances of the links of the box's owned fluid cells into obstacles with interpolated bounce-back
// (LbmSetup::curved). A link bounces off the surface of the obstacle that owns its solid cell (the first obstacle
// containing that cell's centre), where the segment between the two centres enters it. The segment is taken at the
// solid cell's own global position, so that its solid end lies inside the obstacle; where its fluid end then lies
// beyond a periodic face, the obstacle's periodic images count too (periodicEntry).
template <class L>
CurvedLinks curvedLinks(const LbmCase& c, const LbmPartition& part, const DomainParams<double>& d,
                        const std::vector<std::uint8_t>& flags) {
  CurvedLinks out;
  std::vector<double> q(L::Q);
  for (int z = d.ownLo(2); z < d.ownHi(2); ++z)
    for (int y = d.ownLo(1); y < d.ownHi(1); ++y)
      for (int x = d.ownLo(0); x < d.ownHi(0); ++x) {
        const long long cell = d.index(x, y, z);
        if (flags[cell] != kFluid) continue;
        const int pos[3] = {x, y, z};
        bool any = false;
        for (int i = 0; i < L::Q; ++i) {
          q[i] = 0;
          // The upstream cell as the solver finds it (gather()), and its flag from the box's flags.
          long long upstream;
          if (!linkNeighbour<L>(d, pos, i, -1, upstream)) continue;
          const std::uint8_t flag = flags[upstream];
          if (flag < kObstacleBase) continue;
          const long long s[3] = {upstream % d.n[0], (upstream / d.n[0]) % d.n[1],
                                  upstream / (static_cast<long long>(d.n[0]) * d.n[1])};
          Vec3 solid{}, fluid{};
          for (int a = 0; a < 3; ++a) {
            solid[a] = globalCoord(c, part, a, s[a]) + 0.5;
            fluid[a] = solid[a] + L::c(i, a);
          }
          const Obstacle& ob = c.obstacles[flag - kObstacleBase];
          if (ob.boundary == ObstacleBoundary::Staircase) continue;
          // The fluid centre lies outside every obstacle and the solid one inside this one, so the segment enters
          // it; a distance of 0 (rounding at a centre on the surface) would read as half-way, hence the floor. A
          // mesh's inside test and its crossings may disagree by rounding where a centre lies on a slanted face:
          // such a link bounces half-way.
          const std::optional<double> t = periodicEntry(c, ob, fluid, solid);
          if (!t && ob.shape == ShapeKind::Mesh) continue;
          if (!t)
            throw std::logic_error(fmt::format("obstacle '{}': no surface between the cell centres ({}, {}, {}) and "
                                               "({}, {}, {})",
                                               ob.name, fluid[0], fluid[1], fluid[2], solid[0], solid[1], solid[2]));
          q[i] = std::clamp(*t, 1e-9, 1.0);
          if (ob.boundary == ObstacleBoundary::Quadratic) q[i] = -q[i];  // interpolatedBounce(): the sign says so
          any = true;
        }
        if (!any) continue;
        out.cells.push_back(cell);
        out.q.insert(out.q.end(), q.begin(), q.end());
      }
  return out;
}

// The process grid: device.ranks when the case gives it, else MPI_Dims_create's factors with the most ranks on the
// slowest axis (z, then y): x rows stay whole, which keeps the GPU's thread blocks full along x and makes the halo
// planes of the split axes contiguous runs of memory. Axes one cell long are not split.
Decomposition::Int3 processGrid(const LbmCase& c, const mpi::Comm& comm) {
  if (c.device.ranks != Decomposition::Int3{0, 0, 0}) return c.device.ranks;
  int dims[3] = {0, 0, 0};
  std::vector<int> free;
  for (int a = 0; a < 3; ++a) {
    if (c.cells[a] < 2) dims[a] = 1;
    else free.push_back(a);
  }
  comm.createDims(dims);  // non-increasing over the free axes
  std::vector<int> factors;
  for (int a : free) factors.push_back(dims[a]);
  std::sort(factors.begin(), factors.end(), std::greater<>());
  Decomposition::Int3 grid{dims[0], dims[1], dims[2]};
  for (std::size_t k = 0; k < free.size(); ++k) grid[free[free.size() - 1 - k]] = factors[k];
  return grid;
}

// The population arrays the cpu backend keeps for this case: one where it runs in place, else two. The backend
// decides from the setup (cpuTwoLatticeReason()); this reads the same conditions from the case, before the setup is
// built, and says two where in doubt (an interpolated obstacle that turns out to have no links).
int cpuLattices(const LbmCase& c, bool decomposed, StreamingLayout asked) {
  const StreamingLayout layout = asked == StreamingLayout::Auto ? kCpuDefaultLayout : asked;
  if (layout == StreamingLayout::TwoLattice || decomposed) return 2;
  for (const FaceBoundary& f : c.faces)
    if (f.type == BoundaryType::VelocityInlet || f.type == BoundaryType::PressureOutlet) return 2;
  for (const Obstacle& o : c.obstacles)
    if (o.boundary != ObstacleBoundary::Staircase) return 2;
  return 1;
}

// Host bytes per cell (ghosts included) of this rank: the setup (flags, initial density and velocity in double),
// the owned flags and field copies for output, and on the cpu backend its population lattices (`lattices`, one or
// two). A CUDA backend keeps its populations in device memory, which it checks itself when it allocates.
double hostBytesPerCell(const LbmCase& c, Backend backend, int lattices) {
  double bytes = 1 + 8 + 3 * 8;  // setup: flags, density, velocity
  // Owned flags (as numbers for the writers), and density and velocity in two output slots (the writer thread
  // writes one while the next is taken), in single precision where the case is not double.
  const double fieldBytes = c.precision == Precision::Double ? 8 : 4;
  bytes += 1 + 8 + 2 * 4 * fieldBytes;
  if (backend == Backend::Cpu) {
    bytes += double(lattices) * populationCount(c.lattice) * storageBytes(c.precision) + 1;  // and the backend's flags
  }
  return bytes;
}

}  // namespace

LbmPartition wholeDomain(const LbmCase& c) {
  LbmPartition p;
  p.count = c.cells;
  return p;
}

LbmPartition partitionOf(const LbmCase& c, const Decomposition& d, int ghostDepth) {
  LbmPartition p;
  for (int a = 0; a < 3; ++a) {
    const auto [first, last] = d.cellRange(a, c.cells[a]);
    p.first[a] = first;
    p.count[a] = last - first;
    for (int side = 0; side < 2; ++side) {
      int offset[3] = {0, 0, 0};
      offset[a] = side ? 1 : -1;
      const int r = d.dims()[a] > 1 ? d.neighbor(offset[0], offset[1], offset[2]) : mpi::kNoRank;
      p.neighbor[2 * a + side] = r;
      p.ghost[2 * a + side] = r == mpi::kNoRank ? 0 : ghostDepth;
    }
  }
  return p;
}

std::vector<std::uint8_t> buildFlags(const LbmCase& c) {
  return buildSetup(c).flags;
}

LbmSetup buildSetup(const LbmCase& c, const LbmPartition& part, int meshGpu) {
  if (c.obstacles.size() > static_cast<std::size_t>(kMaxObstacles))
    throw std::runtime_error("too many obstacles (at most 253)");
  LbmSetup s{c.lattice, c.precision, {}, {}, {}, {}, static_cast<int>(c.obstacles.size())};
  if (const int perThread = readDeviceOverrides().cpuCellsPerThread; perThread >= 0) s.cellsPerThread = perThread;
  DomainParams<double>& d = s.domain;
  long long n[3];
  for (int a = 0; a < 3; ++a) {
    n[a] = part.count[a] + part.ghost[2 * a] + part.ghost[2 * a + 1];
    d.n[a] = static_cast<int>(n[a]);
    d.periodic[a] = c.periodic[a] ? 1 : 0;
    d.ghost[2 * a] = part.ghost[2 * a];
    d.ghost[2 * a + 1] = part.ghost[2 * a + 1];
    d.origin[a] = static_cast<int>(part.first[a] - part.ghost[2 * a]);
    d.global[a] = static_cast<int>(c.cells[a]);
    d.collision.force[a] = c.bodyForce[a];
  }
  d.cells = n[0] * n[1] * n[2];
  d.collision.omega = omegaFromTau(c.tau);
  d.collision.trt = c.collision == CollisionModel::TRT ? 1 : 0;
  d.collision.omegaMinus = d.collision.trt ? trtOmegaMinus(d.collision.omega, c.trtMagic) : d.collision.omega;
  d.collision.trtMagic = c.trtMagic;
  d.collision.smagorinsky = c.smagorinsky ? 1 : 0;
  // Zero without LES: the regularised kernels always run the LES rate, which is then the plain one exactly.
  d.collision.smagorinskyC = c.smagorinsky ? 18 * std::numbers::sqrt2 * c.smagorinskyCs * c.smagorinskyCs : 0.0;
  d.collision.regularized = c.collision == CollisionModel::Regularized ? 1 : 0;
  for (int f = 0; f < 6; ++f) {
    const FaceBoundary& b = c.faces[f];
    d.face[f].type = faceType(b.type);
    d.face[f].parabolic = b.profile == InletProfile::Parabolic ? 1 : 0;
    d.face[f].rho = b.density;
    for (int a = 0; a < 3; ++a) d.face[f].u[a] = b.velocity[a];
    // Inlet and outlet ghost nodes read whole cells next to their face, which may be ghost cells of a split axis.
    const bool open =
        !c.periodic[f / 2] && (b.type == BoundaryType::VelocityInlet || b.type == BoundaryType::PressureOutlet);
    if (open && d.hasGhosts()) s.haloAllPopulations = true;
  }
  // Ghost layers deeper than one cell feed several steps: every population of them travels.
  for (int f = 0; f < 6; ++f)
    if (d.ghost[f] > 1) s.haloAllPopulations = true;
  // A quadratic link with q >= 1/2 reads f*_i at x + c_i, an outgoing population where x + c_i is a ghost cell,
  // which the halo then carries too. (One ghost layer: where x + 2 c_i lies beyond it, the link is linear.)
  if (d.hasGhosts() && std::any_of(c.obstacles.begin(), c.obstacles.end(), [](const Obstacle& ob) {
        return ob.boundary == ObstacleBoundary::Quadratic;
      }))
    s.haloAllPopulations = true;

  s.flags.resize(static_cast<std::size_t>(d.cells));
  s.density.assign(d.cells, c.initial.density);
  s.velocity.assign(3 * d.cells, 0.0);
  const double pi = std::numbers::pi;
  const ObstacleRaster raster = rasterFor(c, part, meshGpu);
  for (long long z = 0; z < n[2]; ++z)
    for (long long y = 0; y < n[1]; ++y)
      for (long long x = 0; x < n[0]; ++x) {
        const long long i = (z * n[1] + y) * n[0] + x;
        const long long gx = globalCoord(c, part, 0, x), gy = globalCoord(c, part, 1, y);
        const long long gz = globalCoord(c, part, 2, z);
        s.flags[i] = raster.flag(gx, gy, gz);
        if (c.initial.taylorGreenU0 && c.initial.taylorGreenForm == TaylorGreenForm::ThreeD) {
          // Brachet et al.'s (1983) 3-D vortex at cell centres (a cubic box: one wave number) with the pressure
          // that balances it, p - p0 = rho0 U0^2 / 16 (cos 2kx + cos 2ky)(cos 2kz + 2), as a density p = rho / 3.
          const double u0 = *c.initial.taylorGreenU0, rho0 = c.initial.density;
          const double k = 2 * pi / c.cells[0];
          const double px = k * (gx + 0.5), py = k * (gy + 0.5), pz = k * (gz + 0.5);
          s.velocity[3 * i + 0] = u0 * std::sin(px) * std::cos(py) * std::cos(pz);
          s.velocity[3 * i + 1] = -u0 * std::cos(px) * std::sin(py) * std::cos(pz);
          const double dp = rho0 * u0 * u0 / 16 * (std::cos(2 * px) + std::cos(2 * py)) * (std::cos(2 * pz) + 2);
          s.density[i] = rho0 + 3.0 * dp;
        } else if (c.initial.taylorGreenU0) {
          // 2D Taylor-Green vortex at cell centres; the pressure field p = rho/3 balances the vortex.
          const double u0 = *c.initial.taylorGreenU0;
          const double kx = 2 * pi / c.cells[0], ky = 2 * pi / c.cells[1];
          const double px = gx + 0.5, py = gy + 0.5;
          s.velocity[3 * i + 0] = -u0 * std::sqrt(ky / kx) * std::cos(kx * px) * std::sin(ky * py);
          s.velocity[3 * i + 1] = u0 * std::sqrt(kx / ky) * std::sin(kx * px) * std::cos(ky * py);
          const double dp = -0.25 * u0 * u0 * ((ky / kx) * std::cos(2 * kx * px) + (kx / ky) * std::cos(2 * ky * py));
          s.density[i] = c.initial.density + 3.0 * dp;
        } else {
          for (int a = 0; a < 3; ++a) s.velocity[3 * i + a] = c.initial.velocity[a];
        }
      }
  const bool interpolated = std::any_of(c.obstacles.begin(), c.obstacles.end(), [](const Obstacle& ob) {
    return ob.boundary != ObstacleBoundary::Staircase;
  });
  s.enstrophy = c.output.enstrophy;
  if (interpolated) {
    switch (c.lattice) {
      case LatticeKind::D2Q9: s.curved = curvedLinks<D2Q9>(c, part, d, s.flags); break;
      case LatticeKind::D3Q19: s.curved = curvedLinks<D3Q19>(c, part, d, s.flags); break;
      case LatticeKind::D3Q27: s.curved = curvedLinks<D3Q27>(c, part, d, s.flags); break;
    }
  }
  return s;
}

LbmSimulation::LbmSimulation(const LbmCase& c, Backend backend, KernelVariant kernels, const mpi::Comm& comm)
    : case_(c), comm_(comm) {
  part_ = wholeDomain(c);
  if (comm_.size() > 1) {
    const Decomposition::Real3 length{double(c.cells[0]), double(c.cells[1]), double(c.cells[2])};
    try {
      decomposition_.emplace(comm_, Decomposition::Real3{0, 0, 0}, length,
                             Decomposition::Bool3{c.periodic[0], c.periodic[1], c.periodic[2]},
                             processGrid(c, comm_), 1.0);
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(std::string("cannot split this domain over the MPI ranks: ") + e.what());
    }
    part_ = partitionOf(c, *decomposition_);
  }
  RunOptions asked;
  asked.backend = backend;
  asked.kernels = kernels;
  plan_ = planDevice(c.device, asked, decomposed() ? decomposition_->gpu(cudaDeviceCount()) : 0);
  // Every rank of a node draws on the same memory, and the partitions are about equal in size.
  double cells = 1;
  for (int a = 0; a < 3; ++a) cells *= double(part_.count[a] + part_.ghost[2 * a] + part_.ghost[2 * a + 1]);
  const int ranksOnNode = decomposed() ? comm_.nodeSize() : 1;
  const int lattices = cpuLattices(c, decomposed(), plan_.overrides.layout);
  checkHostMemory(ranksOnNode * cells * hostBytesPerCell(c, plan_.backend, lattices),
                  fmt::format("this case ({} cells{})", static_cast<long long>(cells),
                              ranksOnNode > 1 ? fmt::format(" per rank, {} ranks on this node", ranksOnNode) : ""));
  // Mesh obstacles are voxelised on the run's GPU on the cuda backend (the flags come out the same).
  LbmSetup setup = buildSetup(c, part_, plan_.backend == Backend::Cuda ? plan_.gpu : -1);
  // The halo exchange moves planes of the current population array, which only the two-lattice layout keeps whole.
  if (decomposed()) setup.layout = StreamingLayout::TwoLattice;
  ownedFlags_.reserve(static_cast<std::size_t>(part_.ownedCells()));
  const DomainParams<double>& d = setup.domain;
  for (int z = d.ownLo(2); z < d.ownHi(2); ++z)
    for (int y = d.ownLo(1); y < d.ownHi(1); ++y)
      for (int x = d.ownLo(0); x < d.ownHi(0); ++x) ownedFlags_.push_back(setup.flags[d.index(x, y, z)]);
  long long fluid = 0;
  for (auto f : ownedFlags_) fluid += f == kFluid ? 1 : 0;
  fluidCells_ = decomposed() ? comm_.allreduceSum(fluid) : fluid;
  // Obstacles that together fill the domain leave nothing to simulate: the run would end "done" with empty fields.
  // The parser locates one obstacle that covers the domain alone; only their union is seen here, after rasterising.
  if (fluidCells_ == 0) {
    std::string names;
    for (const Obstacle& o : c.obstacles) names += (names.empty() ? "'" : ", '") + o.name + "'";
    throw InputError(fmt::format("{}every cell of the domain lies inside an obstacle ({}): no fluid is left to "
                                 "simulate; shrink or remove obstacles",
                                 c.sourceFile.empty() ? "" : c.sourceFile + ": 'obstacles': ", names));
  }
  if (plan_.backend == Backend::Cuda) {
    planLbmKernels(plan_, setup);
    // The temporal kernel's k steps per launch need ghost layers k deep: the box is set up again with them (the
    // kernel runs solid-free periodic boxes only, so nothing is voxelised twice).
    if (const int depth = ghostDepth(plan_.lbm); decomposed() && depth > 1) {
      part_ = partitionOf(c, *decomposition_, depth);
      setup = buildSetup(c, part_, plan_.gpu);
      setup.layout = StreamingLayout::TwoLattice;
    }
    backend_ = makeCudaBackend(setup, plan_);
  } else {
    if (setup.layout == StreamingLayout::Auto) setup.layout = plan_.overrides.layout;  // HOPSIM_LBM_LAYOUT
    backend_ = makeCpuBackend(setup);
  }
  if (decomposed()) chooseHaloTransport(c.device.halo);
}

void LbmSimulation::chooseHaloTransport(HaloTransport wanted) {
  plan_.halo = HaloTransport::Staged;
  if (wanted == HaloTransport::Staged) return;
  const auto refuse = [&](const std::string& why) {
    if (wanted == HaloTransport::Ipc) throw std::runtime_error("device.halo: ipc is not possible here: " + why);
    transportNote_ = why;
  };
  if (!backend_->peerHalo()) {
    if (wanted == HaloTransport::Ipc) refuse("the " + backend_->name() + " backend keeps its planes in host memory");
    return;
  }
  std::vector<int> neighbours;
  for (int f = 0; f < 6; ++f)
    if (part_.ghost[f]) neighbours.push_back(part_.neighbor[f]);
  if (comm_.allreduceMax(comm_.sharesNodeWith(neighbours) ? 0.0 : 1.0) > 0)
    return refuse("some neighbouring ranks run on other nodes");
  // Each rank's inbox of face f is written by the rank beyond f, through that rank's opposite face. Every rank
  // takes part in every message even when it cannot make or map a handle, so that a failure cannot hang the others.
  std::string error;
  std::array<std::vector<std::byte>, 6> theirs;
  for (int f = 0; f < 6; ++f) {
    const int opposite = f ^ 1;
    std::vector<std::byte> mine(kHaloHandleBytes);
    if (part_.ghost[f] && error.empty()) {
      try {
        mine = backend_->exportHaloInbox(f);
      } catch (const std::exception& e) {
        error = e.what();
      }
    }
    theirs[opposite].assign(kHaloHandleBytes, std::byte{0});
    comm_.sendrecvBytes(part_.ghost[f] ? std::span<const std::byte>(mine) : std::span<const std::byte>(),
                        part_.ghost[f] ? part_.neighbor[f] : mpi::kNoRank,
                        part_.ghost[opposite] ? std::span<std::byte>(theirs[opposite]) : std::span<std::byte>(),
                        part_.ghost[opposite] ? part_.neighbor[opposite] : mpi::kNoRank, 400 + f);
  }
  for (int f = 0; f < 6 && error.empty(); ++f) {
    if (!part_.ghost[f]) continue;
    try {
      backend_->mapPeerInbox(f, theirs[f]);
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  if (comm_.allreduceMax(error.empty() ? 0.0 : 1.0) > 0)
    return refuse("mapping a neighbour's GPU memory failed" +
                  (error.empty() ? std::string(" on another rank") : ": " + error));
  plan_.halo = HaloTransport::Ipc;
}

void LbmSimulation::advance(long long steps, bool forcesOnLastStep) {
  if (steps <= 0) return;
  if (!decomposed()) {
    backend_->advance(steps, forcesOnLastStep);
  } else {
    // The ghost layers start from the initial state at their global cells; after each step the exchange brings
    // them up to date, overlapping the update of the cells that do not border them. Ghost layers k deep serve k
    // steps (one launch of the temporal kernel), then all k planes are exchanged.
    const int k = backend_->stepsPerExchange();
    if (k > 1) {
      for (long long s = 0; s < steps; s += k) {
        const long long m = std::min<long long>(k, steps - s);
        backend_->advance(m, forcesOnLastStep && s + m == steps);
        if (haloSkipped()) continue;
        // The exchange's packs wait for the launch anyway; waited for here, it stays out of the exchange's time.
        backend_->finish();
        exchangeHalo();
      }
    } else {
      for (long long s = 0; s < steps; ++s) {
        backend_->advanceShellFirst(forcesOnLastStep && s == steps - 1);
        if (!haloSkipped()) exchangeHalo();
      }
    }
  }
  step_ += steps;
}

void LbmSimulation::advanceSampled(long long steps, bool forcesOnLastStep) {
  if (steps <= 0 || decomposed()) {
    advance(steps, forcesOnLastStep);
    sampleObservables();
    return;
  }
  backend_->advanceSampled(steps, forcesOnLastStep);
  step_ += steps;
}

void LbmSimulation::exchangeHalo() {
  if (!decomposed()) return;
  const auto t0 = std::chrono::steady_clock::now();
  // Axis by axis, x then y then z: each axis's planes include the ghost cells filled by the axes before it, which
  // carries edge and corner populations on to the diagonal neighbours (see kernels/lbm/Halo.h).
  for (int a = 0; a < 3; ++a) {
    const int lo = 2 * a, hi = 2 * a + 1;
    if (!part_.ghost[lo] && !part_.ghost[hi]) continue;
    if (plan_.halo == HaloTransport::Ipc) {
      exchangeAxisDirect(lo, hi);
      continue;
    }
    const std::span<std::byte> none;
    // Towards +a: my plus plane goes to the rank beyond it; the rank beyond my minus face sends me its plus plane.
    comm_.sendrecvBytes(part_.ghost[hi] ? backend_->packHalo(hi) : std::span<const std::byte>(), part_.neighbor[hi],
                        part_.ghost[lo] ? backend_->haloInbox(lo) : none, part_.neighbor[lo], 100 + lo);
    comm_.sendrecvBytes(part_.ghost[lo] ? backend_->packHalo(lo) : std::span<const std::byte>(), part_.neighbor[lo],
                        part_.ghost[hi] ? backend_->haloInbox(hi) : none, part_.neighbor[hi], 100 + hi);
    if (part_.ghost[lo]) backend_->unpackHalo(lo);
    if (part_.ghost[hi]) backend_->unpackHalo(hi);
  }
  ++exchanges_;
  haloSeconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string LbmSimulation::haloPath() const {
  if (plan_.backend != Backend::Cuda) return "host memory, MPI_Sendrecv";
  if (plan_.halo == HaloTransport::Ipc)
    return "CUDA IPC: the GPU pack kernel writes into the neighbour's device memory; zero-byte MPI messages say "
           "when it has landed";
  std::string path = std::string("GPU pack kernel, pinned host buffers, MPI_Sendrecv, GPU unpack (MPI CUDA-aware: ") +
                     mpi::cudaAwareness() + ")";
  if (!transportNote_.empty()) path += "; not CUDA IPC: " + transportNote_;
  return path;
}

// The planes go straight into the neighbours' inboxes; the zero-byte messages say that they have landed. Alternate
// exchanges use alternate inbox slots: a rank can only be one exchange ahead of a neighbour (it waits for that
// neighbour's message every exchange), so the slot it writes is never the one the neighbour is still unpacking.
void LbmSimulation::exchangeAxisDirect(int lo, int hi) {
  const int slot = static_cast<int>(exchanges_ & 1);
  if (part_.ghost[hi]) backend_->packHaloToPeer(hi, slot);
  if (part_.ghost[lo]) backend_->packHaloToPeer(lo, slot);
  backend_->waitHaloPacks();
  const auto partner = [&](int f) { return part_.ghost[f] ? part_.neighbor[f] : mpi::kNoRank; };
  comm_.sendrecvBytes({}, partner(hi), {}, partner(lo), 100 + lo);
  comm_.sendrecvBytes({}, partner(lo), {}, partner(hi), 100 + hi);
  if (part_.ghost[lo]) backend_->unpackHaloSlot(lo, slot);
  if (part_.ghost[hi]) backend_->unpackHaloSlot(hi, slot);
}

std::vector<double> LbmSimulation::gatherOwned(const std::vector<double>& local, int components) const {
  if (!decomposed()) return local;
  std::vector<double> all = comm_.gather(local, 0);
  if (!comm_.isRoot()) return {};
  const long long nx = case_.cells[0], ny = case_.cells[1];
  std::vector<double> out(static_cast<std::size_t>(components * cellCount()));
  std::size_t at = 0;
  for (int r = 0; r < comm_.size(); ++r) {
    const LbmPartition block = ownedPartOf(r);
    const auto &first = block.first, &count = block.count;
    for (long long z = 0; z < count[2]; ++z)
      for (long long y = 0; y < count[1]; ++y)
        for (long long x = 0; x < count[0]; ++x) {
          const long long g = ((first[2] + z) * ny + first[1] + y) * nx + first[0] + x;
          for (int k = 0; k < components; ++k) out[components * g + k] = all[at++];
        }
  }
  return out;
}

void LbmSimulation::fields(std::vector<double>& density, std::vector<double>& velocity) {
  backend_->macroscopic(density, velocity);
  if (!decomposed()) return;
  density = gatherOwned(density, 1);
  velocity = gatherOwned(velocity, 3);
}

void LbmSimulation::flagField(std::vector<double>& flags) {
  flags.assign(ownedFlags_.begin(), ownedFlags_.end());
  flags = gatherOwned(flags, 1);
}

void LbmSimulation::localFields(std::vector<double>& density, std::vector<double>& velocity) {
  backend_->macroscopic(density, velocity);
}

void LbmSimulation::localFlagField(std::vector<double>& flags) const {
  flags.assign(ownedFlags_.begin(), ownedFlags_.end());
}

LbmPartition LbmSimulation::ownedPartOf(int rank) const {
  if (!decomposed()) {
    if (rank != 0) throw std::invalid_argument("a run on one rank has no rank " + std::to_string(rank));
    return wholeDomain(case_);
  }
  if (rank < 0 || rank >= decomposition_->size())
    throw std::invalid_argument("no rank " + std::to_string(rank) + " in this run");
  const Decomposition::Int3 rc = decomposition_->coordsOf(rank);
  LbmPartition p;
  for (int a = 0; a < 3; ++a) {
    const auto [f, l] = Decomposition::splitRange(case_.cells[a], decomposition_->dims()[a], rc[a]);
    p.first[a] = f;
    p.count[a] = l - f;
  }
  return p;
}

Observables LbmSimulation::observables() {
  Observables o = backend_->observables();
  if (!decomposed()) return o;
  // The fluid-cell count is exact in a double; mass is fluid cells + sum (rho - 1) as in the backends.
  std::vector<double> sums{o.mass, o.kineticEnergy, o.enstrophy};
  comm_.allreduceSum(sums);
  return {sums[0], sums[1], comm_.allreduceMax(o.maxSpeed), sums[2]};
}

std::vector<Observables> LbmSimulation::readObservables() {
  std::vector<Observables> o = backend_->readObservables();
  // Every rank sampled the same steps, so every rank reads as many samples.
  if (!decomposed() || o.empty()) return o;
  std::vector<double> sums, maxima;
  for (const Observables& x : o) {
    sums.push_back(x.mass);
    sums.push_back(x.kineticEnergy);
    sums.push_back(x.enstrophy);
    maxima.push_back(x.maxSpeed);
  }
  comm_.allreduceSum(sums);
  comm_.allreduceMax(maxima);
  for (std::size_t k = 0; k < o.size(); ++k) o[k] = {sums[3 * k], sums[3 * k + 1], maxima[k], sums[3 * k + 2]};
  return o;
}

std::vector<std::vector<std::array<double, 3>>> LbmSimulation::readForces() {
  std::vector<std::vector<std::array<double, 3>>> f = backend_->readForces();
  if (!decomposed() || f.empty()) return f;
  std::vector<double> flat;
  for (const auto& sample : f)
    for (const auto& v : sample) flat.insert(flat.end(), v.begin(), v.end());
  comm_.allreduceSum(flat);
  std::size_t at = 0;
  for (auto& sample : f)
    for (auto& v : sample) {
      v = {flat[at], flat[at + 1], flat[at + 2]};
      at += 3;
    }
  return f;
}

std::vector<std::array<double, 3>> LbmSimulation::forces() {
  std::vector<std::array<double, 3>> f = backend_->obstacleForces();
  if (!decomposed()) return f;
  std::vector<double> flat;
  for (const auto& v : f) flat.insert(flat.end(), v.begin(), v.end());
  comm_.allreduceSum(flat);
  for (std::size_t k = 0; k < f.size(); ++k) f[k] = {flat[3 * k], flat[3 * k + 1], flat[3 * k + 2]};
  return f;
}

long long LbmSimulation::cellCount() const { return case_.cells[0] * case_.cells[1] * case_.cells[2]; }

}  // namespace hopsim::lbm
