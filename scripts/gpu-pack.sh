#!/usr/bin/env bash
# Packs what the next GPU calls need into .gpu/ (ignored by git: add `/.gpu/` to
# .git/info/exclude), so that each device call carries it (`run` with carry [".gpu"], under
# 64 MiB) instead of building anything there:
#   .gpu/rt/bin/sigreg-aot-run, .gpu/rt/lib/libsigreg_aot.so  this build's runtime (static
#       libstdc++ in the runner; scripts/gpu-ab.sh uses it with SIGREG_GPU_BUILD=.gpu/rt and
#       builds its own where it does not run)
#   .gpu/SET/  scripts/build-gpu-artifacts.sh's artifact set SET (fused pipeline), for each SET
#       named (default: tpersistent generate warps16 perslice, the sets docs/PERF-NOTES.md's
#       twentieth session plans to run)
# Usage: scripts/gpu-pack.sh [BUILD_DIR] [SET...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}; shift || true
sets=("$@"); [ ${#sets[@]} -gt 0 ] || sets=(tpersistent generate warps16 perslice)
for f in bin/sigreg-aot-run bin/sigreg-run lib/libsigreg_aot.so; do
  [ -e "$build/$f" ] || { echo "gpu-pack: no $build/$f (build first: scripts/build.sh)" >&2; exit 2; }
done
mkdir -p "$root/.gpu/rt/bin" "$root/.gpu/rt/lib"
cp "$build/bin/sigreg-aot-run" "$root/.gpu/rt/bin/"
cp "$build/lib/libsigreg_aot.so" "$root/.gpu/rt/lib/"
for s in "${sets[@]}"; do
  rm -rf "$root/.gpu/$s"
  PIPES=fused bash "$root/scripts/build-gpu-artifacts.sh" "$build" "$root/.gpu/$s" "$s" | tail -1
done
du -sh "$root/.gpu"
