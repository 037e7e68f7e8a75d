#!/usr/bin/env bash
# Fails when a layer includes a layer above it, or kernels/ reads the environment or logs (docs/architecture.md,
# "Layers").
# Dependencies run one way: apps -> validation -> solvers -> {io, kernels} -> core; io and kernels do not include
# each other. Run by ctest (test "layering") and usable alone: scripts/check-layers.sh [source root].
set -uo pipefail
root=${1:-$(dirname "$0")/..}
cd "$root" || exit 2

# The folders each layer may include from.
declare -A allowed=(
  [core]="core"
  [kernels]="core kernels"
  [io]="core io"
  [solvers]="core io kernels solvers"
  [validation]="core io kernels solvers validation"
)
layers="apps validation solvers io kernels core"

failed=0
for layer in "${!allowed[@]}"; do
  [ -d "$layer" ] || continue
  while IFS= read -r hit; do
    file=${hit%%:*}
    rest=${hit#*:}
    line=${rest%%:*}
    target=$(sed -E 's/.*#[[:space:]]*include[[:space:]]*"([^/"]+)\/.*/\1/' <<<"$rest")
    case " $layers " in *" $target "*) ;; *) continue ;; esac  # not a hopsim layer (a system or library header)
    case " ${allowed[$layer]} " in *" $target "*) continue ;; esac
    echo "$file:$line: $layer/ includes $target/ (allowed: ${allowed[$layer]})"
    failed=1
  done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"/]+/' "$layer" \
             --include='*.h' --include='*.cpp' --include='*.cu' --include='*.cuh')
done

# Kernels take every choice from the device plan; the environment is read once, above them.
while IFS= read -r hit; do
  echo "${hit%%:*}:$(cut -d: -f2 <<<"$hit"): kernels/ reads the environment (read it in solvers/common/DevicePlanner.cpp and pass it in the plan)"
  failed=1
done < <(grep -rnE '\b(secure_)?getenv[[:space:]]*\(' kernels --include='*.h' --include='*.cpp' --include='*.cu' \
           --include='*.cuh')

# Kernels report through what they return and throw; the run loops above them log (core/Log.h).
while IFS= read -r hit; do
  echo "${hit%%:*}:$(cut -d: -f2 <<<"$hit"): kernels/ logs (return or throw what happened; solvers/ log it)"
  failed=1
done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"core/Log\.h"' kernels --include='*.h' \
           --include='*.cpp' --include='*.cu' --include='*.cuh')

if [ "$failed" -ne 0 ]; then
  echo "check-layers: FAILED"
  exit 1
fi
echo "check-layers: every include points down, and kernels/ reads no environment and does not log"
