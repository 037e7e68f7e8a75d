#!/usr/bin/env bash
# Runs small 2-D and 3-D LBM cases and renders the view.py each run wrote with ParaView, headless, into PNG files
# that must show the fields (ctest: paraview_view_script).
# Usage: paraview_view_script.sh HOPSIM_BINARY PVPYTHON WORKDIR
#   PVPYTHON: pvpython or pvbatch, with paraview.simple importable (PYTHONPATH). Without a display the renders run
#   under xvfb-run (Debian's ParaView renders through X only; package xvfb).
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
CHECK="$HERE/check_view_png.py"

fail() {
  echo "paraview_view_script: FAIL: $*" >&2
  exit 1
}

# Renders need an X server with Debian's ParaView; a build with EGL or OSMesa (Kitware's) renders without one.
# Without a display the whole test runs under one Xvfb: one server for every render rather than one started and
# stopped per render (a second each). -noreset: by default the server resets when its last client leaves and drops a
# client that connects meanwhile; ParaView closes its first display connection (the OpenGL capabilities check) and
# opens the next at once, and aborts on "bad X server connection" when it is dropped (15 of 20 pvbatch renders with
# 4 busy processes on 2 cores; 0 of 12 with -noreset).
if [[ -z "${DISPLAY:-}" ]] && command -v xvfb-run >/dev/null; then
  exec xvfb-run -a -s "-screen 0 1280x1024x24 -noreset" "$0" "$@"
fi

rm -rf "$WORKDIR"
mkdir -p "$WORKDIR"
cd "$WORKDIR"

# render OUTDIR PNG [view.py options]: the script's own output on stdout (the ParaView log goes to a file).
render() {
  local dir=$1 png=$2 code=0
  shift 2
  "$PVPYTHON" "$dir/view.py" --png "$png" "$@" 2>"$png.log" || code=$?
  if [[ $code -ne 0 ]] && grep -q "bad X server connection" "$png.log"; then
    [[ -n "${DISPLAY:-}" ]] || fail "no X display for ParaView to render on: install xvfb (scripts/install-deps.sh)"
    fail "ParaView lost its connection to the X server on $DISPLAY for $png (a server without -noreset?)"
  fi
  [[ $code -eq 0 ]] || { tail -20 "$png.log" >&2; fail "$dir/view.py --png $png $* exited with $code"; }
  [[ -f "$png" ]] || fail "$dir/view.py wrote no $png"
}

# check PNG WxH [check_view_png.py options]
check() {
  local png=$1 size=$2
  shift 2
  "$PVPYTHON" "$CHECK" "$png" --size "$size" "$@" 2>/dev/null || fail "the picture $png"
}

# 2-D: the channel with a cylinder (density, velocity, flags), its wake after 400 steps.
"$HOPSIM" run "$SRC/inputs/lbm/cylinder2d.yaml" --quiet --set run.steps=400 --set output.every=200 --output two \
  >/dev/null || fail "hopsim run (2-D) exited with $?"
[[ -f two/view.py ]] || fail "the 2-D run wrote no view.py"
said=$(render two two.png --size 800x400)
echo "$said"
grep -q "step 400" <<<"$said" || fail "view.py did not show the last step (400)"
# The domain covers 0.25 of the picture (300 x 62 cells at 2.1 pixels each), the cylinder (201 cells) 0.0027.
check two.png 800x400 --min-map 0.2 --min-levels 30 --min-solid 0.0015

# 3-D: the lid-driven cavity at 24^3 with a sphere, its fields as VTK where the build writes them (view.py then opens
# fields.pvd), else HDF5 (fields.xmf).
formats=vtk
"$HOPSIM" info | grep -q "VTK on" || formats=hdf5
"$HOPSIM" run "$SRC/inputs/lbm/cavity3d.yaml" --quiet --set run.steps=300 --set output.every=150 \
  --set 'domain.cells=[24,24,24]' --set 'output.fields=[density,velocity,flags]' --set "output.formats=[$formats]" \
  --set 'obstacles=[{name: ball, shape: sphere, center: [12, 12, 8], radius: 4}]' --output three >/dev/null ||
  fail "hopsim run (3-D) exited with $?"
render three three.png --size 800x450 --streamlines
# The slice covers about 0.14 of the picture, the sphere (shaded greys) about 0.013.
check three.png 800x450 --min-map 0.1 --min-levels 30 --min-solid 0.005

# The check can fail: at step 0 the fluid is at rest, one colour, and the colour bar alone does not pass it.
render three three-step0.png --size 800x450 --step 0 --no-obstacles >/dev/null
if "$PVPYTHON" "$CHECK" three-step0.png --size 800x450 --min-map 0.1 --min-levels 30 >/dev/null 2>&1; then
  fail "the picture of a fluid at rest passed the check"
fi
"$PVPYTHON" "$CHECK" three-step0.png --size 800x450 --min-map 0 --min-levels 0 --min-solid 0.001 >/dev/null 2>&1 &&
  fail "a picture drawn with --no-obstacles passed the check for solid cells"

# A run that writes density only: view.py colours by it.
"$HOPSIM" run "$SRC/inputs/lbm/cylinder2d.yaml" --quiet --set run.steps=200 --set output.every=200 \
  --set 'output.fields=[density]' --output density >/dev/null || fail "hopsim run (density only) exited with $?"
said=$(render density density.png --size 800x400)
grep -q "coloured by density" <<<"$said" || fail "view.py did not colour by density: $said"
check density.png 800x400 --min-map 0.2 --min-levels 20

echo "paraview_view_script: OK"
