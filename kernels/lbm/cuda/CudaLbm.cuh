// The CUDA LBM backend (sm_80 and newer) for one lattice and one storage type: device state, cell classes and the
// list of boundary cells, launches through captured CUDA graphs, halo exchange of decomposed boxes, device-side
// reductions, fields into pinned host memory on request. The bulk update is the strategy the plan names
// (BulkStep.cuh: portable, Hopper cluster or Hopper temporal); boundary cells go through the portable boundary
// kernel after it, so every lattice and boundary type works with each. Where the bulk update takes them
// (KernelPlan::wallsInBulk), the wall cells (links that only bounce back) are its cells too, except in the steps
// that compute obstacle forces, whose momentum exchange is the boundary kernel's.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "core/DevicePlan.h"
#include "kernels/common/DeviceBuffer.cuh"
#include "kernels/lbm/cuda/BulkStep.cuh"
#include "kernels/lbm/cuda/CudaLbmCommon.cuh"
#include "kernels/lbm/cuda/CudaLbmFactory.h"
#include "kernels/lbm/cuda/HaloKernels.cuh"
#include "kernels/lbm/cuda/LbmKernels.cuh"
#include "kernels/lbm/cuda/PortableBulk.cuh"
#include "kernels/lbm/hopper/HopperBulk.cuh"
#include "kernels/lbm/hopper/HopperSupport.h"

namespace hopsim::lbm {

template <class L, class S>
class CudaLbm final : public LbmBackend {
  using Store = PopulationStorage<S>;
  using T = typename Store::Arith;

 public:
  // The plan is the planner's (solvers/lbm/LbmKernelPlanner.h): it has checked that the bulk update it names can run
  // this case on this GPU; the backend measures only what the device must tell (occupancy, TMA's verdict).
  CudaLbm(const LbmSetup& s, const DevicePlan& plan)
      : p_(convertDomain<T>(s.domain)), plan_(plan.lbm),
        name_(plan.kernels == KernelVariant::Hopper ? "cuda/hopper" : "cuda/portable"), obstacles_(s.obstacles),
        inPlace_(plan.lbm.layout == StreamingLayout::InPlace), haloAll_(s.haloAllPopulations),
        enstrophy_(s.enstrophy), gpu_(plan.gpu), deviceScope_(plan.gpu) {
    if (inPlace_ && p_.hasGhosts())
      throw std::logic_error("a decomposed domain needs the two-lattice layout (halo planes of one current array)");
    selectDevice(plan.gpu);
    const long long n = p_.cells;
    wide_ = static_cast<unsigned long long>(L::Q) * static_cast<unsigned long long>(n) > 0xFFFFFFFFull;
    configureLaunch();
    checkMemory();

    const std::size_t populations = static_cast<std::size_t>(L::Q) * static_cast<std::size_t>(n);
    f_[0] = DeviceBuffer<S>(populations);
    if (!inPlace_) f_[1] = DeviceBuffer<S>(populations);
    flags_ = DeviceBuffer<std::uint8_t>(n);
    cls_ = DeviceBuffer<std::uint8_t>(n);
    forces_ = DeviceBuffer<double>(3 * std::max(1, obstacles_));
    partials_ = DeviceBuffer<double>(kObservables * blocks() * kBatchSamples);
    foldScratch_ = DeviceBuffer<double>(foldScratchSize(blocks()) * kBatchSamples);
    result_ = DeviceBuffer<double>(kObservables);
    hostResult_ = PinnedBuffer<double>(std::max<std::size_t>(kObservables, 3 * std::max(1, obstacles_)));
    target_ = {p_, {f_[0].get(), f_[1].get()}, inPlace_, wide_, false, grid_, block_, device_.name,
               device_.multiProcessorCount, flags_.get()};

    // Zeroed so that slots no step ever writes (solid cells) hold defined values.
    f_[0].zero(stream_.get());
    f_[1].zero(stream_.get());
    forces_.zero(stream_.get());
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(flags_.get(), s.flags.data(), n, cudaMemcpyHostToDevice, stream_.get()));
    // The face pass hands the inlet and outlet cells' ghost values to the bulk kernel through the opposite face
    // where the plan asks for it (KernelPlan::openWrap: the portable bulk update one cell per thread, or the
    // temporal kernel, with the face pass) and the geometry allows it.
    if (plan_.openWrap) wrapped_ = openWrapFaces(s);
    target_.wrapped = wrapped_;
    if (wide_) classify<unsigned long long>(cls_.get(), wrapped_);
    else classify<unsigned>(cls_.get(), wrapped_);
    // Ghost layers as deep as the temporal kernel's steps per launch: its launches of k steps compute the ghost cells'
    // lower levels too (an owned cell's last level needs them), so they read the classes of the whole box.
    if (p_.hasGhosts() && plan.lbm.bulk == BulkUpdate::HopperTemporal) {
      boxCls_ = DeviceBuffer<std::uint8_t>(n);
      if (wide_) classify<unsigned long long>(boxCls_.get(), 0);
      else classify<unsigned>(boxCls_.get(), 0);
    }
    if (p_.hasGhosts()) excludeGhosts(s);
    listBoundaryCells(s.curved);
    initialise(s);
    bulk_ = makeBulk();
    if (plan_.bulk == BulkUpdate::HopperTemporal && (openCount_ || curved_.count))
      throw std::logic_error("the temporal kernel does not update inlet, outlet or curved cells (the planner's job)");
    deepHalo_ = p_.hasGhosts() && bulk_->stepsPerLaunch() > 1;
    for (int f = 0; f < 6; ++f)
      if (p_.ghost[f] && p_.ghost[f] != (deepHalo_ ? bulk_->stepsPerLaunch() : 1))
        throw std::logic_error("ghost layers " + std::to_string(p_.ghost[f]) + " cells deep for a bulk update of " +
                               std::to_string(bulk_->stepsPerLaunch()) + " steps per launch (the solver's job)");
    if (deepHalo_ && !haloAll_) throw std::logic_error("deep ghost layers carry every population (the solver's job)");
    wallsInBulk_ = plan_.wallsInBulk && bulk_->takesWalls() && !p_.hasGhosts();
    // The face values of each state (faceValues_[parity]): one set of buffers that each step's face pass fills, or
    // two where the bulk update keeps them (KernelPlan::keepFaces: wrapped faces, the wall cells in its pass), its
    // face cells storing those of the state it writes while the step's other kernels read those of the state it
    // reads, with the populations their ghost values displace in that state.
    keepFaces_ = plan_.keepFaces && wrapped_ && wallsInBulk_ && bulk_->keepsFaces();
    if (plan_.openMoments && !inPlace_ && !p_.hasGhosts()) {
      const OpenFaceMoments<T> layout = openFaceLayout(p_);
      for (int q = 0; q < (keepFaces_ ? 2 : 1) && layout.slots; ++q) {
        faceValues_[q] = layout;
        openValues_[q] = DeviceBuffer<T>(4 * static_cast<std::size_t>(layout.slots));
        faceValues_[q].values = openValues_[q].get();
        openGhosts_[q] = DeviceBuffer<T>(L::Q * static_cast<std::size_t>(layout.slots));
        openGhosts_[q].zero(stream_.get());  // slots of solid face cells are never written (their links fall back)
        faceValues_[q].ghosts = openGhosts_[q].get();
        if (!keepFaces_) continue;
        faceValues_[q].keptAxis = std::countr_zero(wrapped_) / 2;
        openDisplaced_[q] = DeviceBuffer<T>(L::Q * static_cast<std::size_t>(layout.slots));
        faceValues_[q].displaced = openDisplaced_[q].get();
      }
      if (!keepFaces_) faceValues_[1] = faceValues_[0];
    }
    openInBulk_ = plan_.openInBulk && wallsInBulk_ && faceValues_[0].slots && bulk_->takesOpenFaces();
    if (wrapped_ && !faceValues_[0].ghosts)
      throw std::logic_error("wrapped inlet and outlet faces without the face pass's ghost values");
    if (plan_.graphSteps < 2 || plan_.graphSteps % (2 * bulk_->stepsPerLaunch()))
      throw std::logic_error("graphs of " + std::to_string(plan_.graphSteps) + " steps: the planner makes them an "
                             "even number of launches");
    stream_.synchronize();
  }

  // A field copy still in flight (a run that failed before its writer took the slot) lands in pinned slots that
  // are freed below: wait for it first. No throw from a destructor; a failed wait leaves nothing to recover.
  ~CudaLbm() override {
    if (copyStream_.get()) cudaStreamSynchronize(copyStream_.get());
  }

  std::string name() const override { return name_; }

  std::string description() const override {
    char buf[512];
    std::snprintf(buf, sizeof buf, "%s on %s (cc %d.%d, %d SMs), %s %s, %s, %s indices, block %dx%d, bulk: ",
                  name_.c_str(), device_.name, device_.major, device_.minor, device_.multiProcessorCount, L::name,
                  storageName(), inPlace_ ? "in-place (AA pattern)" : "two lattices", wide_ ? "64-bit" : "32-bit",
                  block_.x, block_.y);
    std::string out = buf + bulk_->description() + ", " + std::to_string(boundaryCount_) + " boundary cells" +
                      (wallsInBulk_ ? " (" + std::to_string(boundaryCount_ - openCount_) +
                                          " of them wall cells updated by the bulk kernel" +
                                          (openInBulk_ ? ", inlet and outlet cells included" : "") +
                                          " except in steps with obstacle forces)"
                                    : "") +
                      (faceValues_[0].slots ? ", inlet/outlet face moments in a pass of their own" : "") +
                      (wrapped_ ? " that also writes their ghost values where the opposite face's cells are pulled "
                                  "(the inlet and outlet cells are bulk or wall cells)"
                                : "") +
                      (keepFaces_ ? ", both run only where no step before has left their work (the bulk kernel's "
                                    "face cells store them for the next step)"
                                  : "") +
                      (curved_.count ? ", " + std::to_string(curved_.count) +
                                           " cells with interpolated bounce-back in a pass of their own"
                                     : "") +
                      (plan_.sideStream && !p_.hasGhosts() && (boundaryCount_ || curved_.count)
                           ? ", boundary passes on a side stream beside the bulk update"
                           : "") +
                      ", graphs of " + std::to_string(plan_.graphSteps) + " steps" + plan_.note;
    int faces = 0;
    for (int f = 0; f < 6; ++f) faces += p_.ghost[f] ? 1 : 0;
    if (deepHalo_)
      out += "; decomposed: ghost layers " + std::to_string(bulk_->stepsPerLaunch()) + " cells deep on " +
             std::to_string(faces) + " faces, every population, exchanged after each launch (not overlapped)";
    else if (p_.hasGhosts())
      out += "; decomposed: ghost layers on " + std::to_string(faces) +
             " faces, the cells next to them updated on a second stream while the halo is exchanged";
    return out;
  }

  std::string layout() const override {
    return toString(inPlace_ ? StreamingLayout::InPlace : StreamingLayout::TwoLattice);
  }

  double bytesPerCellUpdate() const override { return 2.0 * L::Q * sizeof(S); }

  void advance(long long steps, bool forcesOnLastStep) override {
    if (steps <= 0) return;
    joinStreams();
    const bool forces = forcesOnLastStep && obstacles_ > 0;
    runPlain(forces ? steps - 1 : steps);
    if (forces) {
      forces_.zero(stream_.get());
      enqueueStep(stream_.get(), parity_, forces_.get());
      parity_ ^= 1;
    }
  }

  // Where the plan asks for it (KernelPlan::sampleInStep): one rank, the portable bulk update in a shape its
  // sampling kernel is compiled for, no enstrophy (it needs the neighbours' velocities) and the face cells in the
  // boundary kernel.
  bool samplesInStep() const override {
    return plan_.sampleInStep && bulk_->takesSamples() && !p_.hasGhosts() && !vorticity() && !openInBulk_;
  }

  // The last step's bulk kernel sums the observables as it stores (enqueueSampledStep), into the partials that
  // observablesKernel would have left after it; they are folded into the ring as sampleObservables()'s are.
  void advanceSampled(long long steps, bool forcesOnLastStep) override {
    if (steps <= 0 || !samplesInStep()) {
      LbmBackend::advanceSampled(steps, forcesOnLastStep);
      return;
    }
    joinStreams();
    const bool forces = forcesOnLastStep && obstacles_ > 0;
    runPlain(steps - 1);
    double* partials = nextSamplePartials();
    if (forces) forces_.zero(stream_.get());
    enqueueSampledStep(stream_.get(), parity_, forces ? forces_.get() : nullptr, partials);
    parity_ ^= 1;
    sampleTaken();
  }

  double timeSteps(long long steps) override {
    joinStreams();
    start_.record(stream_.get());
    runPlain(steps);
    stop_.record(stream_.get());
    stream_.synchronize();
    return stop_.since(start_) * 1e-3;
  }

  void macroscopic(std::vector<double>& rho, std::vector<double>& u) override {
    startFieldCopy(kSyncSlot);
    const HostFields h = fieldCopy(kSyncSlot);
    const T* r = static_cast<const T*>(h.density);
    const T* v = static_cast<const T*>(h.velocity);
    rho.assign(r, r + h.cells);
    u.assign(v, v + 3 * h.cells);
  }

  // The fields kernel writes the owned block into device staging arrays on the main stream (at memory speed); the
  // copy stream takes them to the slot's pinned host arrays once the kernel is done, while the main stream goes on
  // with the next steps. The staging arrays are reused by the next fields kernel only after that copy (an event
  // wait on the device: the host does not wait).
  void startFieldCopy(int slot) override {
    if (slot < 0 || slot > kSyncSlot) throw std::out_of_range("field slot " + std::to_string(slot));
    joinStreams();
    const std::size_t n = static_cast<std::size_t>(ownedCells());
    if (!fieldRho_.size()) {
      fieldRho_ = DeviceBuffer<T>(n);
      fieldU_ = DeviceBuffer<T>(3 * n);
    }
    FieldCopy& c = copies_[slot];
    if (!c.rho.size()) {
      c.rho = PinnedBuffer<T>(n);
      c.u = PinnedBuffer<T>(3 * n);
    }
    if (lastCopy_ >= 0) HOPSIM_CUDA_CHECK(cudaStreamWaitEvent(stream_.get(), copies_[lastCopy_].copied.get(), 0));
    if (wide_) launchFields<unsigned long long>();
    else launchFields<unsigned>();
    computed_.record(stream_.get());
    HOPSIM_CUDA_CHECK(cudaStreamWaitEvent(copyStream_.get(), computed_.get(), 0));
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(c.rho.get(), fieldRho_.get(), fieldRho_.bytes(), cudaMemcpyDeviceToHost,
                                      copyStream_.get()));
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(c.u.get(), fieldU_.get(), fieldU_.bytes(), cudaMemcpyDeviceToHost,
                                      copyStream_.get()));
    c.copied.record(copyStream_.get());
    lastCopy_ = slot;
  }

  // Waits on the slot's event only: callable from the writer thread while the stepping thread launches.
  HostFields fieldCopy(int slot) override {
    if (slot < 0 || slot > kSyncSlot) throw std::out_of_range("field slot " + std::to_string(slot));
    HOPSIM_CUDA_CHECK(cudaSetDevice(gpu_));  // the event's device, current on this thread
    const FieldCopy& c = copies_[slot];
    HOPSIM_CUDA_CHECK(cudaEventSynchronize(c.copied.get()));
    return {c.rho.get(), c.u.get(), ownedCells(), std::is_same_v<T, float>};
  }

  Observables observables() override {
    joinStreams();
    foldPendingSamples();  // they hold the partials' first slot
    if (wide_) launchObservables<unsigned long long>(partials_.get());
    else launchObservables<unsigned>(partials_.get());
    return finishObservables(partials_.get(), blocks(), foldScratch_.get(), result_.get(), hostResult_, stream_,
                             vorticity());
  }

  // The reduction's partials wait on the device, folded into the ring kBatchSamples at a time; nothing is read
  // back until readObservables().
  void sampleObservables() override {
    double* partials = nextSamplePartials();
    if (wide_) launchObservables<unsigned long long>(partials);
    else launchObservables<unsigned>(partials);
    sampleTaken();
  }

  std::vector<Observables> readObservables() override {
    std::vector<Observables> out;
    if (!ringCount_) return out;
    foldPendingSamples();
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(ringHost_.get(), ring_.get(),
                                      static_cast<std::size_t>(kObservables) * ringCount_ * sizeof(double),
                                      cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
    for (int k = 0; k < ringCount_; ++k) out.push_back(observablesOf(ringHost_.get() + kObservables * k, vorticity()));
    ringCount_ = 0;
    return out;
  }

  // The last force step's forces, copied on the device into the next slot of the forces ring.
  void sampleForces() override {
    if (forceCount_ >= kRingSamples) throw std::logic_error("forces ring full: read it back before sampling again");
    if (obstacles_) {
      joinStreams();  // a decomposed step credits forces on both streams
      const std::size_t per = 3 * static_cast<std::size_t>(obstacles_);
      if (!forceRing_.size()) {
        forceRing_ = DeviceBuffer<double>(per * kRingSamples);
        forceRingHost_ = PinnedBuffer<double>(per * kRingSamples);
      }
      HOPSIM_CUDA_CHECK(cudaMemcpyAsync(forceRing_.get() + per * forceCount_, forces_.get(), per * sizeof(double),
                                        cudaMemcpyDeviceToDevice, stream_.get()));
    }
    ++forceCount_;
  }

  std::vector<std::vector<std::array<double, 3>>> readForces() override {
    std::vector<std::vector<std::array<double, 3>>> out(static_cast<std::size_t>(forceCount_));
    if (forceCount_ && obstacles_) {
      const std::size_t per = 3 * static_cast<std::size_t>(obstacles_);
      HOPSIM_CUDA_CHECK(cudaMemcpyAsync(forceRingHost_.get(), forceRing_.get(), per * forceCount_ * sizeof(double),
                                        cudaMemcpyDeviceToHost, stream_.get()));
      stream_.synchronize();
      for (int k = 0; k < forceCount_; ++k)
        for (int ob = 0; ob < obstacles_; ++ob) {
          const double* f = forceRingHost_.get() + per * k + 3 * ob;
          out[k].push_back({f[0], f[1], f[2]});
        }
    }
    forceCount_ = 0;
    return out;
  }

  int observableRingCapacity() const override { return kRingSamples; }

  void finish() override {
    stream_.synchronize();
    haloStream_.synchronize();
  }

  // An 8-byte little-endian parity (launches done mod 2), then the raw storage of the current array: f_[parity_]
  // with two lattices, f_[0] in place (whose AA state the parity is), [q][cell] over the box with its ghost layers.
  // Loaded into the array of the same index, so that the slots no step writes (solid cells) hold in both arrays what
  // the constructor put there, as in the backend that saved it: the continuation is bitwise.
  std::string populationLayout() const override {
    return std::string("cuda ") + L::name + " " + storageName() + (inPlace_ ? " in-place" : " two-lattice") +
           " [q][cell] after a parity, box with ghosts";
  }
  void savePopulations(std::vector<std::byte>& out) override {
    joinStreams();
    restoreDisplacedPopulations();
    const std::size_t bytes = populationBytes();
    const std::int64_t parity = parity_;
    out.resize(sizeof parity + bytes);
    std::memcpy(out.data(), &parity, sizeof parity);
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(out.data() + sizeof parity, f_[inPlace_ ? 0 : parity_].get(), bytes,
                                      cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
  }
  void loadPopulations(std::span<const std::byte> in) override {
    const std::size_t bytes = populationBytes();
    std::int64_t parity = 0;
    if (in.size() == sizeof parity + bytes) std::memcpy(&parity, in.data(), sizeof parity);
    if (in.size() != sizeof parity + bytes || (parity != 0 && parity != 1))
      throw std::invalid_argument(std::to_string(in.size()) + " bytes of populations for a box that holds " +
                                  std::to_string(sizeof parity + bytes) + " (parity and populations)");
    joinStreams();
    parity_ = static_cast<int>(parity);
    keptParity_ = -1;  // the face values kept by the last step are not this state's
    ghostsIn_ = false;
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(f_[inPlace_ ? 0 : parity_].get(), in.data() + sizeof parity, bytes,
                                      cudaMemcpyHostToDevice, stream_.get()));
    stream_.synchronize();
  }

  // The shell (owned cells next to a ghost layer: the cells that pull from ghosts, and the planes packHalo()
  // sends) is updated on the halo stream, the interior on the main stream, so the exchange that follows overlaps
  // the interior update. The same kernels update the same cells as in advance(): results are bitwise the same.
  int stepsPerExchange() const override { return deepHalo_ ? bulk_->stepsPerLaunch() : 1; }

  void advanceShellFirst(bool forcesOnThisStep) override {
    if (!p_.hasGhosts() || deepHalo_) {
      advance(1, forcesOnThisStep);
      return;
    }
    double* forces = forcesOnThisStep && obstacles_ > 0 ? forces_.get() : nullptr;
    if (forces) forces_.zero(stream_.get());
    // What each part waits for. The shell reads the ghosts (the exchange before, on its own stream) and the interior
    // cells of the step before, and overwrites the array that step read: it waits for the main stream. The
    // interior reads the shell cells of the step before, never ghosts: it waits for that shell only, not for the
    // exchange after it, which is what lets the exchange run under the interior update.
    if (shellPending_) {
      mainDone_.record(stream_.get());
      HOPSIM_CUDA_CHECK(cudaStreamWaitEvent(haloStream_.get(), mainDone_.get(), 0));
      HOPSIM_CUDA_CHECK(cudaStreamWaitEvent(stream_.get(), shellDone_.get(), 0));
    } else {
      joinStreams();
    }
    if (wide_) launchShell<unsigned long long>(parity_, forces);
    else launchShell<unsigned>(parity_, forces);
    shellDone_.record(haloStream_.get());
    launchPart(stream_.get(), parity_, forces, interior_);
    parity_ ^= 1;
    shellPending_ = true;
  }

  // On the halo stream: after the shell of advanceShellFirst() (the interior may still run), else after all work.
  std::span<const std::byte> packHalo(int face) override {
    if (!shellPending_) joinStreams();
    HaloBuffers& h = halo(face);
    launchHalo<true>(haloPlane(p_, face, true), h.send, h.sendDevice.get());
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(h.sendHost.get(), h.sendDevice.get(), h.sendDevice.bytes(),
                                      cudaMemcpyDeviceToHost, haloStream_.get()));
    haloStream_.synchronize();
    return {reinterpret_cast<const std::byte*>(h.sendHost.get()), h.sendDevice.bytes()};
  }

  std::span<std::byte> haloInbox(int face) override {
    HaloBuffers& h = halo(face);
    return {reinterpret_cast<std::byte*>(h.recvHost.get()), h.recvBytes()};
  }

  // Asynchronous, on the halo stream: the next step joins the streams before it starts, and the next packHalo()
  // synchronises the halo stream before MPI writes into an inbox again.
  void unpackHalo(int face) override {
    HaloBuffers& h = halo(face);
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(h.recvDevice.get(), h.recvHost.get(), h.recvBytes(), cudaMemcpyHostToDevice,
                                      haloStream_.get()));
    launchHalo<false>(haloPlane(p_, face, false), h.recv, h.recvDevice.get());
  }

  bool peerHalo() const override { return true; }

  std::vector<std::byte> exportHaloInbox(int face) override {
    HaloBuffers& h = halo(face);
    InboxHandle m{};
    HOPSIM_CUDA_CHECK(cudaIpcGetMemHandle(&m.handle, h.recvDevice.get()));
    m.slotBytes = h.recvBytes();
    std::vector<std::byte> out(kHaloHandleBytes);
    std::memcpy(out.data(), &m, sizeof m);
    return out;
  }

  void mapPeerInbox(int face, std::span<const std::byte> handle) override {
    HaloBuffers& h = halo(face);
    if (handle.size() < sizeof(InboxHandle)) throw std::logic_error("a halo inbox handle of the wrong size");
    InboxHandle m;
    std::memcpy(&m, handle.data(), sizeof m);
    if (m.slotBytes != h.sendDevice.bytes())
      throw std::logic_error("the neighbour's halo inbox does not hold this rank's plane (" +
                             std::to_string(m.slotBytes) + " vs " + std::to_string(h.sendDevice.bytes()) + " bytes)");
    h.peer = IpcMapping(m.handle);
  }

  void packHaloToPeer(int face, int slot) override {
    if (!shellPending_) joinStreams();
    HaloBuffers& h = halo(face);
    if (!h.peer.get()) throw std::logic_error("packHaloToPeer before mapPeerInbox");
    launchHalo<true>(haloPlane(p_, face, true), h.send, static_cast<S*>(h.peer.get()) + slot * h.sendDevice.size());
  }

  void waitHaloPacks() override { haloStream_.synchronize(); }

  void unpackHaloSlot(int face, int slot) override {
    HaloBuffers& h = halo(face);
    launchHalo<false>(haloPlane(p_, face, false), h.recv, h.recvDevice.get() + slot * h.recvSlot);
  }

  std::vector<std::array<double, 3>> obstacleForces() override {
    if (obstacles_) joinStreams();
    return readObstacleForces(forces_.get(), obstacles_, hostResult_, stream_);
  }

 private:
  // Output field slots (kFieldSlots) and one more for macroscopic(), which must not take a slot the writer reads.
  static constexpr int kSyncSlot = kFieldSlots;
  // Samples of the observables ring: kObservables (5) doubles each, 40 KiB on the device.
  static constexpr int kRingSamples = 1024;
  // Samples whose per-block partials wait in partials_ to be folded together, two launches for all of them: a fold
  // per sample cost a step 6.6 us in its two launches (1% of a 256^3 D3Q19 step; docs/performance.md, issue 22).
  // The partials take kBatchSamples x 40 bytes per block of cells (1.25 bytes per cell in blocks of 256).
  static constexpr int kBatchSamples = 8;

  long long ownedCells() const {
    return static_cast<long long>(p_.ownHi(0) - p_.ownLo(0)) * (p_.ownHi(1) - p_.ownLo(1)) * (p_.ownHi(2) - p_.ownLo(2));
  }

  struct FieldCopy {
    PinnedBuffer<T> rho, u;
    CudaEvent copied{CudaEvent::Sleeping{}};  // recorded on the copy stream after the slot's copy
  };

  static const char* storageName() {
    if constexpr (sizeof(S) == 2) return "half (FP16 storage, FP32 arithmetic)";
    else if constexpr (sizeof(S) == 4) return "single";
    else return "double";
  }

  // Device and pinned host buffers of one face's halo, made on first use. The device inbox has two slots for the
  // direct transport (the staged one uses the first); peer is the neighbour's inbox when mapped.
  struct HaloBuffers {
    HaloPopulations send, recv;
    DeviceBuffer<S> sendDevice, recvDevice;
    PinnedBuffer<S> sendHost, recvHost;
    std::size_t recvSlot = 0;  // elements per inbox slot
    IpcMapping peer;
    std::size_t recvBytes() const { return recvSlot * sizeof(S); }
  };

  // What exportHaloInbox() sends: the IPC handle of the inbox allocation and the bytes of one slot.
  struct InboxHandle {
    cudaIpcMemHandle_t handle;
    std::size_t slotBytes;
  };
  static_assert(sizeof(InboxHandle) <= kHaloHandleBytes);

  HaloBuffers& halo(int face) {
    HaloBuffers& h = halo_[face];
    if (!h.sendHost.size()) {
      h.send = haloPopulationList<L>(face, true, haloAll_);
      h.recv = haloPopulationList<L>(face, false, haloAll_);
      const std::size_t sendCount = static_cast<std::size_t>(h.send.count * haloPlane(p_, face, true).cells());
      const std::size_t recvCount = static_cast<std::size_t>(h.recv.count * haloPlane(p_, face, false).cells());
      h.sendDevice = DeviceBuffer<S>(sendCount);
      h.recvDevice = DeviceBuffer<S>(2 * recvCount);
      h.recvSlot = recvCount;
      h.sendHost = PinnedBuffer<S>(sendCount);
      h.recvHost = PinnedBuffer<S>(recvCount);
    }
    return h;
  }

  template <bool ToBuffer>
  void launchHalo(const HaloPlane& plane, const HaloPopulations& pops, S* buffer) {
    const long long total = plane.cells() * pops.count;
    if (!total) return;
    const auto blocks = static_cast<unsigned>(std::min<long long>((total + kHaloBlockThreads - 1) / kHaloBlockThreads, 65535));
    haloPlaneKernel<ToBuffer><<<blocks, kHaloBlockThreads, 0, haloStream_.get()>>>(p_, plane, pops, f_[parity_].get(), buffer);
    HOPSIM_CUDA_CHECK_LAUNCH("haloPlaneKernel");
  }

  // Ghost cells: class skip (no update), and solid in the flags the reductions read.
  void excludeGhosts(const LbmSetup& s) {
    owned_ = DeviceBuffer<std::uint8_t>(static_cast<std::size_t>(p_.cells));
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(owned_.get(), s.flags.data(), p_.cells, cudaMemcpyHostToDevice, stream_.get()));
    const auto blocks = static_cast<unsigned>((p_.cells + kHaloBlockThreads - 1) / kHaloBlockThreads);
    skipGhostsKernel<<<blocks, kHaloBlockThreads, 0, stream_.get()>>>(p_, cls_.get(), owned_.get());
    HOPSIM_CUDA_CHECK_LAUNCH("skipGhostsKernel");
    stream_.synchronize();
  }

  // Orders the main and halo streams after everything queued on either (a no-op without ghost layers).
  void joinStreams() {
    shellPending_ = false;
    if (!p_.hasGhosts()) return;
    mainDone_.record(stream_.get());
    haloDone_.record(haloStream_.get());
    HOPSIM_CUDA_CHECK(cudaStreamWaitEvent(haloStream_.get(), mainDone_.get(), 0));
    HOPSIM_CUDA_CHECK(cudaStreamWaitEvent(stream_.get(), haloDone_.get(), 0));
  }

  std::size_t populationBytes() const {
    return sizeof(S) * static_cast<std::size_t>(L::Q) * static_cast<std::size_t>(p_.cells);
  }

  // The flags the reductions read: ghost cells count as solid.
  const std::uint8_t* ownedFlags() const { return owned_.size() ? owned_.get() : flags_.get(); }
  // Whether the samples compute the enstrophy: asked for (LbmSetup::enstrophy), and the velocity of every fluid cell
  // next to an owned one is known, which in a decomposed box needs ghost layers that carry every population.
  bool vorticity() const { return enstrophy_ && (!p_.hasGhosts() || haloAll_); }

  void selectDevice(int gpu) {
    device_ = selectCudaDevice(gpu);
    if (device_.major < 8)
      throw std::runtime_error(std::string("the CUDA LBM backend needs compute capability 8.0 or newer (A100 and "
                                           "later); ") + device_.name + " is " + std::to_string(device_.major) + "." +
                               std::to_string(device_.minor));
  }

  void configureLaunch() {
    const int threads = plan_.blockThreads;
    if (threads != 64 && threads != 128 && threads != 256)
      throw std::logic_error("blocks of " + std::to_string(threads) + " threads: the planner allows 64, 128 or 256");
    int bx = 32;
    while (bx < threads && bx < p_.n[0]) bx *= 2;  // powers of two: the block reductions need them
    block_ = dim3(bx, threads / bx, 1);
    const long long gy = (p_.n[1] + block_.y - 1) / block_.y;
    if (gy > 65535 || p_.n[2] > 65535)
      throw std::runtime_error("domain too tall for the CUDA launch grid: at most 65535 blocks along y (" +
                               std::to_string(65535LL * block_.y) + " cells) and 65535 cells along z");
    grid_ = dim3((p_.n[0] + bx - 1) / bx, static_cast<unsigned>(gy), p_.n[2]);
  }

  // The bulk update the plan names. The Hopper ones are compiled only for the lattices and storage types of
  // HopperSupport.h, for which alone the planner names them.
  std::unique_ptr<BulkStep<L, S>> makeBulk() const {
    constexpr bool hopperBuilt = hopperKernelsBuilt(L::kind, Store::precision);
    switch (plan_.bulk) {
      case BulkUpdate::Portable:
        return std::make_unique<PortableBulk<L, S>>(target_, plan_.halfPairs, plan_.prefetchWaves);
      case BulkUpdate::HopperCluster:
        if constexpr (hopperBuilt) return hopper::makeClusterBulk<L, S>(target_, plan_);
        break;
      case BulkUpdate::HopperTemporal:
        if constexpr (hopperBuilt) return hopper::makeTemporalBulk<L, S>(target_, plan_);
        break;
    }
    throw std::logic_error(std::string("bulk update ") + toString(plan_.bulk) + " planned for " + L::name + " " +
                           storageName() + ", for which no such kernel is built");
  }

  long long blocks() const { return static_cast<long long>(grid_.x) * grid_.y * grid_.z; }

  // Where the next sample's per-block partials go (the ring allocated at the first sample), after the streams are
  // joined; sampleTaken() once they are enqueued.
  double* nextSamplePartials() {
    if (ringCount_ >= kRingSamples)
      throw std::logic_error("observables ring full: read it back before sampling again");
    joinStreams();
    if (!ring_.size()) {
      ring_ = DeviceBuffer<double>(static_cast<std::size_t>(kObservables) * kRingSamples);
      ringHost_ = PinnedBuffer<double>(static_cast<std::size_t>(kObservables) * kRingSamples);
    }
    return partials_.get() + static_cast<std::size_t>(kObservables) * blocks() * pending_;
  }

  // A sample's partials are enqueued: its ring slot is the next one; the pending samples are folded once
  // kBatchSamples of them wait.
  void sampleTaken() {
    ++ringCount_;
    if (++pending_ == kBatchSamples) foldPendingSamples();
  }

  // Folds the pending samples' partials into their ring slots (the last pending_ of ringCount_), in order.
  void foldPendingSamples() {
    if (!pending_) return;
    foldObservables(partials_.get(), blocks(), foldScratch_.get(),
                    ring_.get() + static_cast<std::size_t>(kObservables) * (ringCount_ - pending_), stream_.get(),
                    pending_);
    pending_ = 0;
  }

  // Out-of-memory check before anything is allocated, with the largest domain that would fit.
  void checkMemory() {
    std::size_t freeBytes = 0, totalBytes = 0;
    HOPSIM_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
    const double arrays = inPlace_ ? 1.0 : 2.0;
    const double partials = kBatchSamples * kObservables * 8.0 / (block_.x * block_.y);
    const double perCell = arrays * L::Q * sizeof(S) + 2.0 + partials;
    const double reserve = 256.0 * (1 << 20);  // context, graphs, reductions
    const double needed = perCell * static_cast<double>(p_.cells) + reserve;
    if (needed <= static_cast<double>(freeBytes)) return;
    const double room = std::max(0.0, static_cast<double>(freeBytes) - reserve);
    const auto side = [&](double bytesPerCell) {
      return static_cast<long long>(std::floor(std::pow(room / bytesPerCell, 1.0 / L::D)));
    };
    const std::string shape = L::D == 3 ? "cubic" : "square";
    const std::string power = L::D == 3 ? "^3" : "^2";
    std::string msg = std::string("not enough GPU memory for ") + std::to_string(p_.cells) + " cells of " + L::name +
                      " " + storageName() + ": needs " + gib(needed) + " GiB (" +
                      std::to_string(static_cast<int>(perCell)) + " bytes per cell, " +
                      (inPlace_ ? "in-place" : "two lattices") + "), " + device_.name + " has " + gib(freeBytes) +
                      " GiB free; the largest " + shape + " domain that fits is " + std::to_string(side(perCell)) +
                      power;
    if (!inPlace_) {
      const double inPlaceBytes = L::Q * sizeof(S) + 2.0 + partials;
      msg += " (" + std::to_string(side(inPlaceBytes)) + power + " with the in-place layout where the case allows it)";
    }
    throw std::runtime_error(msg);
  }

  static std::string gib(double bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", bytes / double(1 << 30));
    return buf;
  }

  template <class Index>
  StateView<L, S, Index> state(int parity) const {
    if (inPlace_) return {f_[0].get(), static_cast<Index>(p_.cells), parity};
    return {f_[parity].get(), static_cast<Index>(p_.cells), -1};
  }

  template <class Index>
  void classify(std::uint8_t* cls, unsigned wrapped) {
    classifyKernel<L, Index><<<grid_, block_, 0, stream_.get()>>>(p_, flags_.get(), cls, wrapped);
    HOPSIM_CUDA_CHECK_LAUNCH("classifyKernel");
  }

  // Which cells one launch of a step updates: a class array (kCellSkip elsewhere), a boundary list and the curved
  // cells (their list and wall distances).
  struct CurvedPart {
    const BoundaryCell* list = nullptr;
    const T* q = nullptr;
    long long count = 0;
  };
  struct StepPart {
    const std::uint8_t* cls = nullptr;
    const BoundaryCell* list = nullptr;
    long long count = 0;
    CurvedPart curved;
  };
  struct CurvedCells {
    DeviceBuffer<BoundaryCell> list;
    DeviceBuffer<T> q;
    long long count = 0;
    CurvedPart part() const { return {list.get(), q.get(), count}; }
  };

  // The fluid cells that need gather(), in index order so that neighbouring threads read neighbouring cells: all
  // of them (wall and boundary cells), and the boundary cells alone for the steps whose bulk update takes the walls.
  // The cells of `curved` become class kCellCurved first: they go through the curved-cell kernel only.
  void listBoundaryCells(const CurvedLinks& curved) {
    std::vector<std::uint8_t> cls(static_cast<std::size_t>(p_.cells));
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(cls.data(), cls_.get(), cls.size(), cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
    std::vector<BoundaryCell> curvedList;
    if (!curved.cells.empty()) {
      if (inPlace_)
        throw std::logic_error("interpolated bounce-back needs the two-lattice layout (the planner chooses it)");
      for (const long long c : curved.cells) {
        if (cls[c] == kCellSkip) throw std::logic_error("a cell with interpolated links is not an owned fluid cell");
        cls[c] = kCellCurved;
        const long long nxy = static_cast<long long>(p_.n[0]) * p_.n[1];
        curvedList.push_back({static_cast<int>(c % p_.n[0]), static_cast<int>((c / p_.n[0]) % p_.n[1]),
                              static_cast<int>(c / nxy)});
      }
      HOPSIM_CUDA_CHECK(cudaMemcpyAsync(cls_.get(), cls.data(), cls.size(), cudaMemcpyHostToDevice, stream_.get()));
      curved_ = uploadCurved(curvedList, curved.q);
    }
    const std::vector<BoundaryCell> list = boundaryCellsOf(cls, p_.n, false);
    const std::vector<BoundaryCell> open = boundaryCellsOf(cls, p_.n, true);
    // Every owned cell bulk (ghost cells are class skip): a box the temporal kernel can run.
    target_.everyCellBulk = true;
    for (std::size_t c = 0; c < cls.size() && target_.everyCellBulk; ++c) {
      const long long nxy = static_cast<long long>(p_.n[0]) * p_.n[1];
      const auto k = static_cast<long long>(c);
      const bool owned = p_.owns(static_cast<int>(k % p_.n[0]), static_cast<int>((k / p_.n[0]) % p_.n[1]),
                                 static_cast<int>(k / nxy));
      target_.everyCellBulk = !owned || cls[c] == kCellBulk;
    }
    boundaryCount_ = static_cast<long long>(list.size());
    boundary_ = uploadList(list, stream_.get());
    openCount_ = static_cast<long long>(open.size());
    open_ = uploadList(open, stream_.get());
    if (p_.hasGhosts()) splitShell(cls, list, curvedList, curved.q);
    stream_.synchronize();  // the host vectors are freed on return
  }

  // A device copy of curved cells and their Q wall distances each, in the backend's arithmetic type.
  CurvedCells uploadCurved(const std::vector<BoundaryCell>& list, const std::vector<double>& q) {
    CurvedCells out;
    out.count = static_cast<long long>(list.size());
    out.list = uploadList(list, stream_.get());
    std::vector<T> qT(q.begin(), q.end());
    out.q = uploadList(qT, stream_.get());
    stream_.synchronize();  // qT is freed on return
    return out;
  }

  // Whether an owned cell is next to a ghost layer.
  bool inShell(int x, int y, int z) const {
    const int pos[3] = {x, y, z};
    for (int a = 0; a < 3; ++a)
      if ((p_.ghost[2 * a] && pos[a] == p_.ownLo(a)) || (p_.ghost[2 * a + 1] && pos[a] == p_.ownHi(a) - 1)) return true;
    return false;
  }

  // The shell / interior split (advanceShellFirst): the interior keeps the cell classes outside the shell; the shell
  // is a few disjoint planes, launched as regions over the full class array so that only its cells get threads,
  // and the boundary list is split alike.
  void splitShell(const std::vector<std::uint8_t>& cls, const std::vector<BoundaryCell>& list,
                  const std::vector<BoundaryCell>& curved, const std::vector<double>& q) {
    std::vector<std::uint8_t> interior(cls);
    std::size_t c = 0;
    for (int z = 0; z < p_.n[2]; ++z)
      for (int y = 0; y < p_.n[1]; ++y)
        for (int x = 0; x < p_.n[0]; ++x, ++c)
          if (inShell(x, y, z)) interior[c] = kCellSkip;
    std::vector<BoundaryCell> shellList, interiorList;
    for (const BoundaryCell& b : list) (inShell(b.x, b.y, b.z) ? shellList : interiorList).push_back(b);
    std::vector<BoundaryCell> shellCurved, interiorCurved;
    std::vector<double> shellQ, interiorQ;
    for (std::size_t k = 0; k < curved.size(); ++k) {
      const bool shell = inShell(curved[k].x, curved[k].y, curved[k].z);
      (shell ? shellCurved : interiorCurved).push_back(curved[k]);
      auto& qs = shell ? shellQ : interiorQ;
      qs.insert(qs.end(), q.begin() + L::Q * k, q.begin() + L::Q * (k + 1));
    }
    interiorCls_ = DeviceBuffer<std::uint8_t>(cls.size());
    HOPSIM_CUDA_CHECK(cudaMemcpyAsync(interiorCls_.get(), interior.data(), cls.size(), cudaMemcpyHostToDevice, stream_.get()));
    shellList_ = uploadList(shellList, stream_.get());
    interiorList_ = uploadList(interiorList, stream_.get());
    shellCurved_ = uploadCurved(shellCurved, shellQ);
    interiorCurved_ = uploadCurved(interiorCurved, interiorQ);
    shell_ = {cls_.get(), shellList_.get(), static_cast<long long>(shellList.size()), shellCurved_.part()};
    interior_ = {interiorCls_.get(), interiorList_.get(), static_cast<long long>(interiorList.size()),
                 interiorCurved_.part()};
    shellRegions_ = shellRegions(p_);
    stream_.synchronize();
  }

  // The shell's bulk cells, region by region, then its boundary cells, all on the (high-priority) halo stream.
  // Only decomposed boxes have a shell, and they keep two lattices (the constructor refuses them in place).
  template <class Index>
  void launchShell(int parity, double* forces) {
    target_.template withTwoLatticeAccess<Index>(parity, [&](const auto access) {
      for (const CellRegion& r : shellRegions_) {
        const auto blocks = static_cast<unsigned>((r.cells() + kMaxBlockThreads - 1) / kMaxBlockThreads);
        withCollisionTerms(p_, [&]<int Terms>() {
          bulkRegionKernel<L, Index, Terms><<<blocks, kMaxBlockThreads, 0, haloStream_.get()>>>(p_, cls_.get(),
                                                                                                 access, r);
          HOPSIM_CUDA_CHECK_LAUNCH("bulkRegionKernel");
        });
      }
    });
    launchPart(haloStream_.get(), parity, forces, StepPart{nullptr, shell_.list, shell_.count, shell_.curved});
  }

  void initialise(const LbmSetup& s) {
    initialiseEquilibrium<L>(p_, s, grid_, block_, wide_, stream_,
                             [&]<class Index>(Index) { return state<Index>(0); });
  }

  // One step: the bulk update over the box, and the boundary and curved-cell kernels over their lists. Each only
  // touches slots of its own cells (in place) or writes its own cells (two lattices), so their order does not
  // matter: where the plan says so (KernelPlan::sideStream) the small kernels run, one after the other, on a side
  // stream beside the bulk update, launched first so that their blocks take the first free slots, and the step
  // ends when both streams have. A step with forces leaves the wall cells to the boundary kernel: it credits their
  // links to the obstacles. Where the bulk update takes the inlet and outlet cells too (openInBulk_), the face
  // moments they read are computed first, on the step's stream, and only the curved cells are left; so are they,
  // with the copy of their ghost values, where the faces are wrapped (wrapped_: the face cells are bulk and wall
  // cells, and the side stream's kernels start after the copy). (Otherwise the moments pass heads the side stream's
  // chain: before the fork it measured 1-2% slower, docs/performance.md.) Where the bulk kernel keeps the face values
  // (keepFaces_), a step without forces leaves those of the state it writes and its ghost values in it, and the next
  // step has neither the face pass nor the copy.
  void enqueueStep(cudaStream_t st, int parity, double* forces) const {
    const bool walls = wallsInBulk_ && !forces;
    const bool faces = openInBulk_ && !forces;
    const bool keep = keepFaces_ && walls;
    const StepPart small = smallPart(walls, faces);
    const bool side = plan_.sideStream && (small.count || small.curved.count);
    // With wrapped faces the bulk kernel reads what the face pass wrote, in every step.
    const bool momentsFirst = faces || wrapped_;
    if (momentsFirst) launchOpenMoments(st, parity);
    const auto bulk = [&] {
      if (faces) bulk_->enqueueWithFaces(st, parity, cls_.get(), flags_.get(), faceValues_[parity]);
      else if (keep) bulk_->enqueueKeepingFaces(st, parity, cls_.get(), flags_.get(), faceValues_[parity ^ 1]);
      else if (walls) bulk_->enqueueWithWalls(st, parity, cls_.get(), flags_.get());
      else bulk_->enqueue(st, parity, cls_.get(), 1);
      keptParity_ = keep ? parity ^ 1 : -1;
      ghostsIn_ = keep;
    };
    if (!side) {
      bulk();
      launchPart(st, parity, forces, small, momentsFirst);
      return;
    }
    HOPSIM_CUDA_CHECK(cudaEventRecord(sideFork_.get(), st));
    HOPSIM_CUDA_CHECK(cudaStreamWaitEvent(sideStream_.get(), sideFork_.get(), 0));
    launchPart(sideStream_.get(), parity, forces, small, momentsFirst);
    bulk();
    HOPSIM_CUDA_CHECK(cudaEventRecord(sideJoin_.get(), sideStream_.get()));
    HOPSIM_CUDA_CHECK(cudaStreamWaitEvent(st, sideJoin_.get(), 0));
  }

  // The cells of a step outside the bulk kernel's pass: the curved cells, and the boundary cells unless the bulk
  // kernel takes the wall cells (`walls`: then the inlet and outlet cells) or those too (`faces`: none).
  StepPart smallPart(bool walls, bool faces) const {
    if (faces) return {nullptr, nullptr, 0, curved_.part()};
    if (walls) return {nullptr, open_.get(), openCount_, curved_.part()};
    return {nullptr, boundary_.get(), boundaryCount_, curved_.part()};
  }

  // enqueueStep() with the sample of the state it leaves in `partials` (per block): the boundary and curved cells
  // first, on the same stream, then the bulk kernel's sampling variant, which reads their new populations back.
  void enqueueSampledStep(cudaStream_t st, int parity, double* forces, double* partials) const {
    const bool walls = wallsInBulk_ && !forces;
    if (wrapped_) launchOpenMoments(st, parity);
    launchPart(st, parity, forces, smallPart(walls, false), wrapped_);
    bulk_->enqueueSampled(st, parity, cls_.get(), walls ? flags_.get() : nullptr, ownedFlags(), partials);
    keptParity_ = -1;
    ghostsIn_ = false;
  }

  // The cells of `part` only (the whole box, or the shell or interior of a decomposed box).
  // A part without a class array has no bulk launch (the shell's bulk cells go by region). Where the plan keeps the
  // inlet and outlet face cells' moments, they are computed first, from the populations this step reads, unless
  // `momentsDone` (already on the stream before it).
  void launchPart(cudaStream_t st, int parity, double* forces, const StepPart& part, bool momentsDone = false) const {
    if (part.cls) bulk_->enqueue(st, parity, part.cls, 1);
    if (!part.count && !part.curved.count) return;
    if (!momentsDone) launchOpenMoments(st, parity);
    launchBoundary(st, parity, forces, part);
    launchCurved(st, parity, forces, part.curved);
  }

  // Blocks of kBoundaryBlockThreads for a list kernel over `count` cells on stream `st`: one thread per cell, or on
  // the side stream at most KernelPlan::sideBlocks blocks (the kernels then step through their lists).
  unsigned listBlocks(cudaStream_t st, long long count) const {
    const long long perCell = (count + kBoundaryBlockThreads - 1) / kBoundaryBlockThreads;
    const bool capped = plan_.sideBlocks > 0 && st == sideStream_.get();
    return static_cast<unsigned>(capped ? std::min<long long>(perCell, plan_.sideBlocks) : perCell);
  }

  // The face pass of a step (once, before any cell reads what it stores; not where the step before kept the face
  // values of this state), and with wrapped faces the copy of its ghost values into the populations the step reads,
  // after every slot's moments are taken from them (not where the step before left them there).
  void launchOpenMoments(cudaStream_t st, int parity) const {
    if (!faceValues_[parity].slots) return;
    const bool kept = keptParity_ == parity;
    if (!kept) launchFacePass(st, parity);
    if (wrapped_ && !(kept && ghostsIn_)) launchWrap(st, parity);
  }

  // The ghost values of the state `parity` into its displaced slots (wrapGhostsKernel; where faceValues_ keep
  // displaced populations, what the slots held goes there).
  void launchWrap(cudaStream_t st, int parity) const {
    const OpenFaceMoments<T>& values = faceValues_[parity];
    wrapGhostsKernel<L, S><<<listBlocks(st, values.slots), kBoundaryBlockThreads, 0, st>>>(
        p_, values, f_[parity].get(), static_cast<unsigned long long>(p_.cells));
    HOPSIM_CUDA_CHECK_LAUNCH("wrapGhostsKernel");
  }

  // Where the last step left ghost values in the current state's displaced slots (ghostsIn_), its own populations
  // put back before anything reads them (fields, observables, checkpoints); the next step then copies the ghost
  // values again (launchOpenMoments()).
  void restoreDisplacedPopulations() const {
    if (!ghostsIn_) return;
    const OpenFaceMoments<T>& values = faceValues_[parity_];
    restoreDisplacedKernel<L, S><<<listBlocks(stream_.get(), values.slots), kBoundaryBlockThreads, 0, stream_.get()>>>(
        p_, values, f_[parity_].get(), static_cast<unsigned long long>(p_.cells));
    HOPSIM_CUDA_CHECK_LAUNCH("restoreDisplacedKernel");
    ghostsIn_ = false;
  }

  // The face values of the state `parity` (storeOpenMoments()) into faceValues_[parity].
  void launchFacePass(cudaStream_t st, int parity) const {
    const OpenFaceMoments<T>& values = faceValues_[parity];
    target_.template withTwoLatticeAccess<unsigned long long>(parity, [&](const auto access) {
      openMomentsKernel<L, S><<<listBlocks(st, values.slots), kBoundaryBlockThreads, 0, st>>>(p_, flags_.get(), access,
                                                                                             values);
      HOPSIM_CUDA_CHECK_LAUNCH("openMomentsKernel");
    });
  }

  void launchBoundary(cudaStream_t st, int parity, double* forces, const StepPart& part) const {
    if (!part.count) return;
    const BoundaryArgs<T> args{p_, flags_.get(), part.list, part.count, forces, faceValues_[parity]};
    const unsigned blocks = listBlocks(st, part.count);
    target_.template withAccess<unsigned long long>(parity, [&](const auto access) {
      boundaryStepKernel<L><<<blocks, kBoundaryBlockThreads, 0, st>>>(args, access);
      HOPSIM_CUDA_CHECK_LAUNCH("boundaryStepKernel");
    });
  }

  void launchCurved(cudaStream_t st, int parity, double* forces, const CurvedPart& curved) const {
    if (!curved.count) return;
    const BoundaryArgs<T> args{p_, flags_.get(), curved.list, curved.count, forces, faceValues_[parity], curved.q};
    const unsigned blocks = listBlocks(st, curved.count);
    target_.template withTwoLatticeAccess<unsigned long long>(parity, [&](const auto access) {
      curvedStepKernel<L><<<blocks, kBoundaryBlockThreads, 0, st>>>(args, access);
      HOPSIM_CUDA_CHECK_LAUNCH("curvedStepKernel");
    });
  }

  // `steps` steps without forces from the state of `parity` in one launch: one step, or the bulk update's
  // stepsPerLaunch() (the temporal kernel: its box has bulk and wall cells only, the inlet and outlet cells among
  // them where their faces are wrapped, whose face pass and copy of the ghost values come first).
  void enqueueLaunch(cudaStream_t st, int parity, int steps) const {
    if (steps == 1) return enqueueStep(st, parity, nullptr);
    if (wrapped_) launchOpenMoments(st, parity);
    bulk_->enqueue(st, parity, boxCls_.size() ? boxCls_.get() : cls_.get(), steps);
  }

  // Steps without forces: whole graphs of graphSteps steps (an even number of launches of k steps, so that a graph
  // leaves the current array where it found it), then launches of k steps, then single steps.
  // Where the bulk kernel keeps the face values, a graph's steps run neither the face pass nor the copy: the current
  // state's values are computed and copied first where no step has left them (the first step, after a load, after a
  // step with forces or a sample, after the state was read).
  void runPlain(long long steps) {
    const int chunk = plan_.graphSteps;
    const int k = bulk_->stepsPerLaunch();
    if (keepFaces_ && steps >= chunk && !(keptParity_ == parity_ && ghostsIn_)) {
      launchOpenMoments(stream_.get(), parity_);
      keptParity_ = parity_;
      ghostsIn_ = true;
    }
    while (steps >= chunk) {
      CudaGraph& g = graphs_[parity_];
      if (!g) {
        const int start = parity_;
        g = CudaGraph::capture(
            stream_.get(),
            [&](cudaStream_t st) {
              for (int i = 0; i < chunk / k; ++i) enqueueLaunch(st, start ^ (i & 1), k);
            },
            plan_.graphPriority);
      }
      g.launch(stream_.get());
      steps -= chunk;
    }
    while (steps > 0) {
      const int n = steps >= k ? k : 1;
      enqueueLaunch(stream_.get(), parity_, n);
      parity_ ^= 1;
      steps -= n;
    }
  }

  template <class Index>
  void launchFields() {
    restoreDisplacedPopulations();
    fieldsKernel<L, Index><<<grid_, block_, 0, stream_.get()>>>(p_, state<Index>(parity_), flags_.get(),
                                                                fieldRho_.get(), fieldU_.get());
    HOPSIM_CUDA_CHECK_LAUNCH("fieldsKernel");
  }

  // The current state's per-block partials into `partials` (observables() passes the first slot).
  template <class Index>
  void launchObservables(double* partials) {
    restoreDisplacedPopulations();
    observablesKernel<L, Index><<<grid_, block_, 0, stream_.get()>>>(p_, state<Index>(parity_), ownedFlags(),
                                                                     flags_.get(), vorticity(), partials);
    HOPSIM_CUDA_CHECK_LAUNCH("observablesKernel");
  }

  DomainParams<T> p_;
  KernelPlan plan_;
  std::string name_;  // cuda/hopper where the plan asked for the Hopper kernels, whichever bulk update they settled on
  int obstacles_;
  bool inPlace_;
  bool haloAll_;
  bool enstrophy_;  // LbmSetup::enstrophy
  bool wide_ = false;
  cudaDeviceProp device_{};
  dim3 block_, grid_;
  int gpu_;
  DeviceScope deviceScope_;  // before the streams and events: they belong to the device current at their creation
  CudaStream stream_;
  CudaEvent start_, stop_;
  DeviceBuffer<S> f_[2];
  DeviceBuffer<std::uint8_t> flags_, cls_, owned_;  // owned_: decomposed runs only
  DeviceBuffer<std::uint8_t> boxCls_;  // every cell's class, ghosts included: the temporal kernel's k-step launches
  HaloBuffers halo_[6];
  // Decomposed runs: the shell and interior parts of a step, a second stream, and the events that join them.
  std::vector<CellRegion> shellRegions_;
  DeviceBuffer<std::uint8_t> interiorCls_;
  DeviceBuffer<BoundaryCell> shellList_, interiorList_;
  CurvedCells shellCurved_, interiorCurved_;
  StepPart shell_, interior_;
  CudaStream haloStream_{CudaStream::HighestPriority{}};
  // One rank: the small kernels of each step beside the bulk update (enqueueStep), forked from and joined back into
  // the stepping stream by these events.
  CudaStream sideStream_{CudaStream::HighestPriority{}};
  CudaEvent sideFork_, sideJoin_;
  CudaEvent mainDone_, haloDone_, shellDone_;
  bool shellPending_ = false;  // the last step was advanceShellFirst (and no full join since)
  // Decomposed with ghost layers as deep as the bulk update's steps per launch (the temporal kernel): the whole box
  // is stepped, ghost cells included (their values are not used), and the solver exchanges after each launch.
  bool deepHalo_ = false;
  DeviceBuffer<double> forces_, partials_, foldScratch_, result_;
  DeviceBuffer<BoundaryCell> boundary_, open_;  // every non-bulk fluid cell; those with inlet or outlet links
  long long boundaryCount_ = 0, openCount_ = 0;
  CurvedCells curved_;  // the cells with interpolated links (class kCellCurved) and their wall distances
  bool wallsInBulk_ = false;  // steps without forces: the bulk update takes the wall cells, open_ the rest
  bool openInBulk_ = false;   // steps without forces: the bulk update takes the open_ cells too
  unsigned wrapped_ = 0;      // the faces whose ghost values the face pass wraps (openWrapFaces(); 0: none)
  // The inlet and outlet face cells' moments and ghost-node populations of the state of each parity, stored by each
  // step's face pass before the cells that read them, or kept by the step before (KernelPlan::openMoments; no slots
  // where the plan does without them; one set of buffers for both parities unless keepFaces_).
  OpenFaceMoments<T> faceValues_[2];
  DeviceBuffer<T> openValues_[2], openGhosts_[2], openDisplaced_[2];
  bool keepFaces_ = false;  // the bulk kernel's face cells keep the face values of the state it writes
  // The state whose face values faceValues_ holds as the last step enqueued left them (-1: none), and whether that
  // step left its ghost values in the state's displaced slots too, the populations they displace in faceValues_
  // (then the current state's). Steps are enqueued by const members (captured into graphs): they follow what those
  // enqueue.
  mutable int keptParity_ = -1;
  mutable bool ghostsIn_ = false;
  PinnedBuffer<double> hostResult_;
  // Output fields: device staging arrays of the owned block, the pinned slots they are copied into on copyStream_,
  // the event that the fields kernel is done, and the slot copied last (whose copy the next kernel waits for).
  DeviceBuffer<T> fieldRho_, fieldU_;
  FieldCopy copies_[kSyncSlot + 1];
  CudaStream copyStream_;
  CudaEvent computed_{CudaEvent::Sleeping{}};
  int lastCopy_ = -1;
  // The observables ring: kRingSamples folded samples on the device, ringCount_ of them queued since the last read,
  // the last pending_ of those still as partials (kBatchSamples slots of partials_).
  DeviceBuffer<double> ring_;
  PinnedBuffer<double> ringHost_;
  int ringCount_ = 0;
  int pending_ = 0;
  // The forces ring: kRingSamples samples of 3 doubles per obstacle, forceCount_ queued since the last read.
  DeviceBuffer<double> forceRing_;
  PinnedBuffer<double> forceRingHost_;
  int forceCount_ = 0;
  BulkTarget<L, S> target_;  // p_, f_ and the launch shape, as the bulk update and withAccess() see them
  std::unique_ptr<BulkStep<L, S>> bulk_;
  CudaGraph graphs_[2];
  int parity_ = 0;  // launches done mod 2: which array is current (two lattices) or the AA state (in place)
};

// The backend for lattice K in storage P (declared in CudaLbmFactory.h; each pair is instantiated in a .cu file of
// its own).
template <LatticeKind K, Precision P>
std::unique_ptr<LbmBackend> makeCudaLbm(const LbmSetup& s, const DevicePlan& plan) {
  using L = std::conditional_t<K == LatticeKind::D2Q9, D2Q9, std::conditional_t<K == LatticeKind::D3Q19, D3Q19, D3Q27>>;
  using S =
      std::conditional_t<P == Precision::Single, float, std::conditional_t<P == Precision::Double, double, __half>>;
  static_assert(L::kind == K);
  return std::make_unique<CudaLbm<L, S>>(s, plan);
}

}  // namespace hopsim::lbm
