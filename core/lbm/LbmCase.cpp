// Names of the LBM case's enumerations, spelled as case files spell them (logs and run.json echo the input).
#include "core/lbm/LbmCase.h"

#include <fmt/format.h>

namespace hopsim::lbm {

const char* toString(LatticeKind k) {
  switch (k) {
    case LatticeKind::D2Q9: return "D2Q9";
    case LatticeKind::D3Q19: return "D3Q19";
    case LatticeKind::D3Q27: return "D3Q27";
  }
  return "?";
}

const char* toString(Precision p) {
  switch (p) {
    case Precision::Single: return "single";
    case Precision::Double: return "double";
    case Precision::Half: return "half";
  }
  return "?";
}

const char* toString(CollisionModel c) {
  switch (c) {
    case CollisionModel::BGK: return "bgk";
    case CollisionModel::TRT: return "trt";
    case CollisionModel::Regularized: return "regularized";
  }
  return "?";
}

std::string describeCollision(const LbmCase& c) {
  std::string s = toString(c.collision);
  if (c.collision == CollisionModel::TRT) s += fmt::format(" (magic {})", c.trtMagic);
  if (c.smagorinsky) s += fmt::format(" + Smagorinsky LES (Cs {})", c.smagorinskyCs);
  return s;
}

const char* toString(BoundaryType b) {
  switch (b) {
    case BoundaryType::Periodic: return "periodic";
    case BoundaryType::Wall: return "wall";
    case BoundaryType::MovingWall: return "moving_wall";
    case BoundaryType::VelocityInlet: return "velocity_inlet";
    case BoundaryType::PressureOutlet: return "pressure_outlet";
  }
  return "?";
}

const char* toString(ObstacleBoundary b) {
  switch (b) {
    case ObstacleBoundary::Staircase: return "staircase";
    case ObstacleBoundary::Interpolated: return "interpolated";
    case ObstacleBoundary::Quadratic: return "quadratic";
  }
  return "?";
}

const char* toString(Hdf5Layout l) {
  switch (l) {
    case Hdf5Layout::Auto: return "auto";
    case Hdf5Layout::Collective: return "collective";
    case Hdf5Layout::PerRank: return "per-rank";
  }
  return "?";
}

const char* faceName(int face) {
  static const char* const names[6] = {"x-", "x+", "y-", "y+", "z-", "z+"};
  return face >= 0 && face < 6 ? names[face] : "?";
}

}  // namespace hopsim::lbm
