#!/usr/bin/env bash
# Installs dependencies, builds, and runs the whole test suite (GPU tests report "skipped" without a GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh -DHOPSIM_BUILD_TESTS=ON   # a quickstart build in build/ may have turned them off
cd build
ctest --output-on-failure --timeout 1500
