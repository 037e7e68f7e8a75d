#!/usr/bin/env bash
# Runs a small LBM case on one rank and on two MPI ranks and checks that ParaView's own readers show the two-rank
# output (per-rank files joined by fields.xmf, or with parallel HDF5 one file per step written collectively; .pvti
# pieces joined by fields.pvd) as the same data set as the one-rank output: same steps, number of cells and value
# range of every field (ctest: paraview_opens_decomposed_output).
# Usage: paraview_opens_decomposed_output.sh HOPSIM_BINARY PVPYTHON MPIEXEC WORKDIR
set -euo pipefail

if [[ $# -ne 4 ]]; then
  echo "usage: $0 HOPSIM_BINARY PVPYTHON MPIEXEC WORKDIR" >&2
  exit 2
fi
HOPSIM=$1
PVPYTHON=$2
MPIEXEC=$3
WORKDIR=$4
CHECK="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/check_paraview.py"
NAME=paraview_opens_decomposed_output

fail() {
  echo "$NAME: FAIL: $*" >&2
  exit 1
}

# A stale series from an earlier run would let a broken writer pass.
rm -rf "$WORKDIR"
mkdir -p "$WORKDIR"

# 3D, cut along one axis by two ranks; a sphere so that the flags field is not uniform. Double precision: the fields
# of the two runs are equal bitwise, so their ranges must be equal exactly.
case_file() {
  cat <<YAML
solver: lbm
lattice: D3Q19
precision: double
domain: {cells: [20, 14, 12], periodic: [x]}
fluid: {viscosity: 0.05}
body_force: [2.0e-5, 0, 0]
boundaries:
  y-: {type: wall}
  y+: {type: wall}
  z-: {type: wall}
  z+: {type: moving_wall, velocity: [0.03, 0, 0]}
obstacles:
  - {name: ball, shape: sphere, center: [9.3, 7.2, 6.1], radius: 3}
run: {steps: 40}
output:
  every: 20
  fields: [density, velocity, flags]
  formats: [$1]
device: {backend: cpu}
YAML
}
case_file "hdf5, vtk" >"$WORKDIR/case.yaml"
if ! "$HOPSIM" run "$WORKDIR/case.yaml" --output "$WORKDIR/one" >"$WORKDIR/one.log" 2>&1; then
  grep -q "needs a build with VTK" "$WORKDIR/one.log" || { cat "$WORKDIR/one.log"; fail "hopsim run (1 rank)"; }
  echo "$NAME: hopsim built without VTK: only the XDMF series checked"
  case_file "hdf5" >"$WORKDIR/case.yaml"
  "$HOPSIM" run "$WORKDIR/case.yaml" --output "$WORKDIR/one" >"$WORKDIR/one.log" 2>&1 ||
    { cat "$WORKDIR/one.log"; fail "hopsim run (1 rank)"; }
fi

OMP_NUM_THREADS=1 "$MPIEXEC" -n 2 --oversubscribe --allow-run-as-root \
  "$HOPSIM" run "$WORKDIR/case.yaml" --output "$WORKDIR/two" >"$WORKDIR/two.log" 2>&1 ||
  { cat "$WORKDIR/two.log"; fail "mpiexec -n 2 hopsim run exited with an error"; }
grep -q "2 MPI ranks" "$WORKDIR/two.log" || { cat "$WORKDIR/two.log"; fail "the run did not use 2 ranks"; }

# Steps 0, 20 and 40. With parallel HDF5 (the run log says so): one file per step written collectively, as the
# one-rank run's, and no per-rank .h5. Otherwise one file per rank and step, and no whole-domain file (nothing
# gathered). No temporaries either way.
collective=0
if grep -q "written collectively by 2 ranks" "$WORKDIR/two.log"; then collective=1; fi
for step in 000000000 000000020 000000040; do
  if [[ $collective == 1 ]]; then
    [[ -f "$WORKDIR/two/fields_$step.h5" ]] || fail "missing fields_$step.h5 (written collectively)"
    [[ ! -e "$WORKDIR/two/fields_$step/r00000.h5" ]] || fail "fields_$step/r00000.h5 next to the collective file"
    continue
  fi
  for rank in 00000 00001; do
    [[ -f "$WORKDIR/two/fields_$step/r$rank.h5" ]] || fail "missing fields_$step/r$rank.h5"
  done
  [[ ! -e "$WORKDIR/two/fields_$step.h5" ]] || fail "fields_$step.h5 written by a decomposed run"
done
leftovers=$(find "$WORKDIR/two" -name '*.tmp-*' -print)
[[ -z "$leftovers" ]] || fail "temporary files left behind: $leftovers"

check() {
  "$PVPYTHON" "$CHECK" "$WORKDIR/two/$1" --arrays density,velocity,flags --steps 3 --cells 20 14 12 \
    --range density 0.5 1.5 --range velocity:-0.3:0.3 --same-as "$WORKDIR/one/$1" || fail "ParaView check of $1"
}
check fields.xmf
if [[ -f "$WORKDIR/one/fields.pvd" ]]; then
  [[ -f "$WORKDIR/two/fields_000000040.pvti" ]] || fail "missing fields_000000040.pvti"
  check fields.pvd
fi
echo "$NAME: OK"
