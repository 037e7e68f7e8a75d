#!/usr/bin/env bash
# Installs dependencies, builds, and runs the whole test suite (GPU tests report "skipped" without a GPU), then
# the MPI output tests of a second, host-only build with parallel HDF5.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# The full build: tests, and CUDA for sm_80 and sm_90 where nvcc is found. This machine runs no kernel, so the device
# code is compiled as a check only, unoptimised (HOPSIM_CUDA_DEVICE_OPT, ~40% of the optimised build's CUDA compile;
# `hopsim bench` refuses to time it), without line tables for profilers.
scripts/build.sh -DHOPSIM_CUDA_LINEINFO=OFF -DHOPSIM_CUDA_DEVICE_OPT=OFF
# Two entries at a time: most are one process with one or two threads, and CI has 2 cores. OpenMP threads that wait
# passively: spinning ones of two tests at once on two cores made some entries 4x slower.
export OMP_WAIT_POLICY=passive
(cd build && ctest --output-on-failure --timeout 1500 -j2)
# The main build keeps per-rank HDF5 files (VTK links the serial HDF5); this one tests the collective file.
scripts/test-parallel-hdf5.sh build-phdf5
