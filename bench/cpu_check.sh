#!/usr/bin/env bash
# CPU backend benchmarks on the device machine's cores (issue 21), in one call: builds the host-only hopsim (no CUDA,
# no tests) of this tree and, with OLD_SRC=old.tar (git archive of an earlier commit), of that one; then runs the
# groups named, each bench in its own process, the old and new binaries interleaved. Logs and JSON under $OUT.
# Usage: OUT=dir OLD_SRC=old.tar bash bench/cpu_check.sh lbm md
# Groups: lbm (D3Q19 FP32/FP16/FP64 256^3, D2Q9 FP32/FP16 4096^2, the 3-D cavity FP32/FP16: old and new), threads
# (D3Q19 FP32 and FP16 on 1, 2, 4, 8, 16 threads), wide (D3Q19 and the 3-D cavity with 256- against 512-bit vectors),
# md (LJ liquid, 32,000 and 256,000 atoms: old and new).
set -uo pipefail
cd "$(dirname "$0")/.."
R=${OUT:?}
DEADLINE=${DEADLINE:-560}
mkdir -p "$R"
build() {  # build SOURCE_DIR BUILD_DIR LOG [CMAKE OPTIONS]
  cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHOPSIM_WITH_CUDA=OFF -DHOPSIM_WITH_VTK=OFF \
    -DHOPSIM_WITH_MPI=OFF -DHOPSIM_BUILD_TESTS=OFF "${@:4}" > "$3" 2>&1 &&
    timeout 240 cmake --build "$2" -j"$(nproc)" --target hopsim >> "$3" 2>&1
}
t0=$SECONDS
build . /tmp/cpu-new "$R/build_new.log" &
# The same tree with 512-bit vectors in the CPU LBM kernels (GCC's default on AVX-512 Xeons is 256).
if [[ " $* " == *" wide "* ]]; then build . /tmp/cpu-wide "$R/build_wide.log" -DHOPSIM_CPU_KERNEL_OPTIONS=-mprefer-vector-width=512 & fi
if [ -n "${OLD_SRC:-}" ]; then
  rm -rf /tmp/cpu-oldsrc && mkdir -p /tmp/cpu-oldsrc && tar xf "$OLD_SRC" -C /tmp/cpu-oldsrc &&
    build /tmp/cpu-oldsrc /tmp/cpu-old "$R/build_old.log"
fi
wait
echo "builds: $((SECONDS - t0)) s; $(nproc) cores; $(lscpu | grep 'Model name' | sed 's/  */ /g')" | tee "$R/status.txt"
lscpu > "$R/lscpu.txt"
NEW=/tmp/cpu-new/hopsim
OLD=/tmp/cpu-old/hopsim
WIDE=/tmp/cpu-wide/hopsim
export OMP_PROC_BIND=close OMP_PLACES=cores
# bench NAME BINARY ENV... -- ARGS...: one `hopsim bench` with its JSON in $R/NAME.json and a line in summary.txt.
bench() {
  local name=$1 bin=$2; shift 2
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  if [ $((SECONDS + 30)) -ge "$DEADLINE" ]; then echo "$name: skipped (deadline)" >> "$R/summary.txt"; return; fi
  [ -x "$bin" ] || { echo "$name: no binary" >> "$R/summary.txt"; return; }
  env "${envs[@]}" timeout 120 "$bin" bench "$@" --json "$R/$name.json" > "$R/$name.log" 2>&1
  python3 - "$R/$name.json" "$name" >> "$R/summary.txt" <<'EOF'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"{sys.argv[2]}: failed ({e})"); sys.exit()
copy = d.get("copy_bandwidth", {}).get("median_gbs")
for r in d["runs"]:
    if "error" in r:
        print(f"{sys.argv[2]}: error {r['error']}"); continue
    m = r.get("mlups") or r.get("atom_steps_per_second") or {}
    frac = r.get("fraction_of_copy_bandwidth")
    print(f"{sys.argv[2]:40s} {m.get('median', 0):10.1f} {'' if frac is None else f'{frac:.3f}':>6s} copy {copy} GB/s | {r.get('description', '')[:150]}")
EOF
}
L="--repeats 5 --set device.backend=cpu"
# pair NAME TAG_A BIN_A TAG_B BIN_B ARGS...: the same bench on all cores with two binaries, one after the other, as
# NAME_TAG_A and NAME_TAG_B (NAME holds a @ where the tag goes).
pair() {
  local name=$1 ta=$2 a=$3 tb=$4 b=$5
  shift 5
  bench "${name/@/$ta}" "$a" OMP_NUM_THREADS="$(nproc)" -- "$@"
  bench "${name/@/$tb}" "$b" OMP_NUM_THREADS="$(nproc)" -- "$@"
}
for group in "$@"; do case $group in
lbm)
  for round in 1 2; do
    for p in single half double; do
      pair "d3q19_${p}_@_$round" old $OLD new $NEW bench/lbm_d3q19_256_single.yaml $L --set precision=$p
    done
    for p in single half; do
      pair "d2q9_${p}_@_$round" old $OLD new $NEW bench/lbm_d2q9_4096_single.yaml $L --set precision=$p
      pair "cavity3d_${p}_@_$round" old $OLD new $NEW bench/lbm_cavity3d_256_single.yaml $L --set precision=$p
    done
  done ;;
threads)
  for t in 1 2 4 8 16; do
    bench "d3q19_single_t$t" $NEW OMP_NUM_THREADS=$t -- bench/lbm_d3q19_256_single.yaml $L
    bench "d3q19_half_t$t" $NEW OMP_NUM_THREADS=$t -- bench/lbm_d3q19_256_single.yaml $L --set precision=half
  done ;;
wide)
  for round in 1 2; do
    for p in single half double; do
      pair "d3q19_${p}_@_$round" new $NEW wide $WIDE bench/lbm_d3q19_256_single.yaml $L --set precision=$p
    done
    for p in single half; do
      pair "cavity3d_${p}_@_$round" new $NEW wide $WIDE bench/lbm_cavity3d_256_single.yaml $L --set precision=$p
    done
  done ;;
md)
  # 20^3 fcc cells: 32,000 atoms; 40^3: 256,000 (in.lj's state either way).
  for round in 1 2; do
    for cells in 20 40; do
      pair "md_$((4 * cells * cells * cells))_@_$round" old $OLD new $NEW inputs/md/lj_liquid.yaml \
        --set device.backend=cpu --set "system.lattice.cells=[$cells,$cells,$cells]" --set run.steps=500 --repeats 3
    done
  done ;;
*) echo "unknown group $group" >> "$R/summary.txt" ;;
esac; done
cat "$R/summary.txt"
