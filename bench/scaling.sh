#!/usr/bin/env bash
# Multi-GPU scaling of the decomposed LBM (issue 7): weak scaling with 512^3 cells per GPU and strong scaling of a
# 512^3 domain on 1, 2, 4, 8 GPUs (as many as the machine has), each also with the halo exchange skipped
# (HOPSIM_LBM_SKIP_HALO=1: wrong results, measures what the exchange costs once overlapped). One rank per GPU.
# Usage on the GPU machine, after a build with MPI and CUDA: OUT=dir bash bench/scaling.sh [build dir]
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
R=${OUT:?}/scaling
mkdir -p "$R"
export NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=4
GPUS=$(nvidia-smi -L | wc -l)
M="mpiexec --allow-run-as-root --oversubscribe --bind-to none"
weak_cells() {  # 512^3 per GPU, split along z, then y (whole x rows: full thread blocks, contiguous halo planes)
  case $1 in 1) echo "[512,512,512] [1,1,1]";; 2) echo "[512,512,1024] [1,1,2]";;
             4) echo "[512,1024,1024] [1,2,2]";; 8) echo "[512,1024,2048] [1,2,4]";; esac; }
for n in 1 2 4 8; do
  [ "$n" -le "$GPUS" ] || break
  read -r cells grid <<< "$(weak_cells $n)"
  for skip in 0 1; do
    tag="n${n}_skip${skip}"
    HOPSIM_LBM_SKIP_HALO=$skip timeout 240 $M -n $n "$B/hopsim" bench bench/lbm_d3q19_256_single.yaml \
      --set "domain.cells=$cells" --set "device.ranks=$grid" --repeats 3 --json "$R/weak_$tag.json" \
      > /dev/null 2> "$R/weak_$tag.log"
    echo "weak $tag: exit $?"
    HOPSIM_LBM_SKIP_HALO=$skip timeout 240 $M -n $n "$B/hopsim" bench bench/lbm_d3q19_256_single.yaml \
      --set "domain.cells=[512,512,512]" --repeats 3 --json "$R/strong_$tag.json" > /dev/null 2> "$R/strong_$tag.log"
    echo "strong $tag: exit $?"
  done
done
python3 - "$R" <<'PY'
import glob, json, os, sys
rows = {}
for p in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    j = json.load(open(p)); r = j["runs"][0]
    if "error" in r: print(os.path.basename(p), "ERROR", r["error"]); continue
    rows[os.path.basename(p)[:-5]] = r["mlups"]["median"]
for kind in ("weak", "strong"):
    one = rows.get(kind + "_n1_skip0")
    for n in (1, 2, 4, 8):
        m = rows.get("%s_n%d_skip0" % (kind, n)); s = rows.get("%s_n%d_skip1" % (kind, n))
        if m is None: continue
        eff = (m / n) / one if kind == "weak" else m / (one * n)
        print("%-6s %d GPUs: %9.0f MLUPS, %8.0f per GPU, efficiency %.3f, without exchange %s" %
              (kind, n, m, m / n, eff, "%.0f" % s if s else "-"))
PY
