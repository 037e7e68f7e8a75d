// The atoms one rank holds in a decomposed MD run: those it owns, then ghost copies of its neighbours' atoms.
#pragma once

#include <cstddef>
#include <vector>

namespace hopsim::md {

template <class S>
struct LocalAtoms {
  std::vector<S> x, y, z;     // owned atoms [0, owned), then ghosts [owned, total())
  std::vector<S> vx, vy, vz;  // owned atoms only: ghosts carry positions, which is all a pair force needs
  std::vector<long long> id;  // owned atoms only
  std::size_t owned = 0;

  std::size_t total() const { return x.size(); }
  std::vector<S>& position(int axis) { return axis == 0 ? x : axis == 1 ? y : z; }
  const std::vector<S>& position(int axis) const { return axis == 0 ? x : axis == 1 ? y : z; }
  void dropGhosts() { x.resize(owned), y.resize(owned), z.resize(owned); }
  void clear() {
    owned = 0;
    for (auto* v : {&x, &y, &z, &vx, &vy, &vz}) v->clear();
    id.clear();
  }
  void pushOwned(S px, S py, S pz, S ux, S uy, S uz, long long i) {
    // Owned atoms sit before the ghosts; callers add owned atoms only while there are no ghosts.
    x.push_back(px), y.push_back(py), z.push_back(pz);
    vx.push_back(ux), vy.push_back(uy), vz.push_back(uz);
    id.push_back(i);
    ++owned;
  }
};

}  // namespace hopsim::md
