#!/usr/bin/env bash
# Installs what hopsim needs to build and test on Debian 12 or Ubuntu 24.04 (as root, or through sudo).
# HOPSIM_MINIMAL=1 skips the large optional packages (VTK, ParaView, LAMMPS).
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

packages=(build-essential cmake ninja-build pkg-config git
          libyaml-cpp-dev libhdf5-dev hdf5-tools libcli11-dev libfmt-dev nlohmann-json3-dev catch2
          libopenmpi-dev openmpi-bin python3 python3-numpy python3-h5py)
if [ "${HOPSIM_MINIMAL:-0}" != 1 ]; then
  packages+=(libvtk9-dev paraview lammps)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
