#!/usr/bin/env bash
# Installs what hopsim needs to build and test on Debian 12 or Ubuntu 24.04 (as root, or through sudo).
# HOPSIM_MINIMAL=1 skips the large optional packages (VTK, ParaView, LAMMPS).
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

packages=(build-essential cmake ninja-build pkg-config
          libyaml-cpp-dev libhdf5-dev hdf5-tools libcli11-dev libfmt-dev nlohmann-json3-dev catch2
          libopenmpi-dev openmpi-bin libhdf5-openmpi-dev python3)
if [ "${HOPSIM_MINIMAL:-0}" != 1 ]; then
  packages+=(libvtk9-dev paraview lammps)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# ParaView's Python module (paraview.simple) is what the tests use to open hopsim's output with ParaView's own
# readers. Debian packages it as python3-paraview, which conflicts with python3-vtk9 (needed by libvtk9-dev), so
# it is unpacked into a folder of its own instead of installed; the tests put that folder on PYTHONPATH.
PV_DIR=/opt/hopsim/paraview-python
if [ "${HOPSIM_MINIMAL:-0}" != 1 ] && ! [ -d "$PV_DIR/usr/lib/python3/dist-packages/paraview" ]; then
  if ! (command -v pvpython >/dev/null && pvpython -c "import paraview.simple" >/dev/null 2>&1); then
    echo "install-deps: unpacking python3-paraview into $PV_DIR"
    tmp=$(mktemp -d)
    chmod 755 "$tmp"  # apt downloads as the _apt user
    (cd "$tmp" && apt-get download python3-paraview >/dev/null)
    $SUDO mkdir -p "$PV_DIR"
    $SUDO dpkg -x "$tmp"/python3-paraview_*.deb "$PV_DIR"
    rm -rf "$tmp"
  fi
fi
