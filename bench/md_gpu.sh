#!/usr/bin/env bash
# MD benchmark on a GPU machine: the LAMMPS LJ benchmark (fcc 0.8442, T 1.44, cutoff 2.5, skin 0.3, NVE) scaled to
# 32,000 / 1,024,000 / 16,384,000 atoms in mixed precision, through `hopsim bench` (md::bench), printed as a table.
# Usage: bench/md_gpu.sh [path/to/hopsim] [steps] [repeats]   (JSON results kept in bench/results/)
set -euo pipefail
cd "$(dirname "$0")/.."
HOPSIM=${1:-build/hopsim}
STEPS=${2:-1000}
REPEATS=${3:-5}
OUT=bench/results
mkdir -p "$OUT"
stamp=$(date -u +%Y%m%dT%H%M%SZ)

for cells in 20 64 160; do
  json="$OUT/md_lj_${cells}cubed_mixed_${stamp}.json"
  steps=$STEPS
  [ "$cells" -ge 160 ] && steps=$(( STEPS < 200 ? STEPS : 200 ))   # 16.4M atoms: fewer steps per repeat
  "$HOPSIM" bench inputs/md/lj_liquid.yaml \
    --set "system.lattice.cells=[$cells,$cells,$cells]" --set precision=mixed --set device.backend=cuda \
    --steps "$steps" --repeats "$REPEATS" > "$json"
  echo "$json"
done > "$OUT/md_latest_${stamp}.list"

python3 - "$OUT/md_latest_${stamp}.list" <<'PY'
import json, sys
anchors = {32000: "HOOMD-blue 5 A100 (64k atoms): ~4,400 steps/s",
           1024000: "LAMMPS-KOKKOS H100: 1.143 G atom-steps/s",
           16384000: "LAMMPS-KOKKOS H100: 1.333 G atom-steps/s"}
cols = ("atoms", "G atom-steps/s", "min-max", "steps/s", "ms/step", "neigh", "force", "integ", "other")
print("%10s %15s %15s %9s %8s %7s %7s %7s %7s  device | anchor" % cols)
for path in open(sys.argv[1]).read().split():
    doc = json.load(open(path))  # a bench document (docs/bench-schema.json): one run
    j = doc["runs"][0]
    j["device"] = (doc["provenance"]["gpu"] or {}).get("name", "cpu")
    r, ms = j["atom_steps_per_second"], j["ms_per_step"]
    print("%10d %15.3f %7.3f-%-7.3f %9.0f %8.3f %7.3f %7.3f %7.3f %7.3f  %s | %s" % (
        j["atoms"], r["median"] / 1e9, r["min"] / 1e9, r["max"] / 1e9, j["steps_per_second_median"], ms["total"],
        ms["neighbor"], ms["force"], ms["integrate"], ms["other"], j["device"], anchors.get(j["atoms"], "")))
PY
