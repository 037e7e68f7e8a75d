// The MD engines of one rank in a spatially decomposed run (MPI), CPU and CUDA: owned atoms plus ghosts, global sums.
#pragma once

#include <memory>

#include "kernels/md/DomainMdDevice.h"
#include "core/Decomposition.h"
#include "core/Mpi.h"
#include "kernels/md/MdEngine.h"

namespace hopsim::md {

// Every rank of `comm` calls each MdEngine method together (they communicate). thermo() returns sums over all
// ranks; download() and forces() gather every atom on rank 0 and leave the other ranks' outputs empty. Works on
// one rank too (the periodic images are then ghosts the rank exchanges with itself).
std::unique_ptr<MdEngine> makeDomainEngine(const EngineConfig& config, const Decomposition& decomposition,
                                           const mpi::Comm& comm);

// The same on GPUs (solvers/md/CudaDomainMdEngine.cpp): atoms on `gpu` (several ranks may share one), ghosts through
// host MPI. Throws std::runtime_error when hopsim was built without CUDA or that GPU is not there.
std::unique_ptr<MdEngine> makeCudaDomainEngine(const EngineConfig& config, const Decomposition& decomposition,
                                               const mpi::Comm& comm, int gpu);

// Its parts: the MPI half (control, ghost refresh, host rebuild) over any device half, and the device half's
// configuration for this rank. makeCudaDomainEngine joins them with the CUDA device; the MPI tests with a host one.
DomainDeviceConfig domainDeviceConfig(const EngineConfig& config, const Decomposition& decomposition, int gpu);
template <class S>
std::unique_ptr<MdEngine> makeDomainEngine(const EngineConfig& config, const Decomposition& decomposition,
                                           const mpi::Comm& comm, std::unique_ptr<DomainMdDevice<S>> device);

}  // namespace hopsim::md
