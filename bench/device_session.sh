#!/usr/bin/env bash
# One device-tool session: bench/run_gpu.sh (build, GPU tests, sanitizers, LBM benchmarks), then every validation
# case on the GPU and the MD benchmarks; everything packed into $OUT/gpu.tgz (the tool returns at most 8 files).
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/cuda/bin:$PATH
FINAL=${OUT:?}
export OUT=/tmp/gpu-out
rm -rf "$OUT" && mkdir -p "$OUT"
BUDGET=${BUDGET:-400} bash bench/run_gpu.sh
if [ -x build/hopsim ]; then
  timeout 120 build/hopsim validate --all --backend cuda > "$OUT/validate_cuda.log" 2>&1
  echo "validate --all --backend cuda: exit $?" | tee -a "$OUT/status.txt"
  for c in 20 64 160; do
    timeout 60 build/hopsim bench inputs/md/lj_liquid.yaml --set "system.lattice.cells=[$c,$c,$c]" \
      --set precision=mixed --set device.backend=cuda --steps $([ $c = 160 ] && echo 100 || echo 500) --repeats 3 \
      --json "$OUT/md_bench_$c.json" > /dev/null 2> "$OUT/md_bench_$c.err"
    echo "md bench $c: exit $?" | tee -a "$OUT/status.txt"
  done
fi
tar czf "$FINAL/gpu.tgz" -C /tmp gpu-out
cat "$OUT/status.txt"
grep -E "PASS|FAIL|passed" "$OUT/validate_cuda.log" | tail -30
