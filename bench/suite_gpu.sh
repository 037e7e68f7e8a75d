#!/usr/bin/env bash
# The standard bench suite on a GPU machine, the reference results users compare against: runs
# `hopsim bench --suite standard` into $OUT, then prints the file against itself through `hopsim compare` (the
# table a user sees) and its projections onto the GPUs hopsim knows by datasheet. A few minutes on an H200 (the
# large 1024 x 1024 x 512 box dominates). The JSON file belongs in docs/bench/ once measured.
# Usage: OUT=/path/to/results bench/suite_gpu.sh [path/to/hopsim]   (PREBUILT=prebuilt.tgz: bench/prebuild.sh's)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-bench/results}
mkdir -p "$OUT"
HOPSIM=${1:-build/hopsim}
if [ -n "${PREBUILT:-}" ]; then
  tar xzf "$PREBUILT"
  export LD_LIBRARY_PATH="$PWD/prebuilt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  HOPSIM=prebuilt/hopsim
fi
file=$("$HOPSIM" bench --suite standard --out "$OUT" 2> "$OUT/suite.log")
echo "suite: $file (progress in $OUT/suite.log)"
cp "$file" "$OUT/suite-again.json"
"$HOPSIM" compare "$file" "$OUT/suite-again.json" | tee "$OUT/suite-table.txt"
for gpu in a100-40gb a100-80gb h100-pcie h100-sxm; do
  "$HOPSIM" compare "$file" --project "$gpu" > "$OUT/projection-$gpu.txt"
done
echo "projections: $OUT/projection-*.txt"
