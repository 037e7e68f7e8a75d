#!/usr/bin/env bash
# Installs what is missing (the core libraries only), builds hopsim for this machine and runs the default case: flow
# past a cylinder in a 2D channel. Open out/cylinder2d/fields.xmf in ParaView afterwards.
#
# The build is the smallest that runs here: the CPU backend alone where no NVIDIA GPU is found, CUDA for the local
# GPU's architecture alone where one is, no tests. Compiling the CUDA kernels for sm_80 and sm_90 and the test suite
# is what made a first run take minutes; scripts/build.sh makes that full build, in the same folder.
set -euo pipefail
cd "$(dirname "$0")/.."
HOPSIM_MINIMAL=1 scripts/install-deps.sh
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH=/usr/local/cuda/bin:$PATH; fi

# The compute capabilities of the GPUs here, as CMake writes them ("9.0" -> 90), one each; none without a driver.
gpu_architectures() {
  command -v nvidia-smi >/dev/null || return 0
  nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d ' .' | grep -E '^[0-9]+$' |
    sort -n -u || true
}
mapfile -t archs < <(gpu_architectures)
cuda=(-DHOPSIM_WITH_CUDA=OFF)
if [ ${#archs[@]} -eq 0 ]; then
  what="for the CPU only (no NVIDIA GPU found)"
elif ! command -v nvcc >/dev/null; then
  what="for the CPU only (an NVIDIA GPU is here, but no nvcc to compile for it)"
elif [ "${archs[0]}" -lt 80 ]; then
  # hopsim's CUDA kernels need sm_80 (A100) or newer.
  what="for the CPU only (the GPU's compute capability sm_${archs[0]} is older than the sm_80 hopsim needs)"
else
  list=$(IFS=';'; echo "${archs[*]}")
  cuda=(-DHOPSIM_WITH_CUDA=ON "-DCMAKE_CUDA_ARCHITECTURES=$list")
  what="with CUDA for the local GPU architecture only (sm_${list//;/, sm_})"
fi
scripts/build.sh "${cuda[@]}" -DHOPSIM_BUILD_TESTS=OFF
build/hopsim run inputs/lbm/cylinder2d.yaml
echo "quickstart: built build/hopsim $what, without tests; the full build (CUDA for sm_80 and sm_90 where nvcc is" \
     "found, and the tests): scripts/build.sh"
