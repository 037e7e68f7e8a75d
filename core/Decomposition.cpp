// Process grid geometry and the choice of grid.
#include "core/Decomposition.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace hopsim {

Decomposition::Decomposition(int rank, const Int3& dims, const Real3& lo, const Real3& length, const Bool3& periodic)
    : dims_(dims), lo_(lo), length_(length), periodic_(periodic), rank_(rank) {
  for (int d = 0; d < 3; ++d)
    if (dims_[d] < 1) throw std::invalid_argument("a process grid needs at least one rank along each axis");
  if (rank < 0 || rank >= size()) throw std::invalid_argument(fmt::format("rank {} is outside a grid of {}", rank, size()));
  coords_ = coordsOf(rank);
}

Decomposition::Decomposition(const mpi::Comm& comm, const Real3& lo, const Real3& length, const Bool3& periodic,
                             const Int3& requested, double minWidth)
    : lo_(lo), length_(length), periodic_(periodic), rank_(comm.rank()) {
  const int n = comm.size();
  int fixed = 1;
  for (int d = 0; d < 3; ++d) fixed *= std::max(requested[d], 1);
  const bool complete = requested[0] > 0 && requested[1] > 0 && requested[2] > 0;
  if ((complete && fixed != n) || n % fixed != 0)
    throw std::invalid_argument(fmt::format("device.ranks [{}, {}, {}] does not fit the {} MPI rank{} this run has",
                                            requested[0], requested[1], requested[2], n, n == 1 ? "" : "s"));
  int dims[3];
  for (int d = 0; d < 3; ++d) {
    dims[d] = requested[d];
    // An axis too short to hold two sub-boxes of minWidth is not split.
    if (dims[d] == 0 && length[d] < 2.0 * minWidth) dims[d] = 1;
  }
  comm.createDims(dims);
  dims_ = {dims[0], dims[1], dims[2]};
  if (size() != n) throw std::invalid_argument(fmt::format("cannot arrange {} MPI ranks over this box", n));
  for (int d = 0; d < 3; ++d)
    if (dims_[d] > 1 && length[d] / dims_[d] < minWidth)
      throw std::invalid_argument(fmt::format(
          "{} ranks along {} leave sub-boxes {:.6g} wide, less than the {:.6g} this solver needs (MD: cutoff + skin; "
          "LBM: one cell); use fewer ranks, or set device.ranks to split other axes",
          dims_[d], "xyz"[d], length[d] / dims_[d], minWidth));
  coords_ = coordsOf(rank_);
  nodeRank_ = comm.nodeRank();
}

int Decomposition::rankAt(Int3 c) const {
  for (int d = 0; d < 3; ++d) {
    if (c[d] >= 0 && c[d] < dims_[d]) continue;
    if (!periodic_[d]) return mpi::kNoRank;
    c[d] = ((c[d] % dims_[d]) + dims_[d]) % dims_[d];
  }
  return c[0] + dims_[0] * (c[1] + dims_[1] * c[2]);
}

Decomposition::Int3 Decomposition::coordsOf(int rank) const {
  return {rank % dims_[0], (rank / dims_[0]) % dims_[1], rank / (dims_[0] * dims_[1])};
}

std::array<int, 26> Decomposition::neighbors() const {
  std::array<int, 26> out{};
  int k = 0;
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx)
        if (dx || dy || dz) out[k++] = neighbor(dx, dy, dz);
  return out;
}

double Decomposition::boundary(int axis, int c) const {
  // The last face is the box end itself, not a product that might round below it.
  if (c >= dims_[axis]) return lo_[axis] + length_[axis];
  return lo_[axis] + length_[axis] * static_cast<double>(c) / static_cast<double>(dims_[axis]);
}

int Decomposition::ownerCoord(int axis, double x) const {
  const int p = dims_[axis];
  if (p == 1) return 0;
  const double t = (x - lo_[axis]) / length_[axis] * static_cast<double>(p);
  if (!(t >= 0)) return 0;  // also NaN: a blown-up atom stays where it is and the run stops on its energy
  int c = std::min(p - 1, static_cast<int>(std::min(t, static_cast<double>(p))));
  // Agree with the faces from boundary(): ownership is what the sub-boxes say, whatever the rounding of t.
  while (c > 0 && x < boundary(axis, c)) --c;
  while (c + 1 < p && x >= boundary(axis, c + 1)) ++c;
  return c;
}

std::pair<long long, long long> Decomposition::splitRange(long long n, int parts, int index) {
  const long long base = n / parts, extra = n % parts;
  const long long first = index * base + std::min<long long>(index, extra);
  return {first, first + base + (index < extra ? 1 : 0)};
}

}  // namespace hopsim
