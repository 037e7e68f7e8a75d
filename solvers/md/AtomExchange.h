// Atom traffic between neighbouring ranks of a decomposed MD run: migration of owned atoms to the rank whose
// sub-box now holds them, ghost copies of atoms near the faces, and refreshing ghost positions between rebuilds.
//
// Both go axis by axis (x, then y, then z), each axis a swap with the lower and one with the upper neighbour. A
// later axis forwards the ghosts an earlier one brought in, so edge and corner neighbours are reached through face
// neighbours only: 6 messages instead of 26. Ghost positions carry the periodic image (+-L where a swap crosses
// the box end), so the force loop needs no minimum image.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "core/Decomposition.h"
#include "core/Mpi.h"
#include "core/md/LocalAtoms.h"

namespace hopsim::md {

template <class S>
class AtomExchange {
 public:
  // One message of the exchange, in the order borders() and forward() send them (x-, x+, y-, y+, z-, z+).
  struct Swap {
    int axis = 0, dir = 0;      // towards the lower (-1) or upper (+1) neighbour along axis
    int sendTo = 0, recvFrom = 0;
    S shift = 0;                // added to the coordinate along axis of what is sent
    int tag = 0;
    std::vector<std::int32_t> indices;  // local atoms sent at the last borders()
    std::size_t first = 0, count = 0;   // where the ghosts received then sit
  };
  // forward()'s MPI tags are kForwardTag + Swap::tag; an engine that refreshes ghosts itself (on a GPU, from the
  // swaps below) uses the same.
  static constexpr int kForwardTag = 300;

  // range: how far from a face an atom must be seen by the neighbour (cutoff + skin).
  AtomExchange(const Decomposition& d, const mpi::Comm& comm, double range) : d_(d), comm_(comm), range_(range) {
    for (int axis = 0; axis < 3; ++axis)
      for (int dir : {-1, +1}) {
        Swap s;
        s.axis = axis;
        s.dir = dir;
        int off[3] = {0, 0, 0};
        off[axis] = dir;
        s.sendTo = d.neighbor(off[0], off[1], off[2]);
        s.recvFrom = d.neighbor(-off[0], -off[1], -off[2]);
        // Crossing the box end: the copy is the image one box length away.
        const bool wraps = dir < 0 ? d.coords()[axis] == 0 : d.coords()[axis] == d.dims()[axis] - 1;
        s.shift = wraps ? S(-dir * d.boxLength()[axis]) : S(0);
        s.tag = 2 * axis + (dir > 0);
        swaps_.push_back(s);
      }
  }

  // Hands owned atoms outside this sub-box to the face neighbour towards them (positions already wrapped into the
  // box). Drops ghosts first. Returns how many atoms this rank sent away.
  long long migrate(LocalAtoms<S>& a) {
    a.dropGhosts();
    long long sent = 0;
    for (const Swap& s : swaps_) {
      const int axis = s.axis, p = d_.dims()[axis], me = d_.coords()[axis];
      if (p == 1) continue;  // one rank along this axis owns all of it
      const int target = ((me + s.dir) % p + p) % p;
      send_.clear();
      std::size_t keep = 0;
      const auto& pos = a.position(axis);
      for (std::size_t i = 0; i < a.owned; ++i) {
        const bool leaves = s.sendTo != mpi::kNoRank && d_.ownerCoord(axis, double(pos[i])) == target &&
                            d_.ownerCoord(axis, double(pos[i])) != me;
        if (leaves) {
          for (double v : {double(a.x[i]), double(a.y[i]), double(a.z[i]), double(a.vx[i]), double(a.vy[i]),
                           double(a.vz[i]), double(a.id[i])})
            send_.push_back(v);
          ++sent;
        } else {
          moveOwned(a, i, keep++);
        }
      }
      resizeOwned(a, keep);
      comm_.sendrecv(send_, s.sendTo, recv_, s.recvFrom, 100 + s.tag);
      for (std::size_t k = 0; k + 7 <= recv_.size(); k += 7)
        a.pushOwned(S(recv_[k]), S(recv_[k + 1]), S(recv_[k + 2]), S(recv_[k + 3]), S(recv_[k + 4]), S(recv_[k + 5]),
                    static_cast<long long>(recv_[k + 6]));
    }
    return sent;
  }

  // Owned atoms that are not in this sub-box (moved further than one neighbour between rebuilds).
  long long misplaced(const LocalAtoms<S>& a) const {
    long long n = 0;
    for (std::size_t i = 0; i < a.owned; ++i)
      for (int axis = 0; axis < 3; ++axis)
        if (d_.ownerCoord(axis, double(a.position(axis)[i])) != d_.coords()[axis]) {
          ++n;
          break;
        }
    return n;
  }

  // Replaces the ghosts: every atom (owned or a ghost from an earlier axis) within range of a face goes to the
  // neighbour across it. Remembers who went where, for forward().
  void borders(LocalAtoms<S>& a) {
    a.dropGhosts();
    for (std::size_t k = 0; k < swaps_.size(); k += 2) {
      const int axis = swaps_[k].axis;
      const std::size_t n = a.total();  // this axis forwards what earlier axes brought, not its own arrivals
      const double lo = d_.subLo(axis) + range_, hi = d_.subHi(axis) - range_;
      for (std::size_t q = k; q < k + 2; ++q) {
        Swap& s = swaps_[q];
        s.indices.clear();
        if (s.sendTo == mpi::kNoRank) continue;
        const auto& pos = a.position(axis);
        for (std::size_t i = 0; i < n; ++i)
          if (s.dir < 0 ? double(pos[i]) < lo : double(pos[i]) >= hi) s.indices.push_back(static_cast<std::int32_t>(i));
      }
      for (std::size_t q = k; q < k + 2; ++q) {
        Swap& s = swaps_[q];
        pack(a, s);
        comm_.sendrecv(send_, s.sendTo, recv_, s.recvFrom, 200 + s.tag);
        s.first = a.total();
        s.count = recv_.size() / 3;
        for (std::size_t r = 0; r < s.count; ++r)
          a.x.push_back(S(recv_[3 * r])), a.y.push_back(S(recv_[3 * r + 1])), a.z.push_back(S(recv_[3 * r + 2]));
      }
    }
  }

  // Sends the current positions of the atoms borders() chose, into the same ghost slots (the ghost set is kept
  // until the next rebuild, when atoms have moved less than skin/2).
  void forward(LocalAtoms<S>& a) {
    for (Swap& s : swaps_) {
      pack(a, s);
      comm_.sendrecv(send_, s.sendTo, recv_, s.recvFrom, kForwardTag + s.tag);
      if (recv_.size() != 3 * s.count) throw std::logic_error("ghost exchange: a neighbour sent a different ghost count");
      for (std::size_t r = 0; r < s.count; ++r) {
        a.x[s.first + r] = S(recv_[3 * r]), a.y[s.first + r] = S(recv_[3 * r + 1]);
        a.z[s.first + r] = S(recv_[3 * r + 2]);
      }
    }
  }

  long long ghostCount(const LocalAtoms<S>& a) const { return static_cast<long long>(a.total() - a.owned); }

  // The six swaps as the last borders() left them: what forward() would send and where the answers go.
  const std::vector<Swap>& swaps() const { return swaps_; }

 private:
  void pack(const LocalAtoms<S>& a, const Swap& s) {
    send_.resize(3 * s.indices.size());
    const S* p[3] = {a.x.data(), a.y.data(), a.z.data()};
    for (std::size_t k = 0; k < s.indices.size(); ++k) {
      const std::int32_t i = s.indices[k];
      for (int c = 0; c < 3; ++c) send_[3 * k + c] = double(c == s.axis ? S(p[c][i] + s.shift) : p[c][i]);
    }
  }

  static void moveOwned(LocalAtoms<S>& a, std::size_t from, std::size_t to) {
    if (from == to) return;
    a.x[to] = a.x[from], a.y[to] = a.y[from], a.z[to] = a.z[from];
    a.vx[to] = a.vx[from], a.vy[to] = a.vy[from], a.vz[to] = a.vz[from];
    a.id[to] = a.id[from];
  }
  static void resizeOwned(LocalAtoms<S>& a, std::size_t n) {
    for (auto* v : {&a.x, &a.y, &a.z, &a.vx, &a.vy, &a.vz}) v->resize(n);
    a.id.resize(n);
    a.owned = n;
  }

  Decomposition d_;
  mpi::Comm comm_;
  double range_;
  std::vector<Swap> swaps_;
  std::vector<double> send_, recv_;
};

}  // namespace hopsim::md
