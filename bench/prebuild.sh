#!/usr/bin/env bash
# Builds, on the workstation, the binaries bench/device_check.sh runs on the GPU machine (sm_90, MPI on, VTK off,
# CPU kernels for any x86-64: HOPSIM_NATIVE off) and packs hopsim and hopsim_tests (MPI_TESTS=1: hopsim_mpi_tests too)
# in prebuilt.tgz with the shared libraries the GPU machine's Ubuntu lacks (yaml-cpp 0.7, spdlog 1.10). Carry
# prebuilt.tgz and run PREBUILT=prebuilt.tgz bench/device_check.sh ...: the device then spends no time building. Each
# binary holds all the CUDA kernels (~85 MB); xz with a window wider than two binaries finds what they share, so the
# two make ~30 MB (an 8 MB window made 57 MB) and a third adds a few MB (the device tool carries up to 64 MiB).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD_DIR:-build-dev}
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHOPSIM_WITH_CUDA=ON -DHOPSIM_WITH_VTK=OFF \
  -DHOPSIM_WITH_MPI=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DHOPSIM_BUILD_TESTS=ON \
  -DHOPSIM_NATIVE=OFF > /dev/null
targets=(hopsim hopsim_tests); [ "${MPI_TESTS:-0}" = 1 ] && targets+=(hopsim_mpi_tests)
ninja -C "$B" "${targets[@]}"
rm -rf prebuilt && mkdir -p prebuilt/lib
cp "$B/hopsim" "$B/tests/hopsim_tests" prebuilt/
[ "${MPI_TESTS:-0}" = 1 ] && cp "$B/tests/hopsim_mpi_tests" prebuilt/
strip prebuilt/hopsim prebuilt/hopsim_*tests
for lib in libyaml-cpp libspdlog; do cp -L "$(ldd prebuilt/hopsim | awk "/$lib/ {print \$3}")" prebuilt/lib/; done
# A workstation with libhdf5-openmpi-dev builds against the parallel HDF5 (MPI on, VTK off), which the GPU machine
# lacks (it has the serial one): that library travels too (its MPI is the GPU machine's OpenMPI 4.1, same soname).
hdf5=$(ldd prebuilt/hopsim | awk '/libhdf5_openmpi/ {print $3}')
if [ -n "$hdf5" ]; then cp -L "$hdf5" prebuilt/lib/; fi
# OLD_HOPSIM=path: an earlier build's hopsim travels beside this one as prebuilt/hopsim_old (device_check.sh runs it as
# the old binary of an A/B); the two differ in few bytes, which an xz window over both finds (~+1 MB, not +27 MB).
if [ -n "${OLD_HOPSIM:-}" ]; then cp "$OLD_HOPSIM" prebuilt/hopsim_old && strip prebuilt/hopsim_old; fi
tar cf - prebuilt | xz -T0 --lzma2=preset=6,dict=192MiB > prebuilt.tgz && rm -rf prebuilt
ls -l prebuilt.tgz
