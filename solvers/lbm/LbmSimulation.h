// A lattice Boltzmann simulation in memory: the case turned into cell flags, initial fields and a backend state.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "kernels/lbm/LbmBackend.h"
#include "solvers/lbm/LbmCase.h"

namespace hopsim::lbm {

// Cell flags of a case: fluid, or obstacle k (a cell is inside a shape when its centre is).
std::vector<std::uint8_t> buildFlags(const LbmCase& c);

// The backend-neutral setup of a case (domain and face parameters, flags, initial fields).
LbmSetup buildSetup(const LbmCase& c);

// The backend a case runs on once `auto` is resolved: CUDA when built with it and a GPU is present.
Backend resolveBackend(Backend requested);

class LbmSimulation {
 public:
  LbmSimulation(const LbmCase& c, Backend backend, KernelVariant kernels = KernelVariant::Auto);

  void advance(long long steps, bool forcesOnLastStep = false);
  long long step() const { return step_; }
  const LbmCase& config() const { return case_; }
  LbmBackend& backend() { return *backend_; }
  Backend backendKind() const { return backendKind_; }

  // Density and velocity (3 per cell, x fastest) of the current state.
  void fields(std::vector<double>& density, std::vector<double>& velocity) { backend_->macroscopic(density, velocity); }
  Observables observables() { return backend_->observables(); }
  std::vector<std::array<double, 3>> forces() { return backend_->obstacleForces(); }
  long long cellCount() const;
  long long fluidCellCount() const { return fluidCells_; }
  const std::vector<std::uint8_t>& flags() const { return flags_; }

 private:
  LbmCase case_;
  Backend backendKind_;
  std::vector<std::uint8_t> flags_;
  long long fluidCells_ = 0;
  std::unique_ptr<LbmBackend> backend_;
  long long step_ = 0;
};

}  // namespace hopsim::lbm
