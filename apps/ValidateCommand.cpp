// `hopsim validate`: runs validation cases and prints one row per checked quantity.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>

#include "apps/Commands.h"
#include "core/DataDir.h"
#include "validation/Validation.h"

namespace hopsim::app {
namespace {

bool selected(const validation::Case& c, const std::vector<std::string>& names, bool all) {
  if (names.empty()) return all || c.quick;
  for (const auto& n : names)
    if (c.name == n || c.name.rfind(n, 0) == 0) return true;
  return false;
}

}  // namespace

int validateCommand(const std::vector<std::string>& names, const RunOptions& options, bool all, bool list) {
  const auto cases = validation::allCases();
  if (list) {
    for (const auto& c : cases)
      std::printf("%-28s %-5s %s\n", c.name.c_str(), c.quick ? "quick" : "slow", c.description.c_str());
    return 0;
  }
  validation::Context ctx;
  ctx.backend = options.backend.value_or(Backend::Cpu);
  ctx.kernels = options.kernels.value_or(KernelVariant::Auto);
  ctx.dataDir = dataDir().string();
  for (const auto& n : names) {
    bool found = false;
    for (const auto& c : cases) found = found || c.name == n || c.name.rfind(n, 0) == 0;
    if (!found) {
      std::fprintf(stderr, "error: no validation case named '%s' (hopsim validate --list shows them)\n", n.c_str());
      return kExitBadInput;
    }
  }
  std::printf("%-24s %-44s %12s %12s  %s\n", "case", "quantity", "measured", "tolerance", "result");
  int failed = 0, passed = 0, skipped = 0;
  for (const auto& c : cases) {
    if (!selected(c, names, all)) continue;
    const auto start = std::chrono::steady_clock::now();
    std::vector<validation::Row> rows;
    try {
      rows = c.run(ctx);
    } catch (const std::exception& e) {
      rows.push_back(validation::makeRow(c.name, std::string("error: ") + e.what(), NAN, 0));
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (const auto& r : rows) {
      if (r.skipped)
        std::printf("%-24s %-44s %12s %12s  %s\n", r.caseName.c_str(), r.quantity.c_str(), "-", "-", "SKIP");
      else
        std::printf("%-24s %-44s %12.4g %12.4g  %s\n", r.caseName.c_str(), r.quantity.c_str(), r.measured,
                    r.tolerance, r.pass ? "PASS" : "FAIL");
      if (!r.detail.empty()) std::printf("%-24s   %s\n", "", r.detail.c_str());
      (r.skipped ? skipped : r.pass ? passed : failed) += 1;
    }
    std::printf("%-24s   (%.1f s on %s)\n", "", secs, toString(ctx.backend));
    std::fflush(stdout);
  }
  std::printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  return failed == 0 ? 0 : kExitFailure;
}

}  // namespace hopsim::app
