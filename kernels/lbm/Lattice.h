// Velocity sets D2Q9, D3Q19 and D3Q27: directions, weights and opposites, usable on host and device.
//
// Directions come in opposite pairs (1,2), (3,4), ...: opposite(i) is i+1 for odd i and i-1 for even i, so
// bounce-back and the TRT split need no table. Tables are local constexpr arrays inside functions so that
// device code can use them; in unrolled loops the index is a constant and the lookup folds away.
#pragma once

#include "core/lbm/LbmTypes.h"
#include "kernels/common/HostDevice.h"

namespace hopsim::lbm {

HOPSIM_HD constexpr int opposite(int i) { return i == 0 ? 0 : ((i & 1) ? i + 1 : i - 1); }

struct D2Q9 {
  static constexpr int D = 2;
  static constexpr int Q = 9;
  static constexpr const char* name = "D2Q9";
  static constexpr LatticeKind kind = LatticeKind::D2Q9;
  HOPSIM_HD static constexpr int c(int i, int axis) {
    constexpr int t[9][3] = {{0, 0, 0},  {1, 0, 0},  {-1, 0, 0}, {0, 1, 0},  {0, -1, 0},
                             {1, 1, 0},  {-1, -1, 0}, {1, -1, 0}, {-1, 1, 0}};
    return t[i][axis];
  }
  template <class T>
  HOPSIM_HD static constexpr T w(int i) {
    return i == 0 ? T(4) / T(9) : (i < 5 ? T(1) / T(9) : T(1) / T(36));
  }
};

struct D3Q19 {
  static constexpr int D = 3;
  static constexpr int Q = 19;
  static constexpr const char* name = "D3Q19";
  static constexpr LatticeKind kind = LatticeKind::D3Q19;
  HOPSIM_HD static constexpr int c(int i, int axis) {
    constexpr int t[19][3] = {{0, 0, 0},  {1, 0, 0},   {-1, 0, 0}, {0, 1, 0},  {0, -1, 0}, {0, 0, 1},  {0, 0, -1},
                              {1, 1, 0},  {-1, -1, 0}, {1, 0, 1},  {-1, 0, -1}, {0, 1, 1}, {0, -1, -1}, {1, -1, 0},
                              {-1, 1, 0}, {1, 0, -1},  {-1, 0, 1}, {0, 1, -1}, {0, -1, 1}};
    return t[i][axis];
  }
  template <class T>
  HOPSIM_HD static constexpr T w(int i) {
    return i == 0 ? T(1) / T(3) : (i < 7 ? T(1) / T(18) : T(1) / T(36));
  }
};

struct D3Q27 {
  static constexpr int D = 3;
  static constexpr int Q = 27;
  static constexpr const char* name = "D3Q27";
  static constexpr LatticeKind kind = LatticeKind::D3Q27;
  HOPSIM_HD static constexpr int c(int i, int axis) {
    constexpr int t[27][3] = {{0, 0, 0},   {1, 0, 0},   {-1, 0, 0},  {0, 1, 0},   {0, -1, 0},  {0, 0, 1},
                              {0, 0, -1},  {1, 1, 0},   {-1, -1, 0}, {1, 0, 1},   {-1, 0, -1}, {0, 1, 1},
                              {0, -1, -1}, {1, -1, 0},  {-1, 1, 0},  {1, 0, -1},  {-1, 0, 1},  {0, 1, -1},
                              {0, -1, 1},  {1, 1, 1},   {-1, -1, -1}, {1, 1, -1}, {-1, -1, 1}, {1, -1, 1},
                              {-1, 1, -1}, {-1, 1, 1},  {1, -1, -1}};
    return t[i][axis];
  }
  template <class T>
  HOPSIM_HD static constexpr T w(int i) {
    return i == 0 ? T(8) / T(27) : (i < 7 ? T(2) / T(27) : (i < 19 ? T(1) / T(54) : T(1) / T(216)));
  }
};

}  // namespace hopsim::lbm
