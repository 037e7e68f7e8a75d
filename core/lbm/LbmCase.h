// The typed, validated description of a lattice Boltzmann case (what io/LbmCaseParser makes of the YAML file).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/CheckpointSpec.h"
#include "core/geometry/MeshVoxelizer.h"
#include "core/lbm/LbmTypes.h"
#include "core/lbm/Units.h"
#include "core/DeviceSpec.h"

namespace hopsim::lbm {

enum class CollisionModel { BGK, TRT, Regularized };
enum class BoundaryType { Periodic, Wall, MovingWall, VelocityInlet, PressureOutlet };
enum class InletProfile { Uniform, Parabolic };
enum class ShapeKind { Circle, Sphere, Cylinder, Box, Mesh };
// How fluid cells next to an obstacle bounce populations off it: half-way between the cell centres (the surface
// is the staircase of the solid cells' faces), or at the shape's own surface, interpolated along each link
// (Bouzidi, Firdaouss & Lallemand 2001) linearly or quadratically (interpolatedBounce(), StreamCollide.h).
enum class ObstacleBoundary { Staircase, Interpolated, Quadratic };

using Vec3 = std::array<double, 3>;

// One face of the box: index = 2 * axis + (0 for the minus face, 1 for the plus face).
struct FaceBoundary {
  BoundaryType type = BoundaryType::Periodic;
  Vec3 velocity{};                           // moving_wall, velocity_inlet (peak for parabolic)
  InletProfile profile = InletProfile::Uniform;
  double density = 1.0;                      // pressure_outlet
};

struct Obstacle {
  std::string name;
  ShapeKind shape = ShapeKind::Box;
  Vec3 center{};      // circle, sphere, cylinder (a point on the axis)
  double radius = 0;  // circle, sphere, cylinder
  int axis = 2;       // cylinder: 0 = x, 1 = y, 2 = z
  Vec3 min{}, max{};  // box
  std::string file;   // mesh: the STL file, as the case names it
  std::shared_ptr<const geometry::MeshIndex> mesh;  // mesh: the closed surface in lattice units, placed
  ObstacleBoundary boundary = ObstacleBoundary::Staircase;
};

// Which Taylor-Green vortex `initial.taylor_green` sets: the 2-D one (extruded along z on a 3-D lattice), or the
// 3-D one of Brachet et al. (1983), u = U0 sin x cos y cos z, v = -U0 cos x sin y cos z, w = 0 (a cubic box).
enum class TaylorGreenForm { TwoD, ThreeD };

struct InitialCondition {
  double density = 1.0;
  Vec3 velocity{};
  std::optional<double> taylorGreenU0;  // {taylor_green: {u0: ...}} replaces density/velocity
  // The case parser's default is ThreeD on 3-D lattices; a case built in code gets the 2-D vortex unless it says so.
  TaylorGreenForm taylorGreenForm = TaylorGreenForm::TwoD;
};

struct ForcesOutput {
  int every = 0;              // 0: no forces.csv
  double refVelocity = 0;     // U in cd = 2 F / (rho0 U^2 L)
  double refLength = 0;       // L (2D) or area A (3D)
  double refDensity = 1.0;
};

enum class FieldName { Density, Velocity, Flags, Pressure };  // pressure: c_s^2 (rho - rho_ref), gauge
enum class OutputFormat { Hdf5, Vtk };
// How a decomposed run writes HDF5 fields: one file per step written collectively by every rank (needs a parallel
// HDF5), one file per rank and step, or the first where the build allows it. One rank always writes one file.
enum class Hdf5Layout { Auto, Collective, PerRank };

struct OutputSpec {
  std::string dir = "out";
  int every = 0;                  // field output interval; 0 = final state only
  std::vector<FieldName> fields{FieldName::Density, FieldName::Velocity};
  std::vector<OutputFormat> formats{OutputFormat::Hdf5};
  Hdf5Layout hdf5 = Hdf5Layout::Auto;
  int compression = 0;            // output.compression: gzip level of the HDF5 fields, 0 = none (contiguous)
  int observablesEvery = 100;     // observables.csv interval (0: only first and last step)
  // observables.csv's enstrophy column (output.observables.enstrophy): off unless asked, since each sample then
  // reads every fluid cell's six axis neighbours too (a pass several times the cost of the other observables).
  bool enstrophy = false;
  ForcesOutput forces;
  CheckpointSpec checkpoint;      // output.checkpoint (README, "Long runs")
};

struct LbmCase {
  std::string sourceFile;
  // Lattice units (the identity) unless the case has a `units:` section; every value below is in lattice units
  // either way, converted where it was read. The run writes its outputs back through it.
  UnitSystem units;
  LatticeKind lattice = LatticeKind::D2Q9;
  int dimensions = 2;
  Precision precision = Precision::Double;
  CollisionModel collision = CollisionModel::BGK;
  double trtMagic = 3.0 / 16.0;
  // collision.les: Smagorinsky LES with constant smagorinskyCs (Cs; the filter width is one cell), or none.
  bool smagorinsky = false;
  double smagorinskyCs = 0.1;
  std::array<long long, 3> cells{1, 1, 1};   // unused axes are 1
  std::array<bool, 3> periodic{false, false, true};
  double viscosity = 0;   // lattice units; tau = 3 nu + 1/2
  double tau = 0;
  Vec3 bodyForce{};
  std::array<FaceBoundary, 6> faces{};
  std::vector<Obstacle> obstacles;
  InitialCondition initial;
  long long steps = 0;
  OutputSpec output;
  DeviceSpec device;
};

const char* toString(LatticeKind k);
const char* toString(Precision p);
const char* toString(CollisionModel c);
const char* toString(BoundaryType b);
const char* toString(ObstacleBoundary b);
const char* toString(Hdf5Layout l);
// The collision as the run and the bench print it: "trt (magic 0.1875)", "bgk + Smagorinsky LES (Cs 0.1)".
std::string describeCollision(const LbmCase& c);
const char* faceName(int face);  // "x-", "x+", ...

}  // namespace hopsim::lbm
