// Atom ids that number the atoms consecutively.
#include "core/md/AtomIds.h"

#include <algorithm>
#include <vector>

namespace hopsim::md {

std::optional<long long> denseIdBase(std::span<const long long> id) {
  if (id.empty()) return std::nullopt;
  const auto [lo, hi] = std::minmax_element(id.begin(), id.end());
  // size ids in a range of size: a permutation unless one repeats.
  if (static_cast<unsigned long long>(*hi - *lo) + 1 != id.size()) return std::nullopt;
  std::vector<unsigned char> seen(id.size(), 0);
  for (const long long v : id) {
    const auto at = static_cast<std::size_t>(v - *lo);
    if (seen[at]) return std::nullopt;
    seen[at] = 1;
  }
  return *lo;
}

}  // namespace hopsim::md
