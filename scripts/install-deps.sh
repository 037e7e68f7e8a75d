#!/usr/bin/env bash
# Installs what hopsim needs to build and test on Debian 12 or Ubuntu 24.04 (as root, or through sudo).
# HOPSIM_MINIMAL=1 skips the large optional packages (VTK, ParaView, LAMMPS). --dry-run prints what would be
# installed and where ParaView's Python module would come from, and changes nothing.
set -euo pipefail

DRY_RUN=0
for arg in "$@"; do
  case "$arg" in
    --dry-run) DRY_RUN=1 ;;
    *) echo "install-deps: unknown option '$arg' (allowed: --dry-run)" >&2; exit 2 ;;
  esac
done

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

# ParaView's Python module (paraview.simple) is what the tests use to open hopsim's output with ParaView's own
# readers. Debian packages it as python3-paraview, which conflicts with python3-vtk9, and libvtk9-dev depends on
# python3-vtk9: the two cannot be installed together. So:
# - python3-paraview already installed (a workstation set up for ParaView): keep it and use its module as is; leave
#   libvtk9-dev out, so that apt does not try to remove python3-paraview. CMake then finds no VTK and builds without
#   the VTK writers (HOPSIM_WITH_VTK off); the HDF5/XDMF output is what ParaView opens.
# - otherwise: install libvtk9-dev, and unpack python3-paraview into a folder of its own instead of installing it;
#   the tests put that folder on PYTHONPATH (HOPSIM_PARAVIEW_PYTHONPATH in tests/CMakeLists.txt).
# Debian's ParaView renders through X only (no EGL or OSMesa build): xvfb gives the tests' renders of view.py
# (`xvfb-run -a -s "-screen 0 1280x1024x24 -noreset" pvbatch view.py --png ...`) a display on a machine without one.
SYSTEM_PARAVIEW=0
if installed python3-paraview; then SYSTEM_PARAVIEW=1; fi

packages=(build-essential cmake ninja-build pkg-config
          libyaml-cpp-dev libhdf5-dev hdf5-tools libcli11-dev libfmt-dev libspdlog-dev nlohmann-json3-dev catch2
          libopenmpi-dev openmpi-bin libhdf5-openmpi-dev python3 python3-matplotlib python3-pandas)
if [ "${HOPSIM_MINIMAL:-0}" != 1 ]; then
  # The rest of the Python package's dependencies (`hopsim plot` needs only matplotlib and pandas) and what its test
  # pip-installs it with, offline, into a venv that sees the system's packages.
  packages+=(python3-numpy python3-h5py python3-pip python3-setuptools python3-wheel python3-venv)
  if [ "$SYSTEM_PARAVIEW" = 1 ]; then
    echo "install-deps: python3-paraview is installed; using its paraview module, and leaving out libvtk9-dev" \
         "(it conflicts through python3-vtk9): hopsim builds without VTK writers"
    packages+=(paraview xvfb lammps)
  else
    packages+=(libvtk9-dev paraview xvfb lammps)
  fi
fi

missing=()
for p in "${packages[@]}"; do
  installed "$p" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  if [ "$DRY_RUN" = 0 ]; then
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
else
  echo "install-deps: every package is installed"
fi

PV_DIR=/opt/hopsim/paraview-python
if [ "${HOPSIM_MINIMAL:-0}" != 1 ] && [ "$SYSTEM_PARAVIEW" = 0 ] &&
   ! [ -d "$PV_DIR/usr/lib/python3/dist-packages/paraview" ]; then
  if ! (command -v pvpython >/dev/null && pvpython -c "import paraview.simple" >/dev/null 2>&1); then
    echo "install-deps: unpacking python3-paraview into $PV_DIR"
    if [ "$DRY_RUN" = 0 ]; then
      tmp=$(mktemp -d)
      chmod 755 "$tmp"  # apt downloads as the _apt user
      (cd "$tmp" && apt-get download python3-paraview >/dev/null)
      $SUDO mkdir -p "$PV_DIR"
      $SUDO dpkg -x "$tmp"/python3-paraview_*.deb "$PV_DIR"
      rm -rf "$tmp"
    fi
  fi
fi
