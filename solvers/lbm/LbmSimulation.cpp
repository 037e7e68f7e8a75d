// Builds a lattice Boltzmann state from a case: flags from obstacle shapes, initial fields, face parameters.
#include "solvers/lbm/LbmSimulation.h"

#include <cmath>
#include <numbers>
#include <stdexcept>

#include "kernels/common/DeviceInfo.h"
#include "kernels/lbm/Collision.h"

namespace hopsim::lbm {
namespace {

bool inside(const Obstacle& ob, const Vec3& p, int dims) {
  switch (ob.shape) {
    case ShapeKind::Circle: {
      const double dx = p[0] - ob.center[0], dy = p[1] - ob.center[1];
      return dx * dx + dy * dy <= ob.radius * ob.radius;
    }
    case ShapeKind::Sphere: {
      double r2 = 0;
      for (int a = 0; a < 3; ++a) r2 += (p[a] - ob.center[a]) * (p[a] - ob.center[a]);
      return r2 <= ob.radius * ob.radius;
    }
    case ShapeKind::Cylinder: {
      double r2 = 0;
      for (int a = 0; a < 3; ++a)
        if (a != ob.axis) r2 += (p[a] - ob.center[a]) * (p[a] - ob.center[a]);
      return r2 <= ob.radius * ob.radius;
    }
    case ShapeKind::Box:
      for (int a = 0; a < dims; ++a)
        if (p[a] < ob.min[a] || p[a] > ob.max[a]) return false;
      return true;
  }
  return false;
}

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

}  // namespace

std::vector<std::uint8_t> buildFlags(const LbmCase& c) {
  const long long nx = c.cells[0], ny = c.cells[1], nz = c.cells[2];
  std::vector<std::uint8_t> flags(static_cast<std::size_t>(nx * ny * nz), kFluid);
  if (c.obstacles.size() > static_cast<std::size_t>(kMaxObstacles))
    throw std::runtime_error("too many obstacles (at most 253)");
  for (long long z = 0; z < nz; ++z)
    for (long long y = 0; y < ny; ++y)
      for (long long x = 0; x < nx; ++x) {
        const Vec3 centre{x + 0.5, y + 0.5, z + 0.5};
        for (std::size_t k = 0; k < c.obstacles.size(); ++k)
          if (inside(c.obstacles[k], centre, c.dimensions)) {
            flags[(z * ny + y) * nx + x] = static_cast<std::uint8_t>(kObstacleBase + k);
            break;
          }
      }
  return flags;
}

LbmSetup buildSetup(const LbmCase& c) {
  LbmSetup s{c.lattice, c.precision, {}, buildFlags(c), {}, {}, static_cast<int>(c.obstacles.size())};
  DomainParams<double>& d = s.domain;
  for (int a = 0; a < 3; ++a) {
    d.n[a] = static_cast<int>(c.cells[a]);
    d.periodic[a] = c.periodic[a] ? 1 : 0;
    d.collision.force[a] = c.bodyForce[a];
  }
  d.cells = c.cells[0] * c.cells[1] * c.cells[2];
  d.collision.omega = 1.0 / c.tau;
  d.collision.trt = c.collision == CollisionModel::TRT ? 1 : 0;
  d.collision.omegaMinus = d.collision.trt ? trtOmegaMinus(d.collision.omega, c.trtMagic) : d.collision.omega;
  for (int f = 0; f < 6; ++f) {
    const FaceBoundary& b = c.faces[f];
    d.face[f].type = faceType(b.type);
    d.face[f].parabolic = b.profile == InletProfile::Parabolic ? 1 : 0;
    d.face[f].rho = b.density;
    for (int a = 0; a < 3; ++a) d.face[f].u[a] = b.velocity[a];
  }

  const long long n = d.cells;
  s.density.assign(n, c.initial.density);
  s.velocity.assign(3 * n, 0.0);
  const double pi = std::numbers::pi;
  for (long long z = 0; z < c.cells[2]; ++z)
    for (long long y = 0; y < c.cells[1]; ++y)
      for (long long x = 0; x < c.cells[0]; ++x) {
        const long long i = (z * c.cells[1] + y) * c.cells[0] + x;
        if (c.initial.taylorGreenU0) {
          // 2D Taylor-Green vortex at cell centres; the pressure field p = rho/3 balances the vortex.
          const double u0 = *c.initial.taylorGreenU0;
          const double kx = 2 * pi / c.cells[0], ky = 2 * pi / c.cells[1];
          const double px = x + 0.5, py = y + 0.5;
          s.velocity[3 * i + 0] = -u0 * std::sqrt(ky / kx) * std::cos(kx * px) * std::sin(ky * py);
          s.velocity[3 * i + 1] = u0 * std::sqrt(kx / ky) * std::sin(kx * px) * std::cos(ky * py);
          const double dp = -0.25 * u0 * u0 * ((ky / kx) * std::cos(2 * kx * px) + (kx / ky) * std::cos(2 * ky * py));
          s.density[i] = c.initial.density + 3.0 * dp;
        } else {
          for (int a = 0; a < 3; ++a) s.velocity[3 * i + a] = c.initial.velocity[a];
        }
      }
  return s;
}

Backend resolveBackend(Backend requested) {
  if (requested != Backend::Auto) return requested;
  return cudaDeviceCount() > 0 ? Backend::Cuda : Backend::Cpu;
}

LbmSimulation::LbmSimulation(const LbmCase& c, Backend backend, KernelVariant kernels)
    : case_(c), backendKind_(resolveBackend(backend)) {
  LbmSetup setup = buildSetup(c);
  flags_ = setup.flags;
  for (auto f : flags_) fluidCells_ += f == kFluid ? 1 : 0;
  if (backendKind_ == Backend::Cuda)
    backend_ = makeCudaBackend(setup, kernels, c.device.gpu < 0 ? 0 : c.device.gpu);
  else
    backend_ = makeCpuBackend(setup);
}

void LbmSimulation::advance(long long steps, bool forcesOnLastStep) {
  if (steps <= 0) return;
  backend_->advance(steps, forcesOnLastStep);
  step_ += steps;
}

long long LbmSimulation::cellCount() const { return case_.cells[0] * case_.cells[1] * case_.cells[2]; }

}  // namespace hopsim::lbm
