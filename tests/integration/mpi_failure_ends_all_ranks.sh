#!/usr/bin/env bash
# When one rank of a 4-rank run fails (rank 0 cannot create the output folder), every rank ends within seconds with
# a non-zero exit and the error is printed once; when every rank fails alike (a bad case file), likewise.
set -uo pipefail
hopsim=$1 mpiexec=$2 src=$3
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fail=0

# run <expected exit> <text that must appear exactly once> <hopsim arguments...>
run() {
  local want_rc=$1 text=$2
  shift 2
  OMP_NUM_THREADS=1 timeout 60 "$mpiexec" -n 4 --oversubscribe --allow-run-as-root "$hopsim" "$@" >"$out" 2>&1
  local rc=$?
  local count
  count=$(grep -cF -- "$text" "$out")
  echo "hopsim $*: exit $rc, '$text' printed $count time(s)"
  if [ "$rc" -eq 124 ]; then echo "  FAIL: the ranks still ran after 60 s (timeout)"; fail=1; fi
  if [ "$rc" -ne "$want_rc" ]; then echo "  FAIL: expected exit $want_rc"; fail=1; fi
  if [ "$count" -ne 1 ]; then echo "  FAIL: expected the error once"; cat "$out"; fail=1; fi
}

err="error: cannot create output directory /proc/hopsim-out-test"
run 1 "$err" run "$src/inputs/lbm/cavity3d.yaml" --output /proc/hopsim-out-test
run 1 "$err" run "$src/inputs/md/lj_liquid.yaml" --output /proc/hopsim-out-test
bad=$(mktemp --suffix=.yaml)
printf 'solver: lbm\nlattice: D2Q9\n' >"$bad"
run 2 "$bad:1:1: missing required key 'domain'" run "$bad"
rm -f "$bad"
exit $fail
