#!/usr/bin/env bash
# Lean device session: build without the host-only cell-update test (slow to compile, runs on any CPU), then the
# CUDA LBM tests, compute-sanitizer and the LBM benchmarks; results packed into $OUT/gpu.tgz.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/cuda/bin:$PATH
F=${OUT:?}
R=/tmp/gpu-out
rm -rf "$R" && mkdir -p "$R"
rm -f tests/gpu/lbm/test_lbm_cell_update_host.cpp
t0=$SECONDS
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DHOPSIM_WITH_CUDA=ON -DHOPSIM_WITH_VTK=OFF \
  -DHOPSIM_WITH_MPI=OFF -DCMAKE_CUDA_ARCHITECTURES="80;90" > "$R/build.log" 2>&1 &&
  timeout 260 cmake --build build -j16 >> "$R/build.log" 2>&1
echo "build: exit $? in $((SECONDS - t0)) s" | tee "$R/status.txt"
T=build/tests/hopsim_tests
run() { local name=$1 limit=$2; shift 2; local s=$SECONDS; timeout "$limit" "$@" > "$R/$name.log" 2>&1;
        echo "$name: exit $? in $((SECONDS - s)) s" | tee -a "$R/status.txt"; }
run tests_lbm_gpu 100 "$T" "[gpu][lbm]"
for c in d3q19_256_single d3q19_256_half d3q27_256_single d2q9_4096_single; do
  run "bench_$c" 40 build/hopsim bench "bench/lbm_$c.yaml" --layouts two-lattice,in-place --repeats 5 \
    --json "$R/bench_$c.json"
done
run memcheck 50 compute-sanitizer --tool memcheck --error-exitcode 1 "$T" "[sanitize]"
run racecheck 50 compute-sanitizer --tool racecheck --error-exitcode 1 "$T" "[sanitize]"
tar czf "$F/gpu.tgz" -C /tmp gpu-out
grep -E "test cases|assertions|FAILED" "$R/tests_lbm_gpu.log" | tail -4
grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$R/memcheck.log" "$R/racecheck.log"
python3 - "$R" <<'PY'
import glob, json, os, sys
for p in sorted(glob.glob(os.path.join(sys.argv[1], "bench_*.json"))):
    j = json.load(open(p))
    for r in j.get("runs", []):
        if "error" in r: print(os.path.basename(p), r.get("layout_requested"), "ERROR", r["error"][:100]); continue
        print("%-28s %-12s %-8s %9.0f MLUPS  %6.1f B/cell  %7.0f GB/s  %.3f of copy %s" % (os.path.basename(p), r["layout"], r["precision"], r["mlups"]["median"], r["bytes_per_cell_step"], r["effective_bandwidth_gbs"], r["fraction_of_copy_bandwidth"] or 0, (j.get("copy_bandwidth") or {}).get("median_gbs")))
PY
