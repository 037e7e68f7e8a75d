#!/usr/bin/env bash
# SASS instructions of the collision alone (bench/collision_sass.cu) for the tree at SRC (default: this one): all
# instructions, and the floating-point adds, multiplies and fused multiply-adds among them, per kernel variant
# (lattice, terms, TRT). Needs nvcc and nvdisasm (the CUDA toolkit, or PyPI's nvidia-cuda-nvdisasm).
#   bash bench/collision_sass.sh [SRC]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
src=${1:-$here}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nvcc -std=c++20 -arch sm_90 -cubin -O3 -I"$src" -I"$here" -o "$tmp/c.cubin" "$here/bench/collision_sass.cu"
nvdisasm "$tmp/c.cubin" > "$tmp/c.sass"
python3 - "$tmp/c.sass" <<'PY'
import collections, re, sys
counts, name = collections.OrderedDict(), None
for line in open(sys.argv[1]):
    m = re.match(r'\s*\.section\s+\.text\.(\S+?),', line)
    if m:
        name = m.group(1)
        counts[name] = collections.Counter()
        continue
    m = re.match(r'\s+/\*[0-9a-f]{4}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)', line)
    if m and name:
        op = m.group(2).split('.')[0]
        counts[name]['all'] += 1
        counts[name][op] += 1
print(f"{'kernel (lattice, terms, trt)':32} {'all':>5} {'FADD':>5} {'FMUL':>5} {'FFMA':>5}")
for name, c in counts.items():
    m = re.search(r'(D2Q9|D3Q19|D3Q27)ELi(\d+)ELi(\d)', name)
    label = f"{m.group(1)}, {m.group(2)}, {m.group(3)}" if m else name[:32]
    print(f"{label:32} {c['all']:5d} {c['FADD']:5d} {c['FMUL']:5d} {c['FFMA']:5d}")
PY
