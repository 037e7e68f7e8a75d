// core/md/AtomIds: which id sets number the atoms consecutively, so that frames go to id order without a sort.
#include <vector>

#include "CatchCompat.h"
#include "core/md/AtomIds.h"

using hopsim::md::denseIdBase;

TEST_CASE("atom ids: a permutation of a range gives its first id", "[md][unit]") {
  CHECK(denseIdBase(std::vector<long long>{5, 3, 4, 1, 2}) == 1);
  CHECK(denseIdBase(std::vector<long long>{7}) == 7);
  // Not only 1-based numberings: any range, negative ids included.
  CHECK(denseIdBase(std::vector<long long>{0, -1, -2}) == -2);
}

TEST_CASE("atom ids: gaps, repeats and no ids are not a range", "[md][unit]") {
  CHECK_FALSE(denseIdBase(std::vector<long long>{40, 10, 30}).has_value());
  CHECK_FALSE(denseIdBase(std::vector<long long>{3, 1, 1}).has_value());
  CHECK_FALSE(denseIdBase(std::vector<long long>{}).has_value());
}
