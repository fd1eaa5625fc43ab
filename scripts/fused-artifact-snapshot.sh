#!/usr/bin/env bash
# Compiles every fused-pipeline AOT configuration of the tests and of
# scripts/build-gpu-artifacts.sh (PTX + manifest.json per configuration) into
# OUT_DIR, so that two compilers' output can be compared byte for byte:
#   scripts/fused-artifact-snapshot.sh BUILD_DIR OUT_DIR
#   diff -r -x '*.log' OLD_OUT_DIR NEW_OUT_DIR
# Sets of build-gpu-artifacts.sh run with PIPES=fused (configurations that ask
# for both pipelines also keep the naive one); the sigreg-run lit
# configurations (test/Tools/sigreg-run, test/Integration/GPU) are listed
# below with their flags; OUT_DIR/host has the whole module after
# --sigreg-gpu-pipeline (format=none) for the lowering's lit inputs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?build dir}; out=${2:?output dir}
run="$build/bin/sigreg-run"
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
mkdir -p "$out/lit"

for set_ in all training small-shapes p65; do
  PIPES=fused bash "$root/scripts/build-gpu-artifacts.sh" "$build" \
    "$out/sets/$set_" "$set_" > "$out/sets-$set_.log"
done

# lit NAME FILE FLAGS...: one sigreg-run configuration of a lit test.
lit() {
  local name=$1 file=$2
  shift 2
  "$run" "$root/$file" --target=cuda --compile-only --pipeline=fused \
    --emit-artifact="$out/lit/$name" "$@" > "$out/lit/$name.log" 2>&1 || {
    cat "$out/lit/$name.log"; echo "FAILED: $name"; exit 1; }
}
t=test/Tools/sigreg-run
lit backward $t/compile-only-backward.mlir --shape=3x1000x200 --save-slices=false
lit backward-slices $t/compile-only-backward.mlir --shape=3x1000x200
lit single-launch $t/compile-only-single-launch.mlir --shape=32x2048
lit spill $t/compile-only-spill.mlir --single-launch=0
lit wgmma-split $t/compile-only-wgmma-split.mlir --shape=3x1000x200
lit wgmma $t/compile-only-wgmma.mlir --shape=3x1000x200
lit wgmma-persistent $t/compile-only-wgmma.mlir --shape=3x1000x200 --wgmma-persistent
lit compile-only $t/compile-only.mlir --single-launch=0 --shape=150x129
lit entry-points $t/entry-points.mlir
lit ecf-backward-entry $t/Inputs/ecf-backward-entry.mlir
lit ecf-entry-per-slice $t/Inputs/ecf-entry-per-slice.mlir
g=test/Integration/GPU/pipelines.mlir
lit views $g --single-launch=0 --entry=views
lit views-single $g --entry=views
lit dynamic $g --single-launch=0 --entry=dynamic --shape=1000x129
lit mma $g --single-launch=0 --entry=mma
lit mma-all $g --entry=mma
lit mma-simt $g --single-launch=0 --entry=mma --tensor-cores=false
lit mma-explicit $g --single-launch=0 --entry=mma_explicit
lit wgmma-entry $g --entry=wgmma
lit wgmma-none $g --entry=wgmma_none
lit blog examples/sigreg-blog.mlir
# The whole module after --sigreg-gpu-pipeline (host code and NVVM kernels, no
# serialization) for the lit inputs of the lowering and the pipelines, on
# sm_80 and sm_90a; a failing input keeps its diagnostics.
mkdir -p "$out/host"
for f in "$root"/test/Conversion/SigregToGPU/*.mlir \
         "$root"/test/Pipelines/gpu-pipeline*.mlir "$root"/examples/*.mlir; do
  for chip in sm_80 sm_90a; do
    "$build/bin/sigreg-opt" "$f" --split-input-file \
      --sigreg-gpu-pipeline="format=none chip=$chip" \
      > "$out/host/$(basename "$f" .mlir).$chip.mlir" 2>&1 || true
  done
done
echo "$(find "$out" -name manifest.json | wc -l) manifests in $out"
