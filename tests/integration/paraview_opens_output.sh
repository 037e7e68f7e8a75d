#!/usr/bin/env bash
# Runs a short LBM case and checks that ParaView's own readers open its field output (ctest: paraview_opens_output).
# Usage: paraview_opens_output.sh HOPSIM_BINARY PVPYTHON WORKDIR
#   PVPYTHON may be pvpython or pvbatch (Debian 12 ships only pvbatch; paraview.simple comes from python3-paraview).
set -euo pipefail

if [[ $# -ne 3 ]]; then
  echo "usage: $0 HOPSIM_BINARY PVPYTHON WORKDIR" >&2
  exit 2
fi
HOPSIM=$1
PVPYTHON=$2
WORKDIR=$3
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
CHECK="$HERE/check_paraview.py"
OUT="$WORKDIR/out"

fail() {
  echo "paraview_opens_output: FAIL: $*" >&2
  exit 1
}

# A stale series from an earlier run would let a broken writer pass.
rm -rf "$OUT"
mkdir -p "$WORKDIR"

"$HOPSIM" run "$SRC/inputs/lbm/poiseuille2d.yaml" --set run.steps=200 --set output.every=100 --output "$OUT" ||
  fail "hopsim run exited with $?"

# The solver writes the initial state too: steps 0, 100 and 200.
for step in 000000000 000000100 000000200; do
  [[ -f "$OUT/fields_$step.h5" ]] || fail "missing $OUT/fields_$step.h5"
done
leftovers=$(find "$OUT" -name '*.tmp-*' -print)
[[ -z "$leftovers" ]] || fail "temporary files left behind: $leftovers"

# Lattice units: density near 1, speeds well below the lattice speed of sound (the case reader refuses Ma > 0.3),
# so values outside these bounds mean the reader got the wrong type, shape or order, not a physics problem.
# Negative bounds go as ARRAY:MIN:MAX because pvpython/pvbatch swallow arguments like "-0.3".
check() {
  "$PVPYTHON" "$CHECK" "$1" --arrays density,velocity --steps 3 --range density 0.5 1.5 --range velocity:-0.3:0.3 ||
    fail "ParaView check of $1"
}
[[ -f "$OUT/fields.xmf" ]] || fail "missing $OUT/fields.xmf"
check "$OUT/fields.xmf"
if [[ -f "$OUT/fields.pvd" ]]; then
  check "$OUT/fields.pvd"
else
  echo "paraview_opens_output: no fields.pvd (hopsim built without VTK?): only the XDMF series checked"
fi
echo "paraview_opens_output: fields OK"

# Particles: an MD run's H5MD trajectory (through its .xmf) and, with VTK, its .vtp series.
MD_OUT="$WORKDIR/md"
rm -rf "$MD_OUT"
"$HOPSIM" run "$SRC/inputs/md/lj_from_lammps.yaml" --set run.steps=20 --set output.every=10 --output "$MD_OUT" \
  >/dev/null || fail "hopsim run (md) exited with $?"
atoms=256
"$PVPYTHON" "$CHECK" "$MD_OUT/trajectory.xmf" --reader xdmf2 --points $atoms --arrays velocity --steps 3 ||
  fail "ParaView check of $MD_OUT/trajectory.xmf"
if [[ -f "$MD_OUT/particles.pvd" ]]; then
  "$PVPYTHON" "$CHECK" "$MD_OUT/particles.pvd" --points $atoms --arrays velocity --steps 3 ||
    fail "ParaView check of $MD_OUT/particles.pvd"
fi
echo "paraview_opens_output: particles OK"
