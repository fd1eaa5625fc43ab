#!/usr/bin/env bash
# Here (MLIR), after scripts/build.sh and scripts/gpu-pack.sh (its perslice set): the artifacts
# scripts/gpu-calls/call-promote128.sh carries in .gpun/pw (add `/.gpun/` to .git/info/exclude).
# NAME: the 128 x 64 promoted tile (the rule's), w-NAME: the 128 x 128 one on request.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd); cd "$root"
run=build/bin/sigreg-run; out=.gpun/pw; src=$(mktemp -d)
rm -rf "$out"; mkdir -p "$out"
emit() { # NAME SOURCE FLAGS...
  local name=$1 source=$2; shift 2
  "$run" "$source" --target=cuda --compile-only --pipeline=fused --emit-artifact="$out/$name" "$@" \
    > "$out/$name.compile.log" 2>&1
  cp "$source" "$out/$name/source.mlir"
}
loss() { # FILE N D S: per-slice statistics of x [N, D] bf16 on S slices, P = 17
  cat > "$1" <<MLIR
func.func @sigreg(%x: tensor<$2x$3xbf16>, %seed: i64) -> tensor<$4xf32> {
  %l = sigreg.loss %x seed(%seed) slices = $4 points = 17 reduction = none : tensor<$2x$3xbf16> -> tensor<$4xf32>
  return %l : tensor<$4xf32>
}
MLIR
}
for d in 1024 4096; do
  loss "$src/d$d.mlir" 8192 $d 1024
  emit d$d "$src/d$d.mlir" --promote-accumulators=4
  emit w-d$d "$src/d$d.mlir" --promote-accumulators=4 --wgmma-slices=128
done
loss "$src/ragged.mlir" 8100 4000 1000
emit ragged "$src/ragged.mlir"
emit w-ragged "$src/ragged.mlir" --promote-accumulators=4 --wgmma-slices=128
loss "$src/small.mlir" 300 200 200
emit w-small "$src/small.mlir" --promote-accumulators=4 --wgmma-slices=128 --single-launch=0
du -sh "$out"
