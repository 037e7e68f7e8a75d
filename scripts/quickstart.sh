#!/usr/bin/env bash
# Installs what is missing (the core libraries only), builds hopsim and runs the default case: flow past a
# cylinder in a 2D channel. Open out/cylinder2d/fields.xmf in ParaView afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
HOPSIM_MINIMAL=1 scripts/install-deps.sh
scripts/build.sh -DHOPSIM_BUILD_TESTS=OFF
build/hopsim run inputs/lbm/cylinder2d.yaml
