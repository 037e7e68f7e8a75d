// Decomposed MD on GPUs: DomainMdEngine's step with the atoms on this rank's GPU (kernels/md/DomainMdDevice.h)
// and, on the host, what needs MPI: the control allreduce, the ghost refresh and the messages of the rebuild.
//
// A rebuild runs on the GPU: wrap, migration (the atoms that leave are the only ones that travel, through the host
// and MPI), the stable sort by the host sorter's cells, the ghost choice and the list. The device does each part as
// AtomExchange and DomainAtoms.h do on the host, in the same order and arithmetic, so the host rebuild (download,
// the same parts on the host, upload; EngineConfig::rebuildOnHost) leaves the same atoms in the same slots: tests
// compare the two. The initial state and a checkpoint arrive on the host and go through the host's rebuild.
// Between rebuilds the GPU packs the positions each swap sends, the host passes them on with MPI through pinned
// buffers, and the GPU unpacks them: six messages in AtomExchange's order, each after the previous one is unpacked
// (later axes forward ghosts earlier axes brought in). A swap to the rank itself (alone along a periodic axis) is a
// GPU copy queued on the same stream, so order holds with no host synchronisation; only remote swaps stop the host.
// Where every neighbour is on this node (device.halo: auto or ipc), remote swaps go GPU to GPU instead: after each
// rebuild every rank maps where its neighbours want their ghosts (CUDA IPC), packs straight into that inbox and
// sends a one-byte MPI token; the receiver unpacks from its own device memory. One inbox slot per swap is enough:
// a rank writes into its neighbour's inbox only after the step's control allreduce, which every rank enters after
// its stream, and with it the previous step's unpacking, has finished.
#include "solvers/md/DomainMdEngine.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <exception>
#include <fmt/format.h>
#include <limits>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/md/DomainMdDevice.h"
#include "kernels/md/PeriodicBox.h"
#include "kernels/md/cpu/CpuNeighborList.h"
#include "solvers/md/AtomExchange.h"
#include "solvers/md/DomainAtoms.h"
#include "core/md/LocalAtoms.h"
#include "kernels/md/Thermostats.h"
#include "kernels/md/VelocityInit.h"

namespace hopsim::md {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The parts of a rebuild: lap() is the seconds since the previous lap (or the start), and marks a new one.
struct Laps {
  Clock::time_point mark = Clock::now();
  double lap() {
    const auto now = Clock::now();
    const double s = std::chrono::duration<double>(now - mark).count();
    mark = now;
    return s;
  }
};

template <class S>
class CudaDomainMdEngine final : public MdEngine {
 public:
  CudaDomainMdEngine(const EngineConfig& c, const Decomposition& d, const mpi::Comm& comm,
                     std::unique_ptr<DomainMdDevice<S>> device)
      : config_(c), decomp_(d), comm_(comm), exchange_(d, comm, interactionRange(c.lj, c.skin)),
        device_(std::move(device)) {
    // The host bins only to sort the owned atoms at a rebuild (locality on the GPU); the list is the GPU's.
    const double range = interactionRange(c.lj, c.skin);
    const GhostRegion region = ghostRegion(d, range);
    sorter_.setRegion(region.lo, region.hi, range);
    chooseGhostTransport();
  }

  void initialize(const ParticleState& s) override {
    // Every rank holds the whole initial state (it built it from the case) and keeps what its sub-box owns.
    nGlobal_ = s.size();
    mass_ = s.mass;
    box_ = s.box.length;
    takeOwned(s, decomp_, atoms_);
    const auto& in = config_.integrator;
    if (in.type == IntegratorType::NoseHoover) nh_ = noseHooverStart(in, degreesOfFreedom(nGlobal_));
    device_->setMass(mass_);
    rebuild(false);
    device_->computeForces(true);
    device_->measureKinetic();
    twoKe_ = comm_.allreduceSum(device_->localSums().twoKinetic);
  }

  void advance(long long steps, long long firstStep) override {
    if (steps <= 0) return;
    const auto& in = config_.integrator;
    const bool noseHoover = in.type == IntegratorType::NoseHoover;
    std::vector<double> flags(2);
    device_->setStep(firstStep + 1);
    for (long long k = 0; k < steps; ++k) {
      const bool last = k + 1 == steps;
      const double scale = noseHoover ? noseHooverHalfStep(nh_, twoKe_, in.dt) : 1.0;
      const int slot = static_cast<int>((firstStep + 1 + k) & 1);  // the ghost inboxes' slot of this step
      const StepFlags mine = device_->firstHalf(scale, prologue_, slot);
      // One allreduce answers both "does anyone need a rebuild" and "did anyone see infinite forces last step".
      auto t0 = Clock::now();
      flags[0] = mine.rebuild ? 1 : 0, flags[1] = mine.badForces ? 1 : 0;
      comm_.allreduceMax(flags);
      stats_.commSeconds += since(t0);
      if (flags[1] > 0) break;  // thermo() reports it; the caller stops
      if (flags[0] == 0) forwardGhosts(slot, prologue_);
      else if (config_.rebuildOnHost) rebuild(true);
      else rebuildOnDevice();
      device_->secondHalf(last);
      if (noseHoover) {
        twoKe_ = comm_.allreduceSum(device_->localSums().twoKinetic);
        const double s2 = noseHooverHalfStep(nh_, twoKe_, in.dt);
        device_->scaleVelocities(s2);
        twoKe_ *= s2 * s2;
      }
    }
  }

  RawThermo thermo() override { return sumOverRanks(device_->localSums(), comm_); }

  void download(ParticleState& s) override {
    device_->download(atoms_);  // the host copy is scratch between rebuilds
    gatherAtoms(atoms_, comm_, mass_, box_, s);
  }

  void forces(std::vector<double>& fx, std::vector<double>& fy, std::vector<double>& fz) override {
    gatherForces(device_->forces(), comm_, fx, fy, fz);
  }

  // Neighbour: the whole rebuild as the host waits for it (download, migration, borders, upload, GPU list build),
  // split in domain; force and integrate from CUDA events when the engine times phases, else NaN (not measured
  // apart).
  EngineStats stats() const override {
    const EngineStats d = device_->stats();
    EngineStats s = stats_;
    s.neighborBuilds = d.neighborBuilds;
    s.forceSeconds = d.forceSeconds;
    s.integrateSeconds = d.integrateSeconds;
    s.otherSeconds = std::numeric_limits<double>::quiet_NaN();
    s.meanNeighbors = d.meanNeighbors;
    s.maxNeighbors = d.maxNeighbors;
    s.forceThreadsPerAtom = d.forceThreadsPerAtom;
    s.ownedAtoms = static_cast<long long>(owned_);
    s.domain.peerGhosts = peer_;
    // load() is the upload and the list build; the device times the build on the GPU.
    s.domain.list = d.neighborSeconds;
    s.domain.upload = std::max(0.0, loadSeconds_ - d.neighborSeconds);
    return s;
  }

  void saveState(EngineState& st) override {
    st.box.length = box_;
    st.mass = mass_;
    st.atomsInAll = nGlobal_;
    device_->download(atoms_);
    device_->reference(x0_, y0_, z0_);
    const auto put = [](std::vector<double>& to, const std::vector<S>& from) { to.assign(from.begin(), from.end()); };
    put(st.x, atoms_.x), put(st.y, atoms_.y), put(st.z, atoms_.z), put(st.x0, x0_), put(st.y0, y0_), put(st.z0, z0_);
    put(st.vx, atoms_.vx), put(st.vy, atoms_.vy), put(st.vz, atoms_.vz);
    const std::vector<double> f = device_->forces();
    const std::size_t n = atoms_.owned;
    for (auto* v : {&st.fx, &st.fy, &st.fz}) v->resize(n);
    for (std::size_t i = 0; i < n; ++i) st.fx[i] = f[3 * i], st.fy[i] = f[3 * i + 1], st.fz[i] = f[3 * i + 2];
    st.id = atoms_.id;
    const RawThermo sums = device_->localSums();
    st.potential = sums.potential;
    st.virial = sums.virial;
    st.twoKinetic = sums.twoKinetic;
    st.nhXi = nh_.xi;
    st.nhTwoKinetic = twoKe_;
  }

  // As DomainMdEngine::restoreState: the rebuild that made the saved list replayed from the owned atoms where they
  // stood then (the same ghosts, the same list on the GPU), then the atoms moved to where they are now and the ghosts
  // refreshed as every step since did.
  void restoreState(const EngineState& st) override {
    nGlobal_ = st.atomsInAll;
    mass_ = st.mass;
    box_ = st.box.length;
    const auto& in = config_.integrator;
    if (in.type == IntegratorType::NoseHoover) nh_ = noseHooverStart(in, degreesOfFreedom(nGlobal_));
    nh_.xi = st.nhXi;
    twoKe_ = st.nhTwoKinetic;
    device_->setMass(mass_);
    atoms_.clear();
    for (std::size_t i = 0; i < st.size(); ++i)
      atoms_.pushOwned(S(st.x0[i]), S(st.y0[i]), S(st.z0[i]), S(st.vx[i]), S(st.vy[i]), S(st.vz[i]), st.id[i]);
    exchange_.borders(atoms_);
    load();
    LocalAtoms<S> now;
    for (std::size_t i = 0; i < st.size(); ++i)
      now.pushOwned(S(st.x[i]), S(st.y[i]), S(st.z[i]), S(st.vx[i]), S(st.vy[i]), S(st.vz[i]), st.id[i]);
    std::vector<double> f(3 * st.size());
    for (std::size_t i = 0; i < st.size(); ++i) f[3 * i] = st.fx[i], f[3 * i + 1] = st.fy[i], f[3 * i + 2] = st.fz[i];
    RawThermo sums;
    sums.potential = st.potential;
    sums.virial = st.virial;
    sums.twoKinetic = st.twoKinetic;
    device_->restore(now, f, sums);
    forwardGhosts(0, 0);
  }

  std::string backendName() const override {
    const auto& g = decomp_.dims();
    return fmt::format("cuda ({}) x {} MPI ranks ({}x{}x{}), ghosts {}", device_->deviceName(), decomp_.size(), g[0],
                       g[1], g[2], peer_ ? "GPU to GPU (CUDA IPC)" : "through host memory");
  }

 private:
  // The rebuild on the GPU: only the atoms that leave and the ghosts' positions come through the host, for MPI.
  void rebuildOnDevice() {
    auto& p = stats_.domain;
    const auto t0 = Clock::now();
    Laps laps;
    // Migration, swap by swap as AtomExchange::migrate.
    device_->wrapOwned();
    const auto& swaps = exchange_.swaps();
    for (const auto& s : swaps) {
      const int axis = s.axis, parts = decomp_.dims()[axis], me = decomp_.coords()[axis];
      if (parts == 1) continue;  // one rank along this axis owns all of it
      const int target = s.sendTo == mpi::kNoRank ? -1 : ((me + s.dir) % parts + parts) % parts;
      const std::span<const double> out = device_->takeLeaving(axis, target);
      send_.assign(out.begin(), out.end());
      comm_.sendrecv(send_, s.sendTo, recv_, s.recvFrom, 100 + s.tag);
      device_->appendArrivals(recv_);
      stats_.migratedAtoms += static_cast<long long>(send_.size() / 7);
    }
    checkMigration(device_->misplaced(), device_->ownedCount(), comm_, nGlobal_);
    p.migrate += laps.lap();
    device_->sortOwned();  // queued: its GPU time shows in the borders' first wait
    p.sort += laps.lap();
    // Borders, axis by axis as AtomExchange::borders.
    const double range = interactionRange(config_.lj, config_.skin);
    for (std::size_t k = 0; k < swaps.size(); k += 2) {
      const int axis = swaps[k].axis;
      device_->selectBorders(axis, decomp_.subLo(axis) + range, decomp_.subHi(axis) - range,
                             {swaps[k].sendTo != mpi::kNoRank, swaps[k + 1].sendTo != mpi::kNoRank},
                             {swaps[k].shift, swaps[k + 1].shift});
      for (std::size_t q = k; q < k + 2; ++q) {
        const auto& s = swaps[q];
        if (toSelf(s)) {
          device_->placeGhosts(q, device_->sendCount(q));
          device_->copyGhosts(q);
          continue;
        }
        const std::span<const std::byte> out = device_->packGhosts(q);
        countOut_.assign(1, double(device_->sendCount(q)));
        comm_.sendrecv(countOut_, s.sendTo, countIn_, s.recvFrom, 200 + s.tag);
        device_->placeGhosts(q, countIn_.empty() ? 0 : static_cast<std::size_t>(countIn_[0]));
        comm_.sendrecvBytes(out, s.sendTo, device_->ghostInbox(q), s.recvFrom, 250 + s.tag);
        device_->unpackGhosts(q);
      }
    }
    p.borders += laps.lap();
    // The receivers' inboxes are final once the ghosts are placed: their mapping overlaps the list build.
    device_->finishRebuild([this] {
      if (peer_) mapInboxes();
    });
    owned_ = device_->ownedCount();
    loadSeconds_ += laps.lap();
    stats_.neighborSeconds += since(t0);
  }

  // DomainMdEngine's rebuild with the atoms fetched from the GPU first (not at initialize: they come from the case)
  // and loaded back after: the only place atoms change rank.
  void rebuild(bool fetch) {
    auto& p = stats_.domain;
    const auto t0 = Clock::now();
    Laps laps;
    if (fetch) device_->download(atoms_);
    p.download += laps.lap();
    stats_.migratedAtoms += wrapAndMigrate(atoms_, exchange_, comm_, box_, nGlobal_);
    p.migrate += laps.lap();
    reorderOwned(atoms_, sorter_.sortOrder(atoms_.x.data(), atoms_.y.data(), atoms_.z.data(), atoms_.owned), scratch_,
                 scratchId_);
    p.sort += laps.lap();
    exchange_.borders(atoms_);
    p.borders += laps.lap();
    load();
    loadSeconds_ += laps.lap();
    stats_.neighborSeconds += since(t0);
  }

  // The owned atoms and ghosts the host holds onto the GPU, the list built there.
  void load() {
    std::vector<GhostSwap<S>> swaps;
    for (const auto& s : exchange_.swaps()) swaps.push_back({s.axis, s.shift, &s.indices, s.first, s.count, toSelf(s)});
    device_->load(atoms_, swaps);
    owned_ = atoms_.owned;
    if (peer_) mapInboxes();
  }

  // device.halo: remote ghosts GPU to GPU where the device can map its neighbours' memory and all of them run on
  // this node (auto, ipc), else through the host (staged, and auto's fallback; the bench JSON and the backend name
  // say which). Collective.
  void chooseGhostTransport() {
    const HaloTransport wanted = config_.ghosts;
    std::vector<int> partners;
    for (const auto& s : exchange_.swaps())
      if (!toSelf(s)) partners.push_back(s.sendTo), partners.push_back(s.recvFrom);
    const bool local = comm_.sharesNodeWith(partners);  // collective: every rank asks
    if (wanted == HaloTransport::Staged) return;
    std::string why;
    if (!device_->peerGhosts()) why = "the " + device_->deviceName() + " device cannot map another process's memory";
    else if (!local) why = "some neighbouring ranks run on other nodes";
    if (comm_.allreduceMax(why.empty() ? 0.0 : 1.0) > 0) {
      if (wanted == HaloTransport::Ipc)
        throw std::runtime_error("device.halo: ipc is not possible here: " + (why.empty() ? "on another rank" : why));
      return;
    }
    peer_ = true;
    // The swaps firstHalf() starts each step: up to the end of the first axis with a remote swap. Every swap before
    // it is this rank's own; a later axis's swaps may send on the ghosts this axis receives, so they wait for them.
    const auto& swaps = exchange_.swaps();
    std::size_t q = 0;
    while (q < swaps.size() && toSelf(swaps[q])) ++q;
    prologue_ = q < swaps.size() ? q / 2 * 2 + 2 : swaps.size();
  }

  // After each rebuild: every rank tells the rank that sends it a swap's ghosts where they go in its device memory,
  // and maps what its own receivers tell it. Every rank takes part in every message even after an error, so that
  // none is left waiting; an error anywhere stops the run on every rank.
  void mapInboxes() {
    std::string error;
    const auto& swaps = exchange_.swaps();
    std::vector<std::byte> mine, theirs(DomainMdDevice<S>::kInboxHandleBytes);
    for (std::size_t q = 0; q < swaps.size(); ++q) {
      const auto& s = swaps[q];
      if (toSelf(s)) continue;
      mine.assign(DomainMdDevice<S>::kInboxHandleBytes, std::byte{0});
      try {
        if (error.empty()) mine = device_->exportInbox(q);
      } catch (const std::exception& e) {
        error = e.what();
      }
      comm_.sendrecvBytes(mine, s.recvFrom, theirs, s.sendTo, kInboxTag + s.tag);
      try {
        if (error.empty() && s.sendTo != mpi::kNoRank) device_->mapPeerInbox(q, s.sendTo, theirs);
      } catch (const std::exception& e) {
        error = e.what();
      }
    }
    throwIfAnyFailed(comm_, error, "the ghost exchange's GPU to GPU mapping (device.halo: staged avoids it)");
  }

  // The ghost refresh between rebuilds, swap by swap. The first `started` swaps were started by firstHalf() (GPU to
  // GPU: self copies and packs into the neighbours' inbox slot `slot`), and the step's allreduce, which every rank
  // entered after them, tells that they are there: only their unpacking is left. The others: a self swap copied on
  // the GPU; a remote one packed into the neighbour's inbox and announced by a one-byte token, or through host memory.
  void forwardGhosts(int slot, std::size_t started) {
    auto& p = stats_.domain;
    const auto t0 = Clock::now();
    const auto& swaps = exchange_.swaps();
    for (std::size_t q = 0; q < swaps.size(); ++q) {
      const auto& s = swaps[q];
      auto t = Clock::now();
      if (q < started) {
        if (!toSelf(s)) device_->unpackGhostsFromInbox(q, slot);
        p.unpack += since(t);
        continue;
      }
      if (toSelf(s)) {
        device_->copyGhosts(q);  // queued: no host round trip for a rank's own periodic images
        p.self += since(t);
        continue;
      }
      if (peer_) {
        device_->packGhostsToPeer(q, slot);
        p.pack += since(t);
        t = Clock::now();
        comm_.sendrecvBytes(std::span(&tokenOut_, 1), s.sendTo, std::span(&tokenIn_, 1), s.recvFrom,
                            AtomExchange<S>::kForwardTag + s.tag);
        p.mpi += since(t);
        t = Clock::now();
        device_->unpackGhostsFromInbox(q, slot);
        p.unpack += since(t);
        continue;
      }
      const std::span<const std::byte> out = device_->packGhosts(q);
      p.pack += since(t);
      t = Clock::now();
      comm_.sendrecvBytes(out, s.sendTo, device_->ghostInbox(q), s.recvFrom, AtomExchange<S>::kForwardTag + s.tag);
      p.mpi += since(t);
      t = Clock::now();
      device_->unpackGhosts(q);
      p.unpack += since(t);
    }
    ++p.refreshes;
    stats_.commSeconds += since(t0);
  }

  // One rank along a periodic axis: it sends its faces' atoms to itself, as the other face's images.
  bool toSelf(const typename AtomExchange<S>::Swap& s) const {
    return s.sendTo == comm_.rank() && s.recvFrom == comm_.rank();
  }

  EngineConfig config_;
  Decomposition decomp_;
  mpi::Comm comm_;
  AtomExchange<S> exchange_;
  std::unique_ptr<DomainMdDevice<S>> device_;
  CpuNeighborList<S, Boundary::Ghosts> sorter_;
  NoseHooverState nh_;
  std::size_t nGlobal_ = 0, owned_ = 0;
  double mass_ = 1;
  std::array<double, 3> box_{};
  LocalAtoms<S> atoms_;  // host copy: filled at rebuilds and downloads only
  std::vector<S> scratch_;  // reorderOwned()'s spare buffers
  std::vector<long long> scratchId_;
  std::vector<S> x0_, y0_, z0_;  // saveState()'s copy of the list's reference positions
  std::vector<double> send_, recv_, countOut_, countIn_;  // the device rebuild's messages
  bool peer_ = false;  // remote ghosts GPU to GPU (chooseGhostTransport())
  std::size_t prologue_ = 0;  // with peer_: the swaps firstHalf() starts (forwardGhosts())
  std::byte tokenOut_{1}, tokenIn_{0};  // the one-byte "your inbox is filled" message
  static constexpr int kInboxTag = 260;  // + swap tag: mapInboxes()' messages
  double twoKe_ = 0;
  double loadSeconds_ = 0;  // host time in device_->load(): staging, upload and list build
  EngineStats stats_;
};

}  // namespace

DomainDeviceConfig domainDeviceConfig(const EngineConfig& config, const Decomposition& decomposition, int gpu) {
  DomainDeviceConfig dc;
  dc.engine = config;
  dc.gpu = gpu;
  const GhostRegion region = ghostRegion(decomposition, interactionRange(config.lj, config.skin));
  dc.lo = region.lo, dc.hi = region.hi;
  for (int a = 0; a < 3; ++a) {
    dc.box[a] = decomposition.boxLength()[a];
    dc.coords[a] = decomposition.coords()[a];
    for (int c = 0; c <= decomposition.dims()[a]; ++c) dc.faces[a].push_back(decomposition.face(a, c));
  }
  return dc;
}

template <class S>
std::unique_ptr<MdEngine> makeDomainEngine(const EngineConfig& config, const Decomposition& decomposition,
                                           const mpi::Comm& comm, std::unique_ptr<DomainMdDevice<S>> device) {
  return std::make_unique<CudaDomainMdEngine<S>>(config, decomposition, comm, std::move(device));
}
template std::unique_ptr<MdEngine> makeDomainEngine<float>(const EngineConfig&, const Decomposition&, const mpi::Comm&,
                                                           std::unique_ptr<DomainMdDevice<float>>);
template std::unique_ptr<MdEngine> makeDomainEngine<double>(const EngineConfig&, const Decomposition&, const mpi::Comm&,
                                                            std::unique_ptr<DomainMdDevice<double>>);

std::unique_ptr<MdEngine> makeCudaDomainEngine(const EngineConfig& config, const Decomposition& decomposition,
                                               const mpi::Comm& comm, int gpu) {
  const DomainDeviceConfig dc = domainDeviceConfig(config, decomposition, gpu);
  switch (config.precision) {
    case Precision::Single: return makeDomainEngine<float>(config, decomposition, comm, makeDomainMdDevice<float>(dc));
    case Precision::Mixed:
    case Precision::Double:
      return makeDomainEngine<double>(config, decomposition, comm, makeDomainMdDevice<double>(dc));
  }
  throw std::logic_error("unknown precision");
}

}  // namespace hopsim::md
