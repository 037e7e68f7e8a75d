// What both decomposed MD engines (DomainMdEngine.cpp on the CPU, CudaDomainMdEngine.cpp for GPUs) do with a rank's
// atoms on the host: take the owned ones from the initial state, wrap and migrate them at a rebuild, reorder them,
// gather every rank's atoms and forces on rank 0, and sum the ranks' thermo. One implementation, so the two engines'
// trajectories cannot drift apart.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <fmt/format.h>
#include <stdexcept>
#include <vector>

#include "kernels/md/MdEngine.h"
#include "kernels/md/PeriodicBox.h"
#include "core/Decomposition.h"
#include "core/Mpi.h"
#include "solvers/md/AtomExchange.h"
#include "core/md/LocalAtoms.h"
#include "core/md/ParticleState.h"

namespace hopsim::md {

// Where a rank's owned atoms and ghosts lie: its sub-box widened by `range` (the interaction range) on every side.
struct GhostRegion {
  std::array<double, 3> lo{}, hi{};
};
inline GhostRegion ghostRegion(const Decomposition& d, double range) {
  GhostRegion r;
  for (int a = 0; a < 3; ++a) r.lo[a] = d.subLo(a) - range, r.hi[a] = d.subHi(a) + range;
  return r;
}

// The atoms of `s` whose wrapped positions lie in this rank's sub-box (every rank holds the whole initial state: it
// built it from the case).
template <class S>
void takeOwned(const ParticleState& s, const Decomposition& d, LocalAtoms<S>& atoms) {
  atoms.clear();
  const S L[3] = {S(s.box.length[0]), S(s.box.length[1]), S(s.box.length[2])};
  for (std::size_t i = 0; i < s.size(); ++i) {
    const S r[3] = {wrapOnce(S(s.x[i]), L[0]), wrapOnce(S(s.y[i]), L[1]), wrapOnce(S(s.z[i]), L[2])};
    bool mine = true;
    for (int a = 0; a < 3; ++a) mine = mine && d.ownerCoord(a, double(r[a])) == d.coords()[a];
    if (mine) atoms.pushOwned(r[0], r[1], r[2], S(s.vx[i]), S(s.vy[i]), S(s.vz[i]), s.id[i]);
  }
}

// The end of a migration, on every rank: throws on every rank when an atom moved further than one neighbour (this
// rank holds `misplaced` outside its sub-box) or an atom was lost (the ranks' `owned` do not add up). Collective.
inline void checkMigration(long long misplaced, std::size_t owned, const mpi::Comm& comm, std::size_t atomsInAll) {
  std::vector<double> check{double(misplaced), double(owned)};
  comm.allreduceSum(check);
  if (check[0] > 0)
    throw std::runtime_error(fmt::format(
        "{} atoms moved further than the neighbouring rank between neighbour-list rebuilds (a time step too "
        "large for this system, or overlapping atoms)", static_cast<long long>(check[0])));
  if (static_cast<std::size_t>(check[1]) != atomsInAll)
    throw std::logic_error(fmt::format("atom migration lost atoms: {} owned in all, {} in the system",
                                       static_cast<long long>(check[1]), atomsInAll));
}

// The start of a rebuild: owned atoms wrapped into the box (they are not wrapped between rebuilds, so that they
// stay next to the ghosts their neighbours hold) and handed to the ranks that own them now. Throws on every rank
// when an atom moved further than one neighbour or an atom was lost. Returns how many atoms this rank sent away.
template <class S>
long long wrapAndMigrate(LocalAtoms<S>& atoms, AtomExchange<S>& exchange, const mpi::Comm& comm,
                         const std::array<double, 3>& box, std::size_t atomsInAll) {
  const S L[3] = {S(box[0]), S(box[1]), S(box[2])};
  for (std::size_t i = 0; i < atoms.owned; ++i) {
    atoms.x[i] = wrapOnce(atoms.x[i], L[0]);
    atoms.y[i] = wrapOnce(atoms.y[i], L[1]);
    atoms.z[i] = wrapOnce(atoms.z[i], L[2]);
  }
  const long long sent = exchange.migrate(atoms);
  checkMigration(exchange.misplaced(atoms), atoms.owned, comm, atomsInAll);
  return sent;
}

// Owned atoms (positions, velocities, ids) in the order `order` gives (slot k takes atom order[k]). Gathers through
// the scratch buffers and swaps: arrays and scratch trade allocations, which keep their capacity, so that after the
// first rebuilds neither this nor the ghosts borders() appends to x, y and z allocate (fresh pages cost a fault
// each, about as much as the copy).
template <class S>
void reorderOwned(LocalAtoms<S>& atoms, const std::vector<std::int32_t>& order, std::vector<S>& scratch,
                  std::vector<long long>& scratchId) {
  const auto permute = [&order](auto& a, auto& tmp) {
    tmp.resize(order.size());
    for (std::size_t k = 0; k < order.size(); ++k) tmp[k] = a[order[k]];
    a.swap(tmp);
  };
  for (auto* v : {&atoms.x, &atoms.y, &atoms.z, &atoms.vx, &atoms.vy, &atoms.vz}) permute(*v, scratch);
  permute(atoms.id, scratchId);
}

// Every rank's owned atoms on rank 0 (positions wrapped as the single-rank engines keep them; ids say who is who),
// an empty state elsewhere. Collective.
template <class S>
void gatherAtoms(const LocalAtoms<S>& atoms, const mpi::Comm& comm, double mass, const std::array<double, 3>& box,
                 ParticleState& s) {
  const std::size_t n = atoms.owned;
  std::vector<double> local(7 * n);
  for (std::size_t i = 0; i < n; ++i) {
    local[7 * i + 0] = double(wrapOnce(atoms.x[i], S(box[0])));
    local[7 * i + 1] = double(wrapOnce(atoms.y[i], S(box[1])));
    local[7 * i + 2] = double(wrapOnce(atoms.z[i], S(box[2])));
    local[7 * i + 3] = double(atoms.vx[i]), local[7 * i + 4] = double(atoms.vy[i]);
    local[7 * i + 5] = double(atoms.vz[i]), local[7 * i + 6] = double(atoms.id[i]);
  }
  const std::vector<double> all = comm.gather(local);
  const std::size_t m = all.size() / 7;
  s.resize(m);
  s.mass = mass;
  s.box.length = box;
  for (std::size_t i = 0; i < m; ++i) {
    s.x[i] = all[7 * i], s.y[i] = all[7 * i + 1], s.z[i] = all[7 * i + 2];
    s.vx[i] = all[7 * i + 3], s.vy[i] = all[7 * i + 4], s.vz[i] = all[7 * i + 5];
    s.id[i] = static_cast<long long>(all[7 * i + 6]);
  }
}

// Every rank's forces on rank 0 from this rank's x y z per owned atom, in gatherAtoms()'s order; empty elsewhere.
// Collective.
inline void gatherForces(const std::vector<double>& local, const mpi::Comm& comm, std::vector<double>& fx,
                         std::vector<double>& fy, std::vector<double>& fz) {
  const std::vector<double> all = comm.gather(local);
  const std::size_t m = all.size() / 3;
  fx.resize(m), fy.resize(m), fz.resize(m);
  for (std::size_t i = 0; i < m; ++i) fx[i] = all[3 * i], fy[i] = all[3 * i + 1], fz[i] = all[3 * i + 2];
}

// The run's thermo sums from each rank's, on every rank; not finite when any rank's part is not. Collective.
inline RawThermo sumOverRanks(const RawThermo& local, const mpi::Comm& comm) {
  std::vector<double> sums{local.potential, local.virial, local.twoKinetic, local.finite ? 0.0 : 1.0};
  comm.allreduceSum(sums);
  RawThermo t;
  t.potential = sums[0];
  t.virial = sums[1];
  t.twoKinetic = sums[2];
  t.finite = sums[3] == 0 && std::isfinite(sums[0]) && std::isfinite(sums[1]) && std::isfinite(sums[2]);
  return t;
}

}  // namespace hopsim::md
