// Small LBM cases that exercise every boundary type, and the comparison of two backends run on the same case:
// shared by the GPU agreement tests and the host run of the CUDA backend's per-cell code.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "CatchCompat.h"
#include "io/CaseReader.h"
#include "io/LbmCaseParser.h"
#include "kernels/lbm/LbmBackend.h"
#include "solvers/lbm/LbmSimulation.h"

namespace hopsim::lbm::testing {

// Case kinds: body-force-driven periodic box with an obstacle; channel with parabolic inlet, pressure outlet,
// walls and an obstacle; cavity with a moving lid; square duct (3D: periodic x, walls around, body force); curved:
// a body-force-driven channel, periodic along x, between a wall and a moving wall, around obstacles with
// interpolated bounce-back (one across the periodic x face, one whose links share cells with a wall's) and a
// staircase one.
enum class Flow { PeriodicForce, Channel, Cavity, Duct, Curved };

inline const char* flowName(Flow f) {
  switch (f) {
    case Flow::PeriodicForce: return "periodic+force+obstacle";
    case Flow::Channel: return "channel inlet/outlet+obstacle";
    case Flow::Cavity: return "cavity moving wall";
    case Flow::Duct: return "duct walls+force";
    case Flow::Curved: return "interpolated (linear, quadratic) obstacles+walls+force";
  }
  return "?";
}

inline std::vector<Flow> flowsFor(const std::string& lattice) {
  if (lattice == "D2Q9") return {Flow::PeriodicForce, Flow::Channel, Flow::Cavity, Flow::Curved};
  return {Flow::PeriodicForce, Flow::Channel, Flow::Cavity, Flow::Duct, Flow::Curved};
}

// The collision models of the agreement loops: `collision:` of caseYaml() takes any of them. The LES constant is
// large so that the eddy viscosity changes these small, slow flows (about 1% of the viscosity): a path that skipped
// its terms would be far outside every tolerance.
inline const std::string kTrtLes = "trt, les: {model: smagorinsky, cs: 0.4}";
// The regularised operator's one kernel variant (it always carries the LES terms: with Cs = 0 they change nothing).
inline const std::string kRegularizedLes = "regularized, les: {model: smagorinsky, cs: 0.4}";
inline const std::vector<std::string>& collisionModels() {
  static const std::vector<std::string> models = {"bgk", "trt", "bgk, les: {model: smagorinsky, cs: 0.4}", kTrtLes,
                                                  kRegularizedLes};
  return models;
}

// The domain and faces of a D2Q9 channel of nx x ny cells: a parabolic velocity inlet (peak 0.05) at x-, a pressure
// outlet at x+, a wall at y- and `top` (a YAML flow map) at y+.
inline std::string channel2dYaml(int nx, int ny, const std::string& top = "{type: wall}") {
  return "domain: {cells: [" + std::to_string(nx) + ", " + std::to_string(ny) +
         "]}\nboundaries:\n"
         "  x-: {type: velocity_inlet, profile: parabolic, velocity: [0.05, 0]}\n"
         "  x+: {type: pressure_outlet, density: 1.0}\n"
         "  y-: {type: wall}\n  y+: " + top + "\n";
}

inline std::string caseYaml(const std::string& lattice, const std::string& precision, const std::string& collision,
                            Flow flow) {
  const bool d3 = lattice != "D2Q9";
  std::string y = "solver: lbm\nlattice: " + lattice + "\nprecision: " + precision + "\ncollision: {model: " +
                  collision + "}\nfluid: {tau: 0.7}\nrun: {steps: 100}\ndevice: {backend: auto}\n";
  switch (flow) {
    case Flow::PeriodicForce:
      y += d3 ? "domain: {cells: [20, 14, 12], periodic: [x, y, z]}\nbody_force: [2.0e-5, -1.0e-5, 0.5e-5]\n"
                "obstacles:\n  - {name: block, shape: box, min: [6, 4, 3], max: [11, 9, 8]}\n"
              : "domain: {cells: [40, 28], periodic: [x, y]}\nbody_force: [2.0e-5, -1.0e-5]\n"
                "obstacles:\n  - {name: block, shape: box, min: [12, 10], max: [18, 16]}\n";
      y += "initial: {taylor_green: {u0: 0.03, form: 2d}}\n";  // the extruded vortex fits a box that is no cube
      break;
    case Flow::Channel:
      y += d3 ? "domain: {cells: [24, 14, 12]}\nboundaries:\n"
                "  x-: {type: velocity_inlet, profile: parabolic, velocity: [0.04, 0, 0]}\n"
                "  x+: {type: pressure_outlet, density: 1.0}\n"
                "  y-: {type: wall}\n  y+: {type: wall}\n  z-: {type: wall}\n  z+: {type: wall}\n"
                "obstacles:\n  - {name: ball, shape: sphere, center: [8, 7.2, 6.1], radius: 3}\n"
                "initial: {density: 1.0, velocity: [0.02, 0, 0]}\n"
              : channel2dYaml(48, 22) +
                "obstacles:\n  - {name: cyl, shape: circle, center: [14, 10.7], radius: 4}\n"
                "initial: {density: 1.0, velocity: [0.03, 0]}\n";
      break;
    case Flow::Cavity:
      y += d3 ? "domain: {cells: [16, 14, 12]}\nboundaries:\n"
                "  x-: {type: wall}\n  x+: {type: wall}\n  y-: {type: wall}\n  y+: {type: wall}\n"
                "  z-: {type: wall}\n  z+: {type: moving_wall, velocity: [0.05, 0.02, 0]}\n"
              : "domain: {cells: [32, 30]}\nboundaries:\n"
                "  x-: {type: wall}\n  x+: {type: wall}\n  y-: {type: wall}\n"
                "  y+: {type: moving_wall, velocity: [0.05, 0]}\n";
      break;
    case Flow::Duct:
      y += "domain: {cells: [10, 16, 14], periodic: [x]}\nbody_force: [5.0e-5, 0, 0]\nboundaries:\n"
           "  y-: {type: wall}\n  y+: {type: wall}\n  z-: {type: wall}\n  z+: {type: wall}\n"
           "initial: {density: 1.0, velocity: [0.01, 0.002, -0.001]}\n";
      break;
    case Flow::Curved:
      y += d3 ? "domain: {cells: [24, 14, 12], periodic: [x, z]}\nbody_force: [4.0e-5, 0, 0]\nboundaries:\n"
                "  y-: {type: wall}\n  y+: {type: moving_wall, velocity: [0.02, 0, 0.01]}\nobstacles:\n"
                "  - {name: across, shape: sphere, center: [3.6, 7.4, 6.2], radius: 3.4, boundary: interpolated}\n"
                "  - {name: low, shape: cylinder, center: [13.6, 2.3, 0], axis: z, radius: 1.9, "
                "boundary: quadratic}\n"
                "  - {name: block, shape: box, min: [16, 8, 3], max: [19, 11, 7]}\n"
              : "domain: {cells: [40, 24], periodic: [x]}\nbody_force: [4.0e-5, 0]\nboundaries:\n"
                "  y-: {type: wall}\n  y+: {type: moving_wall, velocity: [0.02, 0]}\nobstacles:\n"
                "  - {name: across, shape: circle, center: [4.6, 12.3], radius: 4.3, boundary: interpolated}\n"
                "  - {name: low, shape: circle, center: [21.4, 2.2], radius: 1.8, boundary: quadratic}\n"
                "  - {name: block, shape: box, min: [30, 14], max: [34, 18]}\n";
      y += d3 ? "initial: {density: 1.0, velocity: [0.02, 0, 0]}\n" : "initial: {density: 1.0, velocity: [0.02, 0]}\n";
      break;
  }
  return y;
}

// Inlet and outlet faces meeting everything a face cell's links can meet: a periodic axis (3-D) across them, a wall
// and a moving wall, obstacles touching the inlet and the outlet planes (the ghost node's inner neighbour solid), an
// inflow at an angle to the face, and a body force. `onPlanes` false: the obstacles moved four cells into the box,
// off the face planes (where the face pass's ghost values can be wrapped into the opposite face, KernelPlan::openWrap).
inline std::string openFacesYaml(const std::string& lattice, const std::string& precision, bool onPlanes = true) {
  const bool d3 = lattice != "D2Q9";
  const int shift = onPlanes ? 0 : 4;
  const auto box = [&](int x0, const std::string& rest0, int x1, const std::string& rest1) {
    return "min: [" + std::to_string(x0) + rest0 + "], max: [" + std::to_string(x1) + rest1 + "]";
  };
  std::string y = "solver: lbm\nlattice: " + lattice + "\nprecision: " + precision +
                  "\ncollision: {model: trt}\nfluid: {tau: 0.7}\nrun: {steps: 100}\ndevice: {backend: auto}\n";
  y += d3 ? "domain: {cells: [18, 12, 10], periodic: [y]}\nbody_force: [1.0e-5, 0, 0]\nboundaries:\n"
            "  x-: {type: velocity_inlet, velocity: [0.03, 0.005, 0]}\n  x+: {type: pressure_outlet, density: 1.0}\n"
            "  z-: {type: wall}\n  z+: {type: moving_wall, velocity: [0.02, 0, 0]}\nobstacles:\n"
            "  - {name: at_inlet, shape: box, " + box(shift, ", 4, 3", 3 + shift, ", 7, 6") + "}\n"
            "  - {name: at_outlet, shape: box, " + box(15 - shift, ", 2, 5", 18 - shift, ", 5, 8") + "}\n"
            "initial: {density: 1.0, velocity: [0.02, 0, 0]}\n"
          : "domain: {cells: [36, 20]}\nbody_force: [1.0e-5, 0]\nboundaries:\n"
            "  x-: {type: velocity_inlet, velocity: [0.03, 0.004]}\n  x+: {type: pressure_outlet, density: 1.0}\n"
            "  y-: {type: wall}\n  y+: {type: moving_wall, velocity: [0.02, 0]}\nobstacles:\n"
            "  - {name: at_inlet, shape: box, " + box(shift, ", 6", 3 + shift, ", 10") + "}\n"
            "  - {name: at_outlet, shape: box, " + box(33 - shift, ", 3", 36 - shift, ", 7") + "}\n"
            "initial: {density: 1.0, velocity: [0.02, 0]}\n";
  return y;
}

inline LbmCase parseCase(const std::string& yaml) { return io::parseLbmCase(io::CaseDocument::fromString(yaml)); }

// Largest differences between a reference backend and a tested one, on the same case after the same steps.
struct Agreement {
  double velocityScale = 0;  // max |u| of the reference
  double velocity = 0;       // max |u - u_ref| / velocityScale over fluid cells
  double density = 0;        // max |rho - rho_ref| over fluid cells
  double mass = 0, kineticEnergy = 0, maxSpeed = 0;  // relative differences of the observables
  double force = 0;          // max |F - F_ref| / max |F_ref| over obstacles and components
  double forceScale = 0;
};

inline double relative(double a, double ref) { return std::abs(a - ref) / std::max(std::abs(ref), 1e-300); }

inline Agreement compare(LbmBackend& ref, LbmBackend& test, const std::vector<std::uint8_t>& flags) {
  Agreement a;
  std::vector<double> rr, ur, rt, ut;
  ref.macroscopic(rr, ur);
  test.macroscopic(rt, ut);
  for (std::size_t c = 0; c < flags.size(); ++c) {
    if (flags[c] != kFluid) continue;
    a.velocityScale = std::max(a.velocityScale, std::hypot(ur[3 * c], ur[3 * c + 1], ur[3 * c + 2]));
  }
  for (std::size_t c = 0; c < flags.size(); ++c) {
    if (flags[c] != kFluid) continue;
    const double du = std::hypot(ut[3 * c] - ur[3 * c], ut[3 * c + 1] - ur[3 * c + 1], ut[3 * c + 2] - ur[3 * c + 2]);
    a.velocity = std::max(a.velocity, du / a.velocityScale);
    a.density = std::max(a.density, std::abs(rt[c] - rr[c]));
    if (!std::isfinite(rt[c]) || !std::isfinite(ut[3 * c])) a.velocity = a.density = INFINITY;
  }
  const Observables oR = ref.observables(), oT = test.observables();
  a.mass = relative(oT.mass, oR.mass);
  a.kineticEnergy = relative(oT.kineticEnergy, oR.kineticEnergy);
  a.maxSpeed = relative(oT.maxSpeed, oR.maxSpeed);
  const auto fR = ref.obstacleForces(), fT = test.obstacleForces();
  for (const auto& f : fR)
    for (double x : f) a.forceScale = std::max(a.forceScale, std::abs(x));
  for (std::size_t k = 0; k < fR.size() && k < fT.size(); ++k)
    for (int d = 0; d < 3; ++d) a.force = std::max(a.force, std::abs(fT[k][d] - fR[k][d]) / a.forceScale);
  if (fT.size() != fR.size()) a.force = INFINITY;
  return a;
}

// Tolerances (double: round-off of a different evaluation order and FMA contraction; single: the same at float
// epsilon after 100 steps; half: FP16 storage rounding, 2^-11 of each stored population per step).
struct Tolerance {
  double field, observable, kineticEnergy, force;
};
constexpr Tolerance kDoubleTolerance{1e-12, 1e-12, 1e-11, 1e-10};
constexpr Tolerance kSingleTolerance{1e-5, 1e-6, 1e-4, 1e-4};
// FP16 storage against single precision, 100 steps of the cases above: measured on the host run of the CUDA cell
// code (test_lbm_cell_update_host.cpp) as velocity <= 5e-4 of the velocity scale, density <= 4e-5, mass <= 5e-6,
// kinetic energy <= 3e-4, forces <= 1.4e-3 relative; the bounds leave a factor of 4 or more.
constexpr Tolerance kHalfTolerance{2e-3, 2e-5, 1.5e-3, 6e-3};

inline void checkAgreement(const Agreement& a, const Tolerance& tol) {
  INFO("velocity " << a.velocity << " density " << a.density << " max speed " << a.maxSpeed << " mass " << a.mass
                   << " ke " << a.kineticEnergy << " force " << a.force << " (scale " << a.forceScale << ")");
  CHECK(a.velocityScale > 1e-4);
  CHECK(a.velocity <= tol.field);
  CHECK(a.density <= tol.field);
  CHECK(a.maxSpeed <= tol.field);
  CHECK(a.mass <= tol.observable);
  CHECK(a.kineticEnergy <= tol.kineticEnergy);
  CHECK(a.force <= tol.force);
}

}  // namespace hopsim::lbm::testing
