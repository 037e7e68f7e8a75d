#!/usr/bin/env bash
# Checks that ParaView reads back the exact values the field-writer unit tests write (HDF5/XDMF and VTK series).
# Usage: paraview_reads_writer_output.sh HOPSIM_TESTS PVPYTHON WORKDIR   (HOPSIM_TESTS: the Catch2 test binary)
# The values are those of TestFields in tests/unit/test_field_writer.cpp: a 5x4x3 grid, at the second step (time
# 0.125) density = i + 10 j + 100 k + 1000.25 and velocity[c] = -(i + 10 j + 100 k + 0.5 c) - 2000; cell 27 is
# (i, j, k) = (2, 1, 1).
set -euo pipefail

if [[ $# -ne 3 ]]; then
  echo "usage: $0 HOPSIM_TESTS PVPYTHON WORKDIR" >&2
  exit 2
fi
TESTS=$1
PVPYTHON=$2
WORKDIR=$3
CHECK="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/check_paraview.py"

rm -rf "$WORKDIR/writers"
mkdir -p "$WORKDIR/writers"
# The writer tests only ([writers]: tests/unit/test_field_writer.cpp, test_partitioned_writer.cpp), not all of [unit].
HOPSIM_TEST_OUTPUT_DIR="$WORKDIR/writers" "$TESTS" "[writers]" >/dev/null

status=0
series=(fields3d_double/fields.xmf fields3d_single/fields.xmf)
for f in vtk3d_double/fields.pvd vtk3d_single/fields.pvd; do
  [[ -f "$WORKDIR/writers/$f" ]] && series+=("$f")
done
for f in "${series[@]}"; do
  "$PVPYTHON" "$CHECK" "$WORKDIR/writers/$f" --arrays density,velocity --steps 2 --cells 5 4 3 --time 0.125 \
    --range density 1000.25 1234.25 --range velocity:-2235:-2000 \
    --value density:27:0:1112.25 --value velocity:27:2:-2113 --value density:59:0:1234.25 || status=1
done
# The same values split into four blocks (tests/unit/test_partitioned_writer.cpp): one data set per step, the same
# as the one-file series. The XDMF series is a multiblock of the four blocks (no --value: it needs one block). Double
# precision only: the single-precision pieces differ in the array type alone, which the unit test checks.
for p in double; do
  "$PVPYTHON" "$CHECK" "$WORKDIR/writers/pieces3d_$p/fields.xmf" --arrays density,velocity --steps 2 --cells 5 4 3 \
    --time 0.125 --range density 1000.25 1234.25 --range velocity:-2235:-2000 \
    --same-as "$WORKDIR/writers/fields3d_$p/fields.xmf" || status=1
  if [[ -f "$WORKDIR/writers/vtkpieces3d_$p/fields.pvd" ]]; then
    "$PVPYTHON" "$CHECK" "$WORKDIR/writers/vtkpieces3d_$p/fields.pvd" --arrays density,velocity --steps 2 \
      --cells 5 4 3 --time 0.125 --value density:27:0:1112.25 --value velocity:27:2:-2113 \
      --value density:59:0:1234.25 --same-as "$WORKDIR/writers/vtk3d_$p/fields.pvd" || status=1
  fi
done
"$PVPYTHON" "$CHECK" "$WORKDIR/writers/fields2d/fields.xmf" --arrays density,velocity --steps 2 --cells 6 4 1 \
  --time 5 --value density:7:0:1011.25 || status=1
exit $status
