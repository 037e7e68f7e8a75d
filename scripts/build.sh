#!/usr/bin/env bash
# Configures and builds hopsim in build/: the full build, with the tests, and CUDA for sm_80 and sm_90 when nvcc is
# found on the PATH or in /usr/local/cuda. These settings are passed every time, so that they replace what an earlier
# configure left in build/ (scripts/quickstart.sh builds there for this machine only); options given to this script
# come after them and win.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH=/usr/local/cuda/bin:$PATH; fi
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
full=(-DHOPSIM_BUILD_TESTS=ON)
if command -v nvcc >/dev/null; then full+=(-DHOPSIM_WITH_CUDA=ON "-DCMAKE_CUDA_ARCHITECTURES=80;90"); fi
cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "${full[@]}" "$@"
cmake --build build -j"$(nproc)"
