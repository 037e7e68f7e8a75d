#!/usr/bin/env bash
# One GPU session for the CUDA LBM backend: build (sm_80 + sm_90), GPU tests, compute-sanitizer, benchmarks, a
# short ncu profile, all logs and JSON under $OUT, a summary table printed last. Budget: about 8 minutes.
# Usage (repository root, on the GPU machine): OUT=/some/dir bash bench/run_gpu.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
BUDGET=${BUDGET:-470}   # seconds; optional steps are skipped when less than their share is left
status="$OUT/status.txt"
: > "$status"

step() {  # step NAME TIMEOUT_S COMMAND...: runs with a timeout, logs to $OUT/NAME.log, records the exit code
  local name=$1 limit=$2; shift 2
  local left=$(( BUDGET - SECONDS ))
  if (( left < 15 )); then echo "$name: skipped (budget spent)" | tee -a "$status"; return 0; fi
  (( limit > left )) && limit=$left
  local t0=$SECONDS
  timeout --kill-after=10 "$limit" "$@" > "$OUT/$name.log" 2>&1
  local rc=$?
  echo "$name: exit $rc in $(( SECONDS - t0 )) s (limit $limit s)" | tee -a "$status"
  return 0
}

{
  date -u +%Y-%m-%dT%H:%M:%SZ
  git rev-parse HEAD 2>/dev/null || echo "commit: unknown (no .git in this copy)"
  nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem,driver_version --format=csv
  nvcc --version | tail -2; cmake --version | head -1; g++ --version | head -1
} > "$OUT/environment.txt" 2>&1
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1

# -Xptxas -v puts registers, stack frames and spills of every kernel (both architectures) into configure_build.log.
step configure_build 330 bash -c 'cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DHOPSIM_WITH_CUDA=ON \
  -DHOPSIM_WITH_VTK=OFF -DHOPSIM_WITH_MPI=OFF -DCMAKE_CUDA_ARCHITECTURES="80;90" -DCMAKE_CUDA_FLAGS="-Xptxas -v" \
  && cmake --build build -j16'
if [ ! -x build/hopsim ] || [ ! -x build/tests/hopsim_tests ]; then
  echo "build failed: see $OUT/configure_build.log"; tail -40 "$OUT/configure_build.log"; exit 1
fi
grep -A2 "Compiling entry function '.*streamCollideKernel" "$OUT/configure_build.log" | c++filt > "$OUT/ptxas_stream_collide.txt" 2>/dev/null

T=build/tests/hopsim_tests
step tests_lbm_gpu 120 "$T" "[gpu][lbm]" --durations yes

# Benchmarks: D3Q19 FP32 and FP16 storage (both layouts), D3Q27, D2Q9 4096^2, then D3Q19 384^3 if time allows.
for c in d3q19_256_single d3q19_256_half d3q27_256_single d2q9_4096_single d3q19_384_single; do
  step "bench_$c" 90 build/hopsim bench "bench/lbm_$c.yaml" --layouts two-lattice,in-place --repeats 5 \
    --json "$OUT/bench_$c.json"
done

step memcheck 100 compute-sanitizer --tool memcheck --error-exitcode 1 "$T" "[sanitize]"
step racecheck 100 compute-sanitizer --tool racecheck --error-exitcode 1 "$T" "[sanitize]"

if command -v ncu > /dev/null; then
  step ncu_d3q19 90 ncu --kernel-name regex:streamCollideKernel --launch-count 4 --metrics \
dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,\
sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers,\
gpu__time_duration.sum \
    build/hopsim bench bench/lbm_d3q19_256_single.yaml --layouts two-lattice,in-place --steps 64 --repeats 1
fi

# The whole GPU label (MD and the validation cases on CUDA too), with what is left of the budget.
step ctest_gpu 240 ctest --test-dir build -L gpu --output-on-failure

echo
echo "== status"; cat "$status"
echo "== tests"; grep -E "test cases|assertions|FAILED|passed|failed" "$OUT/tests_lbm_gpu.log" | tail -5
for s in memcheck racecheck; do echo "== $s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/$s.log" | tail -2; done
echo "== registers (ptxas, stream-collide kernels)"
grep -E "Used [0-9]+ registers" "$OUT/ptxas_stream_collide.txt" | sort | uniq -c | sort -rn | head -8
echo "== benchmarks"
python3 - "$OUT" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
rows = []
for path in sorted(glob.glob(os.path.join(out, "bench_*.json"))):
    try:
        j = json.load(open(path))
    except Exception as e:
        print(f"{os.path.basename(path)}: unreadable ({e})"); continue
    copy = (j.get("copy_bandwidth") or {}).get("median_gbs")  # the bench document, docs/bench-schema.json
    device = (j["provenance"]["gpu"] or {}).get("name", "cpu")
    for r in j["runs"]:
        if "error" in r:
            print(f"{os.path.basename(path)} {r.get('layout_requested')}: ERROR {r['error']}"); continue
        m = r["mlups"]
        rows.append((r["lattice"], r["precision"], "x".join(map(str, r["domain"])), r["layout"], m["median"], m["min"],
                     m["max"], r["steps_per_second"], r["bytes_per_cell_step"], r["effective_bandwidth_gbs"],
                     r["fraction_of_copy_bandwidth"], copy, device))
print("%-6s %-7s %-15s %-12s %10s %21s %9s %6s %8s %6s %8s  %s" % ("lattice", "prec", "domain", "layout", "MLUPS",
      "min-max", "steps/s", "B/cell", "GB/s", "frac", "copy", "device"))
for r in rows:
    frac = "%.3f" % r[10] if r[10] is not None else "-"
    copy = "%.0f" % r[11] if r[11] is not None else "-"
    print("%-6s %-7s %-15s %-12s %10.0f %10.0f-%-10.0f %9.1f %6.0f %8.0f %6s %8s  %s" % (r[0], r[1], r[2], r[3], r[4],
          r[5], r[6], r[7], r[8], r[9], frac, copy, r[12]))
PY
