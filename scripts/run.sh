#!/usr/bin/env bash
# The main job: set up, build, then compile the shipped example (or the .mlir
# given as first argument) with sigreg-run, run it on the GPU when one is
# present (else on the CPU), validate it against the float64 reference and
# time it. Extra arguments go to sigreg-run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh" > /dev/null
input="$root/examples/sigreg-blog.mlir"
if [ $# -gt 0 ] && [[ "$1" == *.mlir ]]; then input=$1; shift; fi
exec "${BUILD_DIR:-$root/build}/bin/sigreg-run" "$input" --bench "$@"
