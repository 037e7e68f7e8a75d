#!/usr/bin/env bash
# The parallel-HDF5 flavour that CI adds to the main build: host only (no CUDA; no VTK, which links the serial
# HDF5), MPI on, HDF5 from libhdf5-openmpi-dev. Builds the MPI test binary only and runs the field-output tests on
# 1, 2 and 4 ranks: one HDF5 file per step written collectively, and the per-rank files of output.hdf5: per-rank.
# Usage: scripts/test-parallel-hdf5.sh [BUILD_DIR]   (default build-phdf5; scripts/test.sh runs it after ctest)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-phdf5}
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
# Unoptimised (no build type: no -O flags): this build only runs the small output tests below, and compiling the
# library a second time at -O0 takes half the time it takes at -O3. A unity build (the library's and the MPI tests'
# files compiled eight to a translation unit, so each header is parsed once per eight): 89 s instead of 143 s on a
# 2-core workstation, where parsing is most of an unoptimised compile.
cmake -S . -B "$BUILD" "${generator[@]}" -DCMAKE_BUILD_TYPE=None -DHOPSIM_WITH_CUDA=OFF -DHOPSIM_WITH_VTK=OFF \
  -DHOPSIM_WITH_MPI=ON -DHOPSIM_BUILD_TESTS=ON -DCMAKE_UNITY_BUILD=ON
cmake --build "$BUILD" -j"$(nproc)" --target hopsim_mpi_tests

export OMP_NUM_THREADS=1  # 4 ranks on CI's 2 cores
for n in 1 2 4; do
  echo "test-parallel-hdf5: field output tests on $n rank(s)"
  log="$BUILD/mpi_output_$n.log"
  mpiexec -n "$n" --oversubscribe --allow-run-as-root "$BUILD/tests/hopsim_mpi_tests" "[output]" 2>&1 | tee "$log"
  # A serial HDF5 found after all would skip the collective tests and pass: that is a failure of this flavour.
  if grep -q "collective HDF5 test skipped" "$log"; then
    echo "test-parallel-hdf5: $BUILD found a serial HDF5; install libhdf5-openmpi-dev (scripts/install-deps.sh)" >&2
    exit 1
  fi
done
echo "test-parallel-hdf5: OK"
