// The bulk update of the CUDA LBM backend as a strategy (core/DevicePlan.h, BulkUpdate): the backend (CudaLbm.cuh)
// owns the state, boundaries, graphs and observables and hands each step's bulk cells to the BulkStep it was given.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernels/lbm/cuda/LbmKernels.cuh"

namespace hopsim::lbm {

// What a bulk update works on, set up by the backend once its arrays exist: the domain, the population arrays, the
// portable launch shape and the device. Nothing here changes after construction.
template <class L, class S>
struct BulkTarget {
  using T = typename PopulationStorage<S>::Arith;
  DomainParams<T> p;
  S* f[2] = {nullptr, nullptr};  // f[1] is null in place (one array, the AA pattern)
  bool inPlace = false;
  bool wide = false;             // 64-bit population indices
  bool everyCellBulk = false;    // periodic on every axis, no solid cell (ghost cells aside)
  dim3 grid, block;              // one thread per cell, blocks of `block`
  std::string deviceName;
  int multiProcessors = 0;
  const std::uint8_t* flags = nullptr;  // the cells' flags (the backend's array, filled before the bulk update is made)
  unsigned wrapped = 0;  // the inlet and outlet faces wrapped into the opposite face's cells (openWrapFaces(); 0: none)

  // The access of one step from the state of `parity`, for index type Index: f[parity] to f[parity ^ 1] with two
  // lattices (and `ahead`, TwoLatticeStep::ahead, for the bulk kernels' L2 prefetch), the AA state `parity` of f[0]
  // in place.
  template <class Index, class Fn>
  void withAccess(int parity, Fn&& fn, long long ahead = 0) const {
    const Index n = static_cast<Index>(p.cells);
    if (!inPlace) fn(TwoLatticeStep<L, S, Index>{f[parity], f[parity ^ 1], n, static_cast<Index>(ahead)});
    else if (parity == 0) fn(InPlaceStep<L, S, Index, 0>{f[0], n});
    else fn(InPlaceStep<L, S, Index, 1>{f[0], n});
  }

  // withAccess() for callers that only ever run with two lattices (the shell of a decomposed box): the in-place
  // accesses are not instantiated, which keeps two thirds of those callers' kernels out of the build.
  template <class Index, class Fn>
  void withTwoLatticeAccess(int parity, Fn&& fn) const {
    if (inPlace) throw std::logic_error("this step needs the two-lattice layout");
    fn(TwoLatticeStep<L, S, Index>{f[parity], f[parity ^ 1], static_cast<Index>(p.cells)});
  }
};

// The bulk cells of a step (class kCellBulk); the backend's boundary kernel does the others after it.
template <class L, class S>
class BulkStep {
 public:
  virtual ~BulkStep() = default;

  // `steps` steps (1, or stepsPerLaunch()) from the state of `parity` into the next, on `stream`: the cells of class
  // kCellBulk in `cls` (kCellSkip elsewhere; the whole box's classes, or the interior's of a decomposed box).
  // Launches of more than one step are only made where every cell is bulk.
  virtual void enqueue(cudaStream_t stream, int parity, const std::uint8_t* cls, int steps) const = 0;

  // Whether enqueueWithWalls() can update the wall cells (class kCellWall) in the same pass as the bulk ones.
  virtual bool takesWalls() const { return false; }

  // One step like enqueue(), of the bulk and the wall cells of `cls` (`flags`: the cell flags, which the wall cells'
  // bounce-back links are found from); only where takesWalls().
  virtual void enqueueWithWalls(cudaStream_t /*stream*/, int /*parity*/, const std::uint8_t* /*cls*/,
                                const std::uint8_t* /*flags*/) const {
    throw std::logic_error("this bulk update does not update wall cells");
  }

  // Whether enqueueKeepingFaces() can run: enqueueWithWalls() whose wrapped inlet and outlet cells also store the
  // face values of the state they write and their ghost values in it (keepFaceCell()), so that the next step needs
  // neither the face pass nor the copy.
  virtual bool keepsFaces() const { return false; }

  // enqueueWithWalls(), the cells on the two planes of `keep.keptAxis` storing their face values and displaced
  // populations into `keep` (the buffers of the state this step writes); only where keepsFaces().
  virtual void enqueueKeepingFaces(cudaStream_t /*stream*/, int /*parity*/, const std::uint8_t* /*cls*/,
                                   const std::uint8_t* /*flags*/,
                                   const OpenFaceMoments<typename PopulationStorage<S>::Arith>& /*keep*/) const {
    throw std::logic_error("this bulk update does not keep the face cells' values");
  }

  // Whether enqueueWithFaces() can update the boundary cells (inlet and outlet ghost links) with the wall cells.
  virtual bool takesOpenFaces() const { return false; }

  // enqueueWithWalls(), and the boundary cells of `cls` too, their ghost links from the face cells' moments `open`
  // of this step (already on `stream`); only where takesOpenFaces().
  virtual void enqueueWithFaces(cudaStream_t /*stream*/, int /*parity*/, const std::uint8_t* /*cls*/,
                                const std::uint8_t* /*flags*/,
                                const OpenFaceMoments<typename PopulationStorage<S>::Arith>& /*open*/) const {
    throw std::logic_error("this bulk update does not update inlet and outlet cells");
  }

  // Whether enqueueSampled() can make a sampled step.
  virtual bool takesSamples() const { return false; }

  // One step like enqueueWithWalls() (`wallFlags` given) or enqueue() (null), that also leaves the per-block partial
  // sums of the observables of the state it makes in `partials`, as observablesKernel would after it (the owned
  // fluid cells of `ownedFlags`; bulkSampleKernel). The step's boundary and curved cells must be done before it, on
  // `stream`: their observables are read back. Only where takesSamples().
  virtual void enqueueSampled(cudaStream_t /*stream*/, int /*parity*/, const std::uint8_t* /*cls*/,
                              const std::uint8_t* /*wallFlags*/, const std::uint8_t* /*ownedFlags*/,
                              double* /*partials*/) const {
    throw std::logic_error("this bulk update does not sample");
  }

  // Steps per launch where every cell is bulk: graphs hold an even number of such launches.
  virtual int stepsPerLaunch() const { return 1; }

  // For description(): which kernel, in what shape.
  virtual std::string description() const = 0;
};

}  // namespace hopsim::lbm
