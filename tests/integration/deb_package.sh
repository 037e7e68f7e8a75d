#!/usr/bin/env bash
# The Debian package as a user without root installs it: cpack makes the .deb from the build folder, dpkg-deb unpacks
# it into an empty prefix, and the unpacked binary runs an example case from the package's share/hopsim and finds
# its validation data there (not in the source tree, which is also on this machine).
# Usage: deb_package.sh CPACK BUILD_DIR VERSION
set -euo pipefail
CPACK=$1 BUILD=$2 VERSION=$3
unset HOPSIM_DATA_DIR  # it would take the place of the installed folder
for tool in dpkg-deb dpkg-shlibdeps; do
  command -v "$tool" >/dev/null || { echo "deb_package: $tool not installed (dpkg-dev): skipped"; exit 77; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "deb_package: FAILED: $*"; exit 1; }

"$CPACK" --config "$BUILD/CPackConfig.cmake" -G DEB -B "$work/pkg" >"$work/cpack.log" 2>&1 ||
  { rc=$?; cat "$work/cpack.log"; fail "cpack exited $rc"; }
debs=("$work"/pkg/hopsim_*.deb)
[ ${#debs[@]} = 1 ] && [ -f "${debs[0]}" ] || fail "expected one hopsim_*.deb in $work/pkg, found: $(ls "$work/pkg")"
deb=${debs[0]}
echo "deb_package: $(basename "$deb"), $(du -h "$deb" | cut -f1)"
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = hopsim ] || fail "Package: $(field Package)"
[ "$(field Version)" = "$VERSION" ] || fail "Version: $(field Version), expected $VERSION"
# dpkg-shlibdeps found the libraries the binary links (yaml-cpp, HDF5 and fmt at least).
depends=$(field Depends)
for lib in libyaml-cpp libhdf5 libfmt; do
  grep -q "$lib" <<<"$depends" || fail "Depends lacks $lib: $depends"
done

prefix="$work/prefix"
dpkg-deb -x "$deb" "$prefix"
hopsim="$prefix/usr/bin/hopsim"
share="$prefix/usr/share/hopsim"
[ -x "$hopsim" ] || fail "no usr/bin/hopsim in the package"
for f in inputs/lbm/cylinder2d.yaml validation/lbm/taylor_green2d.yaml validation/reference/ghia1982_cavity.csv \
         plot_compare.py python/pyproject.toml python/hopsim/__init__.py; do
  [ -f "$share/$f" ] || fail "no usr/share/hopsim/$f in the package"
done

# Run from an empty folder, so that nothing is found relative to the working directory.
mkdir "$work/cwd"
cd "$work/cwd"
info=$("$hopsim" info) || fail "hopsim info exited $?"
[ "$(sed -n 's/^data: *//p' <<<"$info")" = "$(cd "$share" && pwd -P)" ] ||
  fail "hopsim info does not name the installed data folder $share: $info"

# The package's own example, cut short: a few seconds.
"$hopsim" run "$share/inputs/lbm/cylinder2d.yaml" --set run.steps=200 --set output.every=100 \
  --output "$work/run" >"$work/run.log" 2>&1 || { rc=$?; cat "$work/run.log"; fail "hopsim run exited $rc"; }
for f in fields.xmf observables.csv forces.csv run.json; do
  [ -s "$work/run/$f" ] || { cat "$work/run.log"; fail "the run wrote no $f"; }
done
grep -q '^200,' "$work/run/observables.csv" || fail "observables.csv has no row for step 200"

# `hopsim plot` runs the package's own Python package (share/hopsim/python), where a python3 can draw.
can_plot() { "$1" -c "import matplotlib, pandas" 2>/dev/null; }
if can_plot python3 || can_plot /usr/bin/python3; then
  "$hopsim" plot "$work/run" --quiet >"$work/plot.log" 2>&1 ||
    { rc=$?; cat "$work/plot.log"; fail "hopsim plot exited $rc"; }
  [ -s "$work/run/observables.png" ] || { cat "$work/plot.log"; fail "hopsim plot drew no observables.png"; }
else
  echo "deb_package: no python3 with matplotlib and pandas: hopsim plot not checked"
fi

# A validation case, read from the package's share/hopsim/validation (the quickest that reads a case file: 7 s of
# CPU).
"$hopsim" validate lbm.taylor_green2d >"$work/validate.log" 2>&1 ||
  { rc=$?; cat "$work/validate.log"; fail "hopsim validate exited $rc"; }
grep -Eq '^[1-9][0-9]* passed, 0 failed' "$work/validate.log" ||
  { cat "$work/validate.log"; fail "hopsim validate did not pass"; }
echo "deb_package: installed into $prefix, ran cylinder2d (200 steps) and validated lbm.taylor_green2d from there"
