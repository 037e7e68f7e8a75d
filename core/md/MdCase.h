// A molecular dynamics case after parsing and validation: typed settings and where its initial particles come from.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/CheckpointSpec.h"
#include "core/DeviceSpec.h"
#include "core/md/ParticleState.h"

namespace hopsim::md {

enum class Precision { Single, Mixed, Double };
enum class IntegratorType { Nve, Langevin, NoseHoover };
const char* toString(Precision p);
const char* toString(IntegratorType t);

struct LjSettings {
  double epsilon = 1.0, sigma = 1.0, cutoff = 2.5;
  bool shift = false, tailCorrection = false;
};

// The reach of the neighbour list: pairs within cutoff + skin are listed, ghosts are sent that far, bins and
// sub-boxes are at least that wide. The only place the skin is added to the cut-off.
inline double interactionRange(const LjSettings& lj, double skin) { return lj.cutoff + skin; }

// The squared displacement since the last list build beyond which the list may miss a pair: (skin / 2)^2.
inline double rebuildDisplacementSq(double skin) { return 0.25 * skin * skin; }

struct IntegratorSettings {
  IntegratorType type = IntegratorType::Nve;
  double dt = 0.005;
  double temperature = 0;  // langevin, nose_hoover
  double damping = 0;      // langevin: damping time
  double tau = 0;          // nose_hoover: relaxation time
  std::uint64_t seed = 0;  // langevin noise
};

// LAMMPS's `lattice fcc RHO`: cubic unit cells of side (4 / rho)^(1/3), 4 atoms each.
double fccCellSide(double density);

struct FccLatticeSettings {
  double density = 1.0;
  std::array<long long, 3> cells{1, 1, 1};  // unit cells along each axis
  double mass = 1.0;
  std::size_t atoms() const { return static_cast<std::size_t>(4 * cells[0] * cells[1] * cells[2]); }
  Box box() const;
};

// Where the initial particles come from: an fcc crystal the solver builds (solvers/md/InitialState.h), or particles
// the parser read from the file the case names (LAMMPS data or an H5MD frame: read at parse time, so that a bad file
// is an error located in it, and so that the box can be checked against the cut-off) or a caller handed over.
struct MdSystem {
  enum class Kind { FccLattice, Particles };
  Kind kind = Kind::Particles;
  FccLatticeSettings lattice;  // kind FccLattice
  ParticleState particles;     // kind Particles
  std::string source;          // "fcc lattice ...", "LAMMPS data file ...": for the parameter table

  // What is known before the particles exist (the box check, the decomposition).
  Box box() const { return kind == Kind::FccLattice ? lattice.box() : particles.box; }
  std::size_t size() const { return kind == Kind::FccLattice ? lattice.atoms() : particles.size(); }
};

struct VelocitySettings {
  bool create = false;  // false: keep the velocities the particles have (read from the file, or zero)
  double temperature = 0;
  std::uint64_t seed = 0;
};

struct MdOutputSettings {
  std::string dir = "out/md";
  long long every = 0;  // 0: final state only
  bool h5md = true, vtk = false;
  CheckpointSpec checkpoint;  // output.checkpoint (README, "Long runs")
};

struct MdCase {
  Precision precision = Precision::Mixed;
  LjSettings lj;
  double skin = 0.3;
  VelocitySettings velocity;  // drawn over the system's particles when `create`
  IntegratorSettings integrator;
  long long steps = 0;
  long long thermoEvery = 0;  // 0: first and last step only
  MdOutputSettings output;
  DeviceSpec device;
  MdSystem system;
};

}  // namespace hopsim::md
