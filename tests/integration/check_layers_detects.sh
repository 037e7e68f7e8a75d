#!/usr/bin/env bash
# The layering check must fail on a tree that breaks each of its rules, naming the file and line.
set -uo pipefail
check=$1
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree"/{core,kernels,io,solvers}
printf '#include "solvers/lbm/LbmRun.h"\n' > "$tree/core/Up.h"
printf '#include <vector>\n#include "io/CaseReader.h"\n' > "$tree/kernels/Peer.cuh"
printf 'const char* v = std::getenv("X");\n' > "$tree/kernels/Env.cu"
printf '#include <cmath>\n#include "core/Log.h"\n' > "$tree/kernels/Logs.cpp"
printf '#include "kernels/lbm/Lattice.h"\n#include "core/Mpi.h"\n' > "$tree/solvers/Fine.cpp"
out=$("$check" "$tree")
rc=$?
echo "$out"
fail=0
[ "$rc" -eq 1 ] || { echo "expected exit 1, got $rc"; fail=1; }
for want in "core/Up.h:1: core/ includes solvers/" "kernels/Peer.cuh:2: kernels/ includes io/" \
            "kernels/Env.cu:1: kernels/ reads the environment" "kernels/Logs.cpp:2: kernels/ logs"; do
  grep -qF "$want" <<<"$out" || { echo "missing: $want"; fail=1; }
done
grep -q "solvers/Fine.cpp" <<<"$out" && { echo "a downward include was reported"; fail=1; }
exit $fail
