#!/usr/bin/env bash
# Configures and builds everything into ${BUILD_DIR:-build}, then the torch operator library
# beside the runtime (scripts/build-torch-ops.sh; skipped without torch or the CUDA headers).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir > "$build.cmake.log" 2>&1 \
    || { cat "$build.cmake.log"; exit 1; }
fi
cmake --build "$build" -j"$(nproc)"
bash "$root/scripts/build-torch-ops.sh" "$build"
