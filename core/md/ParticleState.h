// The particles of an MD system as the host sees them: box, positions, velocities, ids (structure of arrays).
#pragma once

#include <array>
#include <cstddef>
#include <vector>

namespace hopsim::md {

// Orthogonal periodic box [lo, lo + length) on each axis.
struct Box {
  std::array<double, 3> lo{0, 0, 0};
  std::array<double, 3> length{0, 0, 0};
  double volume() const { return length[0] * length[1] * length[2]; }
};

struct ParticleState {
  Box box;
  double mass = 1.0;
  std::vector<double> x, y, z;     // positions relative to box.lo, kept in [0, length)
  std::vector<double> vx, vy, vz;
  std::vector<long long> id;       // 1-based, as in LAMMPS; keys the thermostat noise and output ordering
  long long step = 0;              // step counter of the first frame (non-zero after a restart)
  std::size_t size() const { return x.size(); }
  void resize(std::size_t n) {
    x.resize(n), y.resize(n), z.resize(n), vx.resize(n), vy.resize(n), vz.resize(n), id.resize(n);
  }
};

}  // namespace hopsim::md
