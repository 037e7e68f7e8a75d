#!/usr/bin/env bash
# Builds, on the workstation, the binaries bench/device_check.sh runs on the GPU machine (sm_90, MPI on, VTK off,
# CPU kernels for any x86-64: HOPSIM_NATIVE off) and packs them in prebuilt.tgz with the shared libraries the GPU
# machine's Ubuntu lacks (yaml-cpp 0.7), about 40 MB (the device tool carries up to 64 MiB). Carry prebuilt.tgz and run PREBUILT=prebuilt.tgz bench/device_check.sh ...:
# the device then spends no time building.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD_DIR:-build-dev}
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHOPSIM_WITH_CUDA=ON -DHOPSIM_WITH_VTK=OFF \
  -DHOPSIM_WITH_MPI=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DHOPSIM_BUILD_TESTS=ON \
  -DHOPSIM_NATIVE=OFF > /dev/null
ninja -C "$B" hopsim hopsim_tests hopsim_mpi_tests hopsim_voxelize_bench
rm -rf prebuilt && mkdir -p prebuilt/lib
cp "$B/hopsim" "$B/tests/hopsim_tests" "$B/tests/hopsim_mpi_tests" "$B/hopsim_voxelize_bench" prebuilt/
strip prebuilt/hopsim prebuilt/hopsim_tests prebuilt/hopsim_mpi_tests prebuilt/hopsim_voxelize_bench
cp -L "$(ldd prebuilt/hopsim | awk '/libyaml-cpp/ {print $3}')" prebuilt/lib/
tar czf prebuilt.tgz prebuilt && rm -rf prebuilt
ls -l prebuilt.tgz
