#!/usr/bin/env bash
# The Python package as a user installs it: `pip install ./python` into a virtual environment (offline: its
# dependencies numpy, h5py, pandas and matplotlib come from the system's packages, which scripts/install-deps.sh
# installs), then python_package.py on real runs of HOPSIM from a folder outside the source tree.
# Usage: python_package.sh HOPSIM MPIEXEC SOURCE_DIR     ($HOPSIM_PYTHON: the interpreter; default /usr/bin/python3)
set -euo pipefail
HOPSIM=$1 MPIEXEC=$2 SRC=$3
PY=${HOPSIM_PYTHON:-/usr/bin/python3}
if ! "$PY" -c "import numpy, h5py, pandas, matplotlib, setuptools, pip" 2>/dev/null; then
  echo "python_package: $PY lacks numpy, h5py, pandas, matplotlib, setuptools or pip; run scripts/install-deps.sh" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# --without-pip: the system's pip (seen through --system-site-packages) installs into the venv; seeding the venv
# with its own pip took 12 s more on CI's 2 cores. The copy keeps build/ and *.egg-info out of the source tree.
"$PY" -m venv --without-pip --system-site-packages "$work/venv"
cp -r "$SRC/python" "$work/src"
"$work/venv/bin/python" -m pip install --quiet --no-deps --no-build-isolation --no-index "$work/src"
mkdir "$work/runs"
cd "$work/runs"
"$work/venv/bin/python" "$SRC/tests/integration/python_package.py" "$HOPSIM" "$MPIEXEC" "$work/runs"
