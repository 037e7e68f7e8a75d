// A molecular dynamics case after parsing and validation: typed settings plus the initial particles.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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

struct VelocitySettings {
  bool create = false;  // false: keep velocities read from the data file (or zero)
  double temperature = 0;
  std::uint64_t seed = 0;
};

struct MdOutputSettings {
  std::string dir = "out/md";
  long long every = 0;  // 0: final state only
  bool h5md = true, vtk = false;
};

struct MdCase {
  Precision precision = Precision::Mixed;
  LjSettings lj;
  double skin = 0.3;
  VelocitySettings velocity;
  IntegratorSettings integrator;
  long long steps = 0;
  long long thermoEvery = 0;  // 0: first and last step only
  MdOutputSettings output;
  DeviceSpec device;
  std::string systemSource;   // "fcc lattice ...", "LAMMPS data file ...": for the parameter table
  ParticleState initial;
};

}  // namespace hopsim::md
