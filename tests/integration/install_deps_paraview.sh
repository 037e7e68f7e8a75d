#!/usr/bin/env bash
# scripts/install-deps.sh --dry-run on faked dpkg states: with python3-paraview installed it must plan no libvtk9-dev
# (they conflict through python3-vtk9) and use the system paraview module; without it, libvtk9-dev is planned and no
# system module is claimed. A fake dpkg-query on PATH stands in for the package database; nothing is installed.
set -uo pipefail
script=$1
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
cat >"$bin/dpkg-query" <<'FAKE'
#!/usr/bin/env bash
# dpkg-query -W -f='${Status}' <package>: "install ok installed" for the packages in $FAKE_INSTALLED.
pkg=${!#}
for p in $FAKE_INSTALLED; do
  if [ "$p" = "$pkg" ]; then printf 'install ok installed'; exit 0; fi
done
printf 'unknown ok not-installed'
exit 1
FAKE
# A dry run must not reach apt: these stand-ins record any call and fail it, so a broken --dry-run changes nothing.
for tool in apt-get sudo; do
  printf '#!/usr/bin/env bash\necho "%s $*" >>"%s/calls"\nexit 1\n' "$tool" "$bin" >"$bin/$tool"
done
chmod +x "$bin/dpkg-query" "$bin/apt-get" "$bin/sudo"
fail=0

# plan <installed packages> -> the dry run's output
plan() { FAKE_INSTALLED="$1" PATH="$bin:$PATH" bash "$script" --dry-run 2>&1; }

out=$(plan "python3-paraview paraview cmake")
echo "--- python3-paraview installed:"; echo "$out"
grep -q "libvtk9-dev" <<<"$(grep '^install-deps: installing' <<<"$out")" && { echo "FAIL: libvtk9-dev planned"; fail=1; }
grep -q "using its paraview module" <<<"$out" || { echo "FAIL: the system paraview module is not used"; fail=1; }
grep -q "unpacking python3-paraview" <<<"$out" && { echo "FAIL: python3-paraview would be unpacked"; fail=1; }
grep -q "^install-deps: installing .*lammps" <<<"$out" || { echo "FAIL: the other packages are not planned"; fail=1; }
grep -q "^install-deps: installing .*xvfb" <<<"$out" || { echo "FAIL: xvfb (headless renders) is not planned"; fail=1; }

out=$(plan "cmake")
echo "--- python3-paraview not installed:"; echo "$out"
grep -q "^install-deps: installing .*libvtk9-dev" <<<"$out" || { echo "FAIL: libvtk9-dev not planned"; fail=1; }
grep -q "^install-deps: installing .*libspdlog-dev" <<<"$out" || { echo "FAIL: libspdlog-dev not planned"; fail=1; }
grep -q "using its paraview module" <<<"$out" && { echo "FAIL: claims a system paraview module"; fail=1; }

out=$(HOPSIM_MINIMAL=1 plan "python3-paraview")
echo "--- minimal:"; echo "$out"
grep -q "paraview\|libvtk9-dev" <<<"$out" && { echo "FAIL: the minimal set names ParaView or VTK"; fail=1; }

out=$(FAKE_INSTALLED="" PATH="$bin:$PATH" bash "$script" --install 2>&1)
[ $? -eq 2 ] && grep -q "unknown option '--install'" <<<"$out" || { echo "FAIL: an unknown option is not refused"; fail=1; }
if [ -s "$bin/calls" ]; then echo "FAIL: the dry runs called:"; cat "$bin/calls"; fail=1; fi
exit $fail
