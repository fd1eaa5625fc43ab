#!/usr/bin/env bash
# Here (MLIR): the single launch's A/B artifacts for scripts/gpu-calls/call-single.sh in
# .gpu/singleab: NAME compiled by this build, base-NAME by BASE_RUN, the sigreg-run of an
# earlier commit's build (docs/PERF-NOTES.md, twenty-second session: 1b8a104, e.g.
#   git worktree add /tmp/wt-base 1b8a104 && cmake -G Ninja -S /tmp/wt-base -B /tmp/wt-base/build
#   -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir -DCMAKE_BUILD_TYPE=Release && ninja -C
#   /tmp/wt-base/build bin/sigreg-run).
# Usage: scripts/gpu-calls/pack-single-ab.sh BASE_RUN
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd); cd "$root"
base=${1:?usage: pack-single-ab.sh BASE_RUN}
out=.gpu/singleab; src=$(mktemp -d)
rm -rf "$out"; mkdir -p "$out"
loss() { # FILE V N D S P DTYPE REDUCTION: a seeded loss (V 0: no views)
  local xt
  if [ "$2" = 0 ]; then xt="tensor<${3}x${4}x${7}>"; else xt="tensor<${2}x${3}x${4}x${7}>"; fi
  cat > "$1" <<MLIR
func.func @sigreg(%x: ${xt}, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = ${5} points = ${6} reduction = ${8} : ${xt} -> tensor<f32>
  return %l : tensor<f32>
}
MLIR
}
emit() { # RUN NAME SOURCE
  "$1" "$3" --target=cuda --compile-only --pipeline=fused --emit-artifact="$out/$2" \
    > "$out/$2.compile.log" 2>&1
  cp "$3" "$out/$2/source.mlir"
}
for shape in "blog-bf16 0 32 2048 1024 17 bf16 mean" "minimal-bf16 4 256 16 256 17 bf16 mean" \
    "slm-n256-d1024-sum 0 256 1024 256 17 bf16 sum" "views-ragged-f16 3 40 1000 300 9 f16 mean"; do
  set -- $shape
  loss "$src/$1.mlir" "$2" "$3" "$4" "$5" "$6" "$7" "$8"
  emit build/bin/sigreg-run "$1" "$src/$1.mlir"
  emit "$base" "base-$1" "$src/$1.mlir"
done
du -sh "$out"
