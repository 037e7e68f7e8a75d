// Half the squared vorticity of a cell, |curl u|^2 / 2, from the velocities of its axis neighbours: the enstrophy
// observable, the same arithmetic on every backend.
#pragma once

#include "kernels/common/HostDevice.h"

namespace hopsim::lbm {

// Sets g[a][b] to d u_b / d x_a (b = 0..2) along axis `a`, from the cell's own velocity and those of its two
// neighbours along a (`minus`, `plus`; null where that neighbour is not a fluid cell or lies beyond a non-periodic
// face). Central differences where both are there (second order); where one is, the one-sided difference between it
// and the cell (first order, what is known next to a wall); neither leaves 0.
template <class T>
HOPSIM_HD void axisGradient(int a, const T self[3], const T* minus, const T* plus, double g[3][3]) {
HOPSIM_UNROLL
  for (int b = 0; b < 3; ++b) {
    if (minus && plus) g[a][b] = 0.5 * (double(plus[b]) - double(minus[b]));
    else if (plus) g[a][b] = double(plus[b]) - double(self[b]);
    else if (minus) g[a][b] = double(self[b]) - double(minus[b]);
    else g[a][b] = 0.0;
  }
}

// |curl u|^2 / 2 from the velocity gradient g[a][b] = d u_b / d x_a.
HOPSIM_HD double halfVorticitySquared(const double g[3][3]) {
  const double wx = g[1][2] - g[2][1], wy = g[2][0] - g[0][2], wz = g[0][1] - g[1][0];
  return 0.5 * (wx * wx + wy * wy + wz * wz);
}

}  // namespace hopsim::lbm
