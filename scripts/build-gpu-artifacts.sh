#!/usr/bin/env bash
# Compiles the GPU validation and benchmark configurations to AOT artifacts
# (manifest.json + sigreg.ptx per pipeline) with sigreg-run --compile-only,
# so that the GPU machine, which has no MLIR, runs them with sigreg-aot-run
# (scripts/gpu-check.sh). Usage: scripts/build-gpu-artifacts.sh BUILD_DIR OUT_DIR [SET]
#   SET: all (default: anchors, variants, hopper, split, single, grad, step, phased and random) | anchors |
#        quick | hopper | split | training | grad | grad-fused | step | phased | device-step | tail-sums | finalize-loss |
#        single | random | variants | small-shapes | pingpong | transposed | tpersistent | generate |
#        cooperative | samebench | probe24 | stagger | fragment | stepgroup | stepgroup25 | probe25 | probe26 |
#        staggerfast | warps16 | warps4 | perslice | ftz27 | stage27 | cluster28 | minctasm30 | minctasm30b | minctasm30f |
#        stat32 | stat32-timed | fn32 | sines32 | tail34 | warps16b34 | transposed34 | tma36 | ahead37 | ahead37b | rule37 | step37 | floor41 |
#        p65 (P = 65 per-slice f16 on every ECF kernel)
# random: RANDOM_COUNT (default 60) problems from the seeded generator below (RANDOM_SEED,
# default 11): ragged sizes, D from 1, N up to a few thousand, every dtype, clip mode,
# reduction and both projection kinds, each compiled for both pipelines as random-NNN.
set -euo pipefail
build=${1:?build dir}; out=${2:?output dir}; set_=${3:-all}
run="$build/bin/sigreg-run"
mkdir -p "$out"
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT

# seed_or_projection PROJ D S DTYPE: the entry's second argument (arg2), its use by the loss
# (projuse) and the lines before the loss (prelude): PROJ seed (an i64), step (the seed read
# from a step counter in device memory, sigreg.advance_step) or explicit (A [D, S]).
seed_or_projection() {
  prelude=""
  case "$1" in
    seed) arg2="%seed: i64"; projuse="seed(%seed)" ;;
    step) arg2="%step: memref<i64>"; projuse="seed(%seed)"
          prelude="  %seed = sigreg.advance_step %step : memref<i64>" ;;
    *) arg2="%a: tensor<${2}x${3}x${4}>"; projuse="projection(%a : tensor<${2}x${3}x${4}>)" ;;
  esac
}

# emit NAME V N D S P DTYPE CLIP CLIPVAL REDUCTION PROJ [PIPELINES] [FLAGS]
# (PREFIX and EXTRA in the environment, for emit and emit_grad alike: a prefix of NAME and
# flags added to FLAGS, so that a set can be emitted again as a variant.)
emit() {
  local name=${PREFIX:-}$1 V=$2 N=$3 D=$4 S=$5 P=$6 dt=$7 clip=$8 cv=$9 red=${10} proj=${11}
  local pipes=${12:-${PIPES:-both}}
  local extra="${13:-} ${EXTRA:-}"
  local xt rt clipattr="" arg2 projuse prelude
  if [ "$V" = 0 ]; then xt="tensor<${N}x${D}x${dt}>"; else xt="tensor<${V}x${N}x${D}x${dt}>"; fi
  if [ "$red" = none ]; then
    if [ "$V" = 0 ]; then rt="tensor<${S}xf32>"; else rt="tensor<${V}x${S}xf32>"; fi
  else rt="tensor<f32>"; fi
  [ "$clip" != none ] && clipattr="clip = ${clip}(${cv})"
  seed_or_projection "$proj" "$D" "$S" "$dt"
  cat > "$src/$name.mlir" <<MLIR
func.func @sigreg(%x: ${xt}, ${arg2}) -> ${rt} {
${prelude}
  %l = sigreg.loss %x ${projuse} slices = ${S} points = ${P} ${clipattr} reduction = ${red} : ${xt} -> ${rt}
  return %l : ${rt}
}
MLIR
  "$run" "$src/$name.mlir" --target=cuda --compile-only --pipeline="$pipes" \
    --emit-artifact="$out/$name" $extra > "$out/$name.compile.log" 2>&1 || {
    cat "$out/$name.compile.log"; echo "FAILED to compile $name"; exit 1; }
  cp "$src/$name.mlir" "$out/$name/source.mlir"
  # Clipping can hide a wrong statistic (issue 11): every clipped configuration also gets a
  # NAME-unclipped twin, clip none and reduction none, so that gpu-check.sh compares each
  # unclipped per-slice statistic with the reference.
  if [ "$clip" != none ]; then
    PREFIX="" EXTRA="" emit "$name-unclipped" "$V" "$N" "$D" "$S" "$P" "$dt" none 0 none "$proj" \
      "$pipes" "$extra"
  fi
}

# emit_grad NAME V N D S P DTYPE CLIP CLIPVAL REDUCTION PROJ [PIPES]: the gradient
# dL/dx (sigreg.loss_grad) of the same problem, through PIPES (naive, the
# default, fused or both; the fused backward needs bf16/f16 and D, S multiples
# of 8); validated against the float64 reference gradient.
emit_grad() {
  local name=${PREFIX:-}$1 V=$2 N=$3 D=$4 S=$5 P=$6 dt=$7 clip=$8 cv=$9 red=${10} proj=${11}
  local pipes=${12:-naive}
  local extra="${13:-} ${EXTRA:-}"
  local xt gt dxt clipattr="" arg2 projuse prelude
  if [ "$V" = 0 ]; then xt="tensor<${N}x${D}x${dt}>"; dxt="tensor<${N}x${D}xf32>"
  else xt="tensor<${V}x${N}x${D}x${dt}>"; dxt="tensor<${V}x${N}x${D}xf32>"; fi
  if [ "$red" = none ]; then
    if [ "$V" = 0 ]; then gt="tensor<${S}xf32>"; else gt="tensor<${V}x${S}xf32>"; fi
  else gt="tensor<f32>"; fi
  [ "$clip" != none ] && clipattr="clip = ${clip}(${cv})"
  seed_or_projection "$proj" "$D" "$S" "$dt"
  local knobs="slices = ${S} points = ${P} ${clipattr} reduction = ${red}"
  if [ -n "${PHASED:-}" ]; then
    # dL/dx rounded to x's type, the cotangent deferred to the backward GEMM.
    cat > "$src/$name.mlir" <<MLIR
func.func @sigreg(%x: ${xt}, ${arg2}, %g: ${gt}) -> (${gt}, ${xt}) {
${prelude}
  %l = sigreg.loss %x ${projuse} ${knobs} : ${xt} -> ${gt}
  %dx = sigreg.loss_grad %x ${projuse} grad(%g : ${gt}) ${knobs} : ${xt} -> ${dxt}
  %r = arith.truncf %dx : ${dxt} to ${xt}
  return %l, %r : ${gt}, ${xt}
}
MLIR
    extra="$extra --defer-cotangent"
  elif [ -n "${STEP:-}" ]; then
    cat > "$src/$name.mlir" <<MLIR
func.func @sigreg(%x: ${xt}, ${arg2}, %g: ${gt}) -> (${gt}, ${dxt}) {
${prelude}
  %l = sigreg.loss %x ${projuse} ${knobs} : ${xt} -> ${gt}
  %dx = sigreg.loss_grad %x ${projuse} grad(%g : ${gt}) ${knobs} : ${xt} -> ${dxt}
  return %l, %dx : ${gt}, ${dxt}
}
MLIR
  else
    cat > "$src/$name.mlir" <<MLIR
func.func @sigreg(%x: ${xt}, ${arg2}, %g: ${gt}) -> ${dxt} {
${prelude}
  %dx = sigreg.loss_grad %x ${projuse} grad(%g : ${gt}) ${knobs} : ${xt} -> ${dxt}
  return %dx : ${dxt}
}
MLIR
  fi
  "$run" "$src/$name.mlir" --target=cuda --compile-only --pipeline="$pipes" \
    --emit-artifact="$out/$name" $extra > "$out/$name.compile.log" 2>&1 || {
    cat "$out/$name.compile.log"; echo "FAILED to compile $name"; exit 1; }
  cp "$src/$name.mlir" "$out/$name/source.mlir"
}

# The gradient (issue 10): ragged shapes, every dtype, clip mode and
# reduction, both projection kinds, and the blog and minimal anchors.
grad() {
  emit_grad grad-ragged-f32 3 37 129 77 9 f32 none 0 mean seed
  emit_grad grad-ragged-bf16-clamp-none 0 37 129 77 9 bf16 clamp_min 0.7 none explicit
  emit_grad grad-small-f16-zero-sum 2 41 33 29 17 f16 zero_below 0.9 sum seed
  emit_grad grad-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed
  emit_grad grad-minimal-f32 4 256 16 256 17 f32 none 0 mean seed
  emit_grad grad-n300-f32-explicit 0 300 200 100 5 f32 clamp_min 0.5 sum explicit
}

# The fused GPU backward (issue 10): the anchors it applies to, views, ragged
# N, every clip mode and reduction, both projection kinds, P from 3 to 33;
# both pipelines, so that one run times the fused against the naive backward.
grad_fused() {
  emit_grad gradf-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed both
  emit_grad gradf-mid-bf16 0 1024 1024 1024 17 bf16 none 0 mean seed both
  emit_grad gradf-minimal-bf16 4 256 16 256 17 bf16 none 0 mean seed both
  emit_grad gradf-large-bf16 0 8192 4096 4096 17 bf16 none 0 mean seed fused
  emit_grad gradf-views-f16-zero-sum 3 37 136 72 9 f16 zero_below 0.9 sum seed both
  emit_grad gradf-explicit-clamp-none 0 300 200 104 5 bf16 clamp_min 0.5 none explicit both
  emit_grad gradf-p33-views-bf16 2 513 264 392 33 bf16 none 0 mean seed both
  emit_grad gradf-p3-f16-explicit 0 1000 64 128 3 f16 none 0 sum explicit both
  emit_grad gradf-n8192-d512-bf16 0 8192 512 1024 17 bf16 none 0 mean seed both
  # Per-slice on [N, D] at N <= 256: the single-launch step reads the [S] cotangent's
  # reshape (it did not compile before the twenty-third session: the reshape came after the
  # forward); seeded, and a clip.
  emit_grad gradf-n96-none-bf16 0 96 64 48 17 bf16 none 0 none seed both
  emit_grad gradf-n200-zero-none-f16 0 200 136 40 9 f16 zero_below 0.8 none seed both
  # A step whose Hopper forward splits g into hi + lo parts (small S at a large N / D) and
  # whose backward reads the split's first D rows (compiled since the twenty-third session).
  emit_step gradf-step-n300-d72-s48-bf16 0 300 72 48 17 bf16 none 0 mean seed fused
  emit_phased gradf-phased-n300-d72-s48-bf16 0 300 72 48 17 bf16 none 0 mean seed fused
  # y recomputed by the backward (--save-slices=false) against the forward's saved
  # slices (the default, --sigreg-save-slices), side by side.
  emit_grad gradf-large-bf16-recompute 0 8192 4096 4096 17 bf16 none 0 mean seed fused --save-slices=false
  emit_grad gradf-mid-bf16-recompute 0 1024 1024 1024 17 bf16 none 0 mean seed fused --save-slices=false
  emit_grad gradf-blog-bf16-recompute 0 32 2048 1024 17 bf16 none 0 mean seed fused --save-slices=false
  # With clamp_min(1.0) slices whose statistic lies within the 16-bit rounding of the
  # threshold flip between clamped and not: the validation allows each such slice's
  # term of dL/dx (referenceGradient's flipNorms; docs/BACKWARD.md).
  emit_grad gradf-w128-views-bf16 3 1000 1000 2000 17 bf16 none 0 mean seed fused
  emit_grad gradf-w128-views-bf16-clamp 3 1000 1000 2000 17 bf16 clamp_min 1.0 mean seed fused
  emit_grad gradf-w128-views-bf16-clamp-recompute 3 1000 1000 2000 17 bf16 clamp_min 1.0 mean seed fused --save-slices=false
  # The saved slices as y's 16-bit phase (the default for 16-bit inputs) against y in f32
  # (--slices-phase=false), side by side; the phase at P = 65 (harmonic 64: 64 x 4.8e-5 rad).
  emit_grad gradf-large-bf16-yf32 0 8192 4096 4096 17 bf16 none 0 mean seed fused --slices-phase=false
  emit_grad gradf-mid-bf16-yf32 0 1024 1024 1024 17 bf16 none 0 mean seed fused --slices-phase=false
  emit_grad gradf-p65-f16 2 600 264 392 65 f16 none 0 mean seed fused
  emit_grad gradf-p65-f16-yf32 2 600 264 392 65 f16 none 0 mean seed fused --slices-phase=false
}

# emit_step NAME ...: emit_grad's arguments; a training step, the loss and dL/dx returned by
# one function (one forward for both), validated against both references.
emit_step() { STEP=1 emit_grad "$@"; }
# emit_phased NAME ...: the same, in two phases (docs/AOT.md): dL/dx in x's dtype, the
# loss's cotangent read only by the backward GEMM (--defer-cotangent); scalar losses.
emit_phased() { PHASED=1 emit_grad "$@"; }

# The phased step: the step set's scalar losses.
single_launch_phased() {
  emit_phased phased-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused
  emit_phased phased-minimal-bf16 4 256 16 256 17 bf16 none 0 mean seed fused
}
phased_set() {
  single_launch_phased
  emit_phased phased-mid-bf16 0 1024 1024 1024 17 bf16 none 0 mean seed fused
  emit_phased phased-large-bf16 0 8192 4096 4096 17 bf16 none 0 mean seed fused
  emit_phased phased-views-f16-zero-sum 3 37 136 72 9 f16 zero_below 0.9 sum seed fused
  emit_phased phased-ragged-views-bf16 3 1000 1000 2000 17 bf16 none 0 mean seed fused
  emit_phased phased-p33-views-bf16 2 513 264 392 33 bf16 none 0 sum seed fused
  emit_phased phased-train-bf16 0 256 256 256 17 bf16 none 0 mean seed fused
  emit_phased phased-ragged-small-bf16 2 100 200 104 17 bf16 none 0 mean seed fused
  emit_phased phased-n129-p33-f16-clamp 0 129 520 136 33 f16 clamp_min 0.3 mean seed fused
  emit_phased phased-blog-bf16-hopper 0 32 2048 1024 17 bf16 none 0 mean seed fused --single-launch=0
  # The backward GEMM in row parts with G inside dL/dx's allocation ("shares"): ragged row
  # tiles (63 -> 16 + 16 + 16 + 15), D > S (the last part sets the offset), views.
  emit_phased phased-parts-ragged-bf16 0 8000 2304 1032 17 bf16 none 0 mean seed fused
  emit_phased phased-parts-views-f16 2 4100 2304 1032 17 f16 zero_below 0.5 sum seed fused
  # The saved slices as y in f32 (--slices-phase=false) beside the 16-bit phase (the default).
  emit_phased phased-large-bf16-yf32 0 8192 4096 4096 17 bf16 none 0 mean seed fused --slices-phase=false
  emit_phased phased-mid-bf16-yf32 0 1024 1024 1024 17 bf16 none 0 mean seed fused --slices-phase=false
}

# The training step (issue 10): the anchors, views, ragged N, every clip mode and
# reduction, both projection kinds, P from 5 to 33, through the fused pipeline.
# The steps that take the single launch (N <= 256): the anchors, train-sized, ragged N and D
# (D % 16 != 0), P = 33 with clamp_min, views.
single_launch_steps() {
  emit_step step-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused
  emit_step step-minimal-bf16 4 256 16 256 17 bf16 none 0 mean seed fused
  emit_step step-train-bf16 0 256 256 256 17 bf16 none 0 mean seed fused
  emit_step step-ragged-small-bf16 2 100 200 104 17 bf16 none 0 mean seed fused
  emit_step step-n129-p33-f16-clamp 0 129 520 136 33 f16 clamp_min 0.3 mean seed fused
}
step_set() {
  single_launch_steps
  emit_step step-mid-bf16 0 1024 1024 1024 17 bf16 none 0 mean seed fused
  emit_step step-large-bf16 0 8192 4096 4096 17 bf16 none 0 mean seed fused
  emit_step step-views-f16-zero-sum 3 37 136 72 9 f16 zero_below 0.9 sum seed fused
  emit_step step-explicit-clamp-none 0 300 200 104 5 bf16 clamp_min 0.5 none explicit fused
  emit_step step-ragged-views-bf16 3 1000 1000 2000 17 bf16 none 0 mean seed fused
  emit_step step-p33-views-bf16 2 513 264 392 33 bf16 none 0 sum seed fused
  # The step in two launches (the single launch writes G and g, then the backward
  # GEMM, single_launch_steps above) beside twins on the Hopper forward
  # (--single-launch=0: projection, forward with the slices, dL/dy, GEMM).
  emit_step step-blog-bf16-hopper 0 32 2048 1024 17 bf16 none 0 mean seed fused --single-launch=0
  emit_step step-minimal-bf16-hopper 4 256 16 256 17 bf16 none 0 mean seed fused --single-launch=0
  emit_step step-train-bf16-hopper 0 256 256 256 17 bf16 none 0 mean seed fused --single-launch=0
}

# The anchor configurations (docs/CONTRACT.md section 4; mean, no clip), bf16, f32.
anchors() {
  for dt in bf16 f32; do
    emit blog-$dt 0 32 2048 1024 17 $dt none 0 mean seed
    emit minimal-$dt 4 256 16 256 17 $dt none 0 mean seed
    emit mid-$dt 0 1024 1024 1024 17 $dt none 0 mean seed
    emit large-$dt 0 8192 4096 4096 17 $dt none 0 mean seed
  done
}
# Clip modes, reductions, explicit projection, ragged shapes.
variants() {
  emit ragged-bf16-clamp 3 37 129 77 9 bf16 clamp_min 1.0 mean seed
  emit ragged-f32-zero-none 3 37 129 77 9 f32 zero_below 1.0 none seed
  emit ragged-f16-explicit-sum 0 37 129 77 33 f16 none 0 sum explicit
  emit ragged-f32-p3 0 37 129 77 3 f32 clamp_min 0.5 none explicit
  emit n1000-bf16-zero 0 1000 1000 1000 17 bf16 zero_below 1.0 mean seed
  emit n1000-f32-none 0 1000 1000 1000 17 f32 none 0 none seed
  emit blog-bf16-clamp-none 0 32 2048 1024 17 bf16 clamp_min 1.0 none seed
  emit mid-f32-zero 0 1024 1024 1024 17 f32 zero_below 1.0 mean explicit
  emit minimal-bf16-none 4 256 16 256 17 bf16 none 0 none seed
  emit ragged-bf16-mma 4 700 129 333 9 bf16 clamp_min 1.0 none seed fused
  emit ragged-f16-mma-explicit 0 2500 200 333 17 f16 none 0 mean explicit fused
  # The SIMT kernel at the shapes where the cost rule picks tensor cores.
  emit mid-bf16-simt 0 1024 1024 1024 17 bf16 none 0 mean seed fused --tensor-cores=false
  emit large-bf16-simt 0 8192 4096 4096 17 bf16 none 0 mean seed fused --tensor-cores=false
}
# The Hopper kernel (TMA + wgmma, sm_90a): the large anchor against the
# mma.sync kernel (--chip=sm_90), an explicit projection, ragged shapes (N not
# a multiple of 128, D of 64, S of 256), views, f16, every clip mode, P = 33.
hopper() {
  emit large-bf16 0 8192 4096 4096 17 bf16 none 0 mean seed fused
  emit large-bf16-mma 0 8192 4096 4096 17 bf16 none 0 mean seed fused --chip=sm_90
  emit large-bf16-explicit 0 8192 4096 4096 17 bf16 none 0 mean explicit fused
  emit wg-ragged-views 3 1000 1000 2000 17 bf16 none 0 mean seed fused
  emit wg-f16-clamp-sum 0 4100 520 1032 17 f16 clamp_min 1.0 sum seed fused
  emit wg-p33-zero-explicit 0 4096 256 2048 33 bf16 zero_below 1.0 mean explicit fused
  emit wg-views-none-explicit 2 3000 1024 2048 9 bf16 none 0 none explicit fused
  # The 128-slice tile (two CTAs per multiprocessor).
  emit large-bf16-w128 0 8192 4096 4096 17 bf16 none 0 mean seed fused --wgmma-slices=128
  emit wg128-ragged-views 3 1000 1000 2000 17 bf16 none 0 mean seed fused --wgmma-slices=128
  emit wg128-f16-clamp-sum 0 4100 520 1032 33 f16 clamp_min 1.0 sum seed fused --wgmma-slices=128
  # The 64-slice tile (chosen where 128-slice tiles would not fill the SMs: mid) and the
  # kernel's tail: the finalize folded in for 2..16 batch tiles, the epilogue with it
  # (one launch after the projection); P = 65 fills the tail's part sums buffer; 17 batch
  # tiles keep the finalize kernel; one batch tile (N <= 128) folds the epilogue alone.
  emit mid-bf16-w128 0 1024 1024 1024 17 bf16 none 0 mean seed fused --wgmma-slices=128
  emit mid-bf16-w256 0 1024 1024 1024 17 bf16 none 0 mean seed fused --wgmma-slices=256
  emit wg64-views-clamp-none 3 1000 1000 2000 17 bf16 clamp_min 1.0 none seed fused --wgmma-slices=64
  emit wg64-f16-p65-zero-sum 0 1000 520 1032 65 f16 zero_below 1.0 sum seed fused --wgmma-slices=64
  emit wg64-views-none-explicit 2 300 1024 600 9 bf16 none 0 none explicit fused
  emit wg-t16-mean 0 2048 256 1024 17 bf16 none 0 mean seed fused
  emit wg-t17-sum 0 2100 256 1024 17 bf16 none 0 sum seed fused
  emit wg-n100-tail-clamp 0 100 520 1032 17 bf16 clamp_min 0.5 mean seed fused --single-launch=0
  emit wg-n100-tail-none 2 100 520 1032 9 f16 none 0 none explicit fused --single-launch=0
  # The ping-pong kernel (--wgmma-persistent; more in the pingpong set): those it cannot take
  # (views with N % 128 != 0, P > 25) fall back to the one-tile kernel; D = 1000 and 520 end in
  # partial k-tiles, N = 4100 and 20000 have odd batch tiles (no pairs).
  emit large-bf16-persist 0 8192 4096 4096 17 bf16 none 0 mean seed fused --wgmma-persistent
  emit large-bf16-explicit-persist 0 8192 4096 4096 17 bf16 none 0 mean explicit fused --wgmma-persistent
  emit wgp-ragged-views 3 1000 1000 2000 17 bf16 none 0 mean seed fused --wgmma-persistent
  emit wgp-f16-clamp-sum 0 4100 520 1032 9 f16 clamp_min 1.0 sum seed fused --wgmma-persistent
  emit wgp-views-none-explicit 2 3000 1024 2048 9 bf16 none 0 none explicit fused --wgmma-persistent
  emit wgp-d64-explicit 0 20000 64 4096 5 bf16 none 0 mean explicit fused --wgmma-persistent
  emit wgp-p33-zero-explicit 0 4096 256 2048 33 bf16 zero_below 1.0 mean explicit fused --wgmma-persistent
  emit wgp-n100-none 0 100 520 1032 17 bf16 none 0 none seed fused "--wgmma-persistent --wgmma-slices=256"
}
# The Hopper kernel on split operands (wgmmaSplitsInput): f32 problems as bf16 hi + lo
# parts (three segments of the reduction; x split by sigreg_split_operand, g generated as
# hi and lo rows), 16-bit problems whose statistics need g's f32 accuracy (per-slice,
# or a rounded error above the budget) with g split (two segments). Side by side with
# the kernels they replace (--chip=sm_90: the SIMT kernel for f32, mma.sync for bf16).
# Not in the set: per-slice bf16 statistics at N = 8192 (large, reduction none) miss the
# 2e-3 tolerance on both tensor-core kernels (mma.sync 2.6e-3, wgmma 3.7e-3 on the H200,
# docs/STATUS.md); f32 per-slice statistics stay on the SIMT kernel (n1000-f32-none,
# wgf-views-none-explicit check that they do).
split_set() {
  emit large-f32 0 8192 4096 4096 17 f32 none 0 mean seed fused
  emit large-f32-simt 0 8192 4096 4096 17 f32 none 0 mean seed fused --chip=sm_90
  emit mid-f32 0 1024 1024 1024 17 f32 none 0 mean seed fused
  emit mid-f32-simt 0 1024 1024 1024 17 f32 none 0 mean seed fused --chip=sm_90
  emit mid-f32-zero 0 1024 1024 1024 17 f32 zero_below 1.0 mean explicit fused
  emit n1000-f32-none 0 1000 1000 1000 17 f32 none 0 none seed fused
  emit wgf-ragged-views 3 1000 1001 2000 17 f32 none 0 mean seed fused
  emit wgf-views-none-explicit 2 3000 100 2048 9 f32 none 0 none explicit fused
  emit wgf-d3-clamp-sum 0 2048 3 64 17 f32 clamp_min 0.5 sum seed fused
  emit wgf128-p33-clamp-sum 0 4100 520 1032 33 f32 clamp_min 1.0 sum seed fused --wgmma-slices=128
  emit wgf-persist 0 8192 4096 4096 17 f32 none 0 mean seed fused --wgmma-persistent
  emit wgf-d4096-s8192-views 2 4096 4096 8192 17 f32 none 0 mean seed fused
  emit wgs-mid-none 0 1024 1024 1024 17 bf16 none 0 none seed fused
  emit wgs-mid-none-mma 0 1024 1024 1024 17 bf16 none 0 none seed fused --chip=sm_90
  emit wgs-views-clamp-none 3 1000 1000 2000 17 bf16 clamp_min 1.0 none seed fused
  emit wgs-f16-none 0 4100 520 1032 9 f16 none 0 none seed fused
  emit wgs-small-d-sum 3 2048 8 64 17 bf16 none 0 sum seed fused
}
# Training-like shapes (D >= 2048, S >= 4096, several views) for the same-process comparison
# with PyTorch: python -m sigreg.bench --artifacts DIR --configs large --shape NAME=V,N,D,S,P
# (artifacts named NAME-bf16, as the anchors).
training() {
  emit views2-bf16 2 2048 2048 4096 17 bf16 none 0 mean seed fused
  emit wide-bf16 0 4096 4096 8192 17 bf16 none 0 mean seed fused
  emit views4-bf16 4 1024 2048 4096 17 bf16 none 0 mean seed fused
  emit views8-bf16 8 512 3072 6144 17 bf16 none 0 mean seed fused
}
# Small shapes that are not anchors (N * S <= 2^20, several views, odd sizes), all on the
# single launch, for the same-process comparison with PyTorch (eager + graph, torch.compile
# with mode reduce-overhead): python -m sigreg.bench --artifacts DIR --configs blog
# --shape NAME=V,N,D,S,P (artifacts NAME-bf16).
small_shapes() {
  emit views2-n64-bf16 2 64 768 512 17 bf16 none 0 mean seed fused
  emit n128-d1024-bf16 0 128 1024 1024 17 bf16 none 0 mean seed fused
  emit views8-n16-bf16 8 16 384 256 17 bf16 none 0 mean seed fused
  emit odd-v3-n100-bf16 3 100 500 300 9 bf16 none 0 mean seed fused
}
# The seeded generator of random problems (issue 11, item 7): prints one line per problem,
# "name V N D S P dtype clip clipval reduction projection" (V = 0: no view dimension).
random_problems() {
  python3 - "${RANDOM_SEED:-11}" "${RANDOM_COUNT:-60}" <<'PY'
import math, random, sys
rng = random.Random(int(sys.argv[1]))
def logu(lo, hi):  # log-uniform integer in [lo, hi]
    return int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))
for i in range(int(sys.argv[2])):
    V = rng.choice([0, 0, 1, 2, 3, 4])
    N = logu(1, 3000)
    D = logu(1, 1100)
    S = logu(1, 1100)
    P = rng.choice([3, 5, 9, 17, 17, 33, 65])
    dt = rng.choice(["bf16", "f16", "f32"])
    clip = rng.choice(["none", "zero_below", "clamp_min"])
    # Low thresholds: some slices stay unclipped, so the check is not vacuous.
    cv = 0 if clip == "none" else rng.choice([0.01, 0.05, 0.1, 0.2])
    red = rng.choice(["mean", "sum", "none"])
    proj = rng.choice(["seed", "explicit"])
    print(f"random-{i:03d} {V} {N} {D} {S} {P} {dt} {clip} {cv} {red} {proj}")
PY
}
random_set() {
  local line
  random_problems > "$out/random-problems.txt"
  while read -r line; do
    # shellcheck disable=SC2086
    emit $line
  done < "$out/random-problems.txt"
}
# The single-launch forward (sigreg_single_launch, usesSingleLaunch): the
# anchors it is picked for and the same shapes on the three-launch path
# (--single-launch=0) side by side, mid forced onto it (--single-launch=2) to
# measure the crossover, and non-anchor shapes: views, odd sizes, P = 3 and
# 33, every dtype, clip mode and reduction, explicit projections, a batch of
# several tiles (the per-column counters).
single() {
  emit blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed
  emit blog-bf16-3launch 0 32 2048 1024 17 bf16 none 0 mean seed fused --single-launch=0
  emit blog-f32 0 32 2048 1024 17 f32 none 0 mean seed fused
  emit minimal-bf16 4 256 16 256 17 bf16 none 0 mean seed
  emit minimal-bf16-3launch 4 256 16 256 17 bf16 none 0 mean seed fused --single-launch=0
  emit minimal-f32 4 256 16 256 17 f32 none 0 mean seed fused
  emit mid-bf16 0 1024 1024 1024 17 bf16 none 0 mean seed fused
  emit mid-bf16-single 0 1024 1024 1024 17 bf16 none 0 mean seed fused --single-launch=2
  emit sl-views-ragged-clamp 3 37 129 77 9 bf16 clamp_min 1.0 mean seed
  emit sl-f32-p3-zero-none 0 50 200 300 3 f32 zero_below 0.5 none seed
  emit sl-f16-p33-explicit-sum 2 100 96 500 33 f16 none 0 sum explicit
  emit sl-f32-explicit-none-views 2 17 33 45 5 f32 clamp_min 0.5 none explicit
  emit sl-bf16-tiles-none 2 600 64 200 17 bf16 clamp_min 0.5 none seed fused --single-launch=2
  emit sl-f16-tiles-mean 0 1000 40 130 33 f16 zero_below 0.5 mean seed fused --single-launch=2
  emit blog-bf16-clamp-none 0 32 2048 1024 17 bf16 clamp_min 1.0 none seed
  # The tensor-core GEMM (projection = rounded or split, bf16/f16 with a seeded g) against
  # the SIMT one (--tensor-cores=false) at the anchors; D % 4 != 0 (scalar x loads), D % 16
  # != 0 (a partial last k step), f16 split (per-slice), 4 k groups x 2 row groups
  # (N = 256, D = 1024), several batch tiles.
  emit blog-bf16-simt 0 32 2048 1024 17 bf16 none 0 mean seed fused --tensor-cores=false
  emit minimal-bf16-simt 4 256 16 256 17 bf16 none 0 mean seed fused --tensor-cores=false
  emit slm-views-d13-clamp 2 45 13 77 9 bf16 clamp_min 0.5 mean seed
  emit slm-f16-d100-none 0 100 100 50 17 f16 none 0 none seed
  emit slm-n256-d1024-sum 0 256 1024 256 17 bf16 none 0 sum seed
  emit slm-tiles-clamp-none 2 600 64 200 17 bf16 clamp_min 0.5 none seed fused --single-launch=2
  emit slm-f16-p33-zero-mean 3 20 300 700 33 f16 zero_below 0.05 mean seed
  # P = 63 per-slice f16: the harmonics' recurrence restarts at p = 17, 33 and 49.
  emit slm-f16-p63-none 0 100 520 300 63 f16 none 0 none seed
  # Long k loops: ragged D (65 steps, one per iteration: no step groups), per-slice f16
  # with the split projection at D 4096.
  emit slw-views-d1032-clamp 2 100 1032 200 17 bf16 clamp_min 0.5 mean seed
  emit slw-f16-n200-d4096-none 0 200 4096 264 9 f16 none 0 none seed
}
# The seed from a step counter in device memory (sigreg.advance_step): the validation checks
# that every run leaves the counter advanced by one and reads the same seed again after it is
# put back (graph replay included). Every kernel that generates the projection, every way the
# forward advances the counter (the single launch's packed loss word, its fenced counter, the
# Hopper kernel's tail, the epilogue kernel after the Hopper, mma.sync and SIMT kernels, a
# launch of its own for per-slice losses), and steps.
# Those of the single launch (its packed loss word; its fenced counter, forced at N = 4096):
single_launch_device_steps() {
  emit ds-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean step fused
  emit ds-minimal-bf16 4 256 16 256 17 bf16 none 0 mean step fused
  emit ds-n200-sum-bf16 0 200 520 136 9 bf16 none 0 sum step fused
  emit ds-views-f32-clamp 3 37 129 77 9 f32 clamp_min 1.0 mean step fused
  emit ds-fenced-bf16 0 4096 16 8192 17 bf16 none 0 mean step fused --single-launch=2
}
device_step_set() {
  single_launch_device_steps
  emit ds-mid-bf16 0 1024 1024 1024 17 bf16 none 0 mean step fused
  emit ds-large-bf16 0 8192 4096 4096 17 bf16 none 0 mean step fused
  emit ds-ragged-none-bf16 2 100 200 104 17 bf16 none 0 none step fused
  emit ds-mid-none-bf16 0 1024 1024 1024 17 bf16 none 0 none step fused
  emit ds-blog-bf16-hopper 0 32 2048 1024 17 bf16 none 0 mean step fused --single-launch=0
  emit ds-ragged-f16-mma 0 1000 520 1032 9 f16 none 0 sum step fused --chip=sm_90
  emit ds-ragged-f32-simt 0 300 129 200 9 f32 none 0 mean step fused "--chip=sm_90 --tensor-cores=false"
  emit_phased ds-phased-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean step fused
  emit_phased ds-phased-minimal-bf16 4 256 16 256 17 bf16 none 0 mean step fused
  emit_phased ds-phased-mid-bf16 0 1024 1024 1024 17 bf16 none 0 mean step fused
  emit_phased ds-phased-large-bf16 0 8192 4096 4096 17 bf16 none 0 mean step fused
  emit_phased ds-phased-ragged-views-bf16 3 1000 1000 2000 17 bf16 none 0 mean step fused
  emit_step ds-step-views-bf16 3 37 136 72 9 bf16 none 0 mean step fused
}
# More than 16 batch tiles on the Hopper kernel (more than its tail gathers), as NAME-PREFIX
# with OPTION: by default (OPTION "") the tiles' sums go to [T, V, P, S] workspaces and
# sigreg_ecf_finalize_loss adds them and runs the epilogue in the launch after the kernel
# (set finalize-loss); with --wgmma-atomic-sums (wgmmaAtomicSums, set tail-sums) the sums go
# through integer atomics in 64-bit fixed point and the kernel's tail runs the finalize and the
# epilogue. Just past the threshold (17 tiles), ragged N and S, views, every reduction and clip,
# f16, f32 (split operands), the steps and the anchors' large.
many_tiles_set() {
  local p=$1 opt=$2
  emit $p-large-bf16 0 8192 4096 4096 17 bf16 none 0 mean seed fused "$opt"
  emit $p-n2100-views-clamp 2 2100 520 1000 17 bf16 clamp_min 0.5 mean seed fused "$opt"
  emit $p-n2049-f16-none 0 2049 264 600 9 f16 none 0 none seed fused "$opt"
  emit $p-n4097-f16-sum 0 4097 136 2000 33 f16 zero_below 0.2 sum step fused "$opt"
  emit $p-n3000-f32 0 3000 200 512 17 f32 none 0 mean seed fused "$opt"
  emit $p-n8192-d512-bf16 0 8192 512 1024 17 bf16 none 0 mean seed fused "$opt"
  emit $p-n2500-s1000-p65-sum 3 2500 136 1000 65 bf16 none 0 sum seed fused "$opt"
  emit_phased $p-phased-large-bf16 0 8192 4096 4096 17 bf16 none 0 mean seed fused "$opt"
  emit_phased $p-phased-n3000-views 2 3000 1000 1032 17 bf16 none 0 sum step fused "$opt"
  emit_grad $p-gradf-n8192-d512-bf16 0 8192 512 1024 17 bf16 none 0 mean seed fused "$opt"
}
# The ping-pong kernel (--wgmma-persistent, kernel = wgmma_persistent): the many-tile
# configurations (those it cannot take fall back to the one-tile kernel: views with
# N % 128 != 0, P > 25), then ragged N, S and D, views, an explicit projection, one k-tile,
# P = 25, one batch tile, f32 on split operands and a wide shape.
pingpong_set() {
  many_tiles_set pp --wgmma-persistent
  emit pp-large-explicit 0 8192 4096 4096 17 bf16 none 0 mean explicit fused --wgmma-persistent
  emit pp-ragged 0 1000 1000 2000 17 bf16 none 0 mean seed fused --wgmma-persistent
  emit pp-views-none-explicit 2 1024 1024 2048 9 bf16 none 0 none explicit fused --wgmma-persistent
  emit pp-d64-explicit 0 20000 64 4096 5 bf16 none 0 mean explicit fused --wgmma-persistent
  emit pp-p25-zero 0 4096 256 2048 25 bf16 zero_below 1.0 mean explicit fused --wgmma-persistent
  emit pp-n100-none 0 100 520 1032 17 bf16 none 0 none seed fused --wgmma-persistent
  emit pp-f32 0 8192 4096 4096 17 f32 none 0 mean seed fused --wgmma-persistent
  emit pp-f16-clamp-sum 0 4100 520 1032 9 f16 clamp_min 1.0 sum seed fused --wgmma-persistent
  emit pp-wide 0 4096 4096 8192 17 bf16 none 0 mean seed fused --wgmma-persistent
}
# The transposed one-tile kernel (--wgmma-rows=256, tile [256, 128]): the many-tile
# configurations (those it cannot take fall back to the 128-row kernel: P > 17, views with
# N % 256 != 0, the slices of a fused backward), then ragged N, S and D (N % 256 != 0 puts
# TMA's zero rows in the last tile), views, an explicit projection, one batch tile, f32 on
# split operands and a wide shape; wide-bf16 and large-bf16 without the option beside them.
transposed_set() {
  many_tiles_set tr --wgmma-rows=256
  emit tr-large-explicit 0 8192 4096 4096 17 bf16 none 0 mean explicit fused --wgmma-rows=256
  emit tr-ragged 0 1000 1000 2000 17 bf16 none 0 mean seed fused --wgmma-rows=256
  emit tr-views-none-explicit 2 1024 1024 2048 9 bf16 none 0 none explicit fused --wgmma-rows=256
  emit tr-d64-explicit 0 20000 64 4096 5 bf16 none 0 mean explicit fused --wgmma-rows=256
  emit tr-n100-none 0 100 520 1032 17 bf16 none 0 none seed fused "--wgmma-rows=256 --single-launch=0"
  emit tr-f16-clamp-sum 0 4100 520 1032 9 f16 clamp_min 1.0 sum seed fused --wgmma-rows=256
  emit tr-f32 0 8192 4096 4096 17 f32 none 0 mean seed fused --wgmma-rows=256
  emit tr-wide 0 4096 4096 8192 17 bf16 none 0 mean seed fused --wgmma-rows=256
  emit tr-views4 4 1024 2048 4096 17 bf16 none 0 mean seed fused --wgmma-rows=256
  emit large-bf16 0 8192 4096 4096 17 bf16 none 0 mean seed fused
  emit wide-bf16 0 4096 4096 8192 17 bf16 none 0 mean seed fused
  emit views4-bf16 4 1024 2048 4096 17 bf16 none 0 mean seed fused
}
# The transposed kernel made persistent (--wgmma-persistent --wgmma-rows=256, kernel =
# wgmma_persistent, tile [256, 128]): the many-tile configurations, ragged N, S and D, views,
# an explicit projection, fewer tiles than multiprocessors, f16, per-slice statistics, the seed
# read from a step counter, a fused gradient;
# then the benchmark shapes, each as tp-NAME beside NAME (the one-tile transposed kernel, or
# whatever the rule gives).
tpersistent_set() {
  local o="--wgmma-persistent --wgmma-rows=256"
  many_tiles_set tp "$o"
  emit tp-ragged 0 1000 1000 2000 17 bf16 none 0 mean seed fused "$o"
  emit tp-views-none-explicit 2 1024 1024 2048 9 bf16 none 0 none explicit fused "$o"
  emit tp-d64-explicit 0 20000 64 4096 5 bf16 none 0 mean explicit fused "$o"
  emit tp-n100-none 0 100 520 1032 17 bf16 none 0 none seed fused "$o --single-launch=0"
  emit tp-f16-clamp-sum 0 4100 520 1032 9 f16 clamp_min 1.0 sum seed fused "$o"
  emit tp-views3-ragged-s 3 1024 1032 1000 17 bf16 none 0 mean seed fused "$o"
  emit tp-n9000-none 0 9000 520 2000 17 bf16 none 0 none seed fused "$o"
  emit tp-ds-mid 0 1024 1024 1024 17 bf16 none 0 mean step fused "$o"
  emit tp-ds-mid-none 0 1024 1024 1024 17 bf16 none 0 none step fused "$o"
  emit_grad tp-gradf-explicit-clamp-none 0 300 200 104 5 bf16 clamp_min 0.5 none explicit fused "$o"
  local shape
  for shape in "large 0 8192 4096 4096" "wide 0 4096 4096 8192" "views2 2 2048 2048 4096" \
      "views4 4 1024 2048 4096" "views8 8 512 3072 6144" "n4096 0 4096 1024 2048" \
      "d512 0 8192 512 1024" "n8192d1024 0 8192 1024 2048" "n16384 0 16384 2048 2048"; do
    set -- $shape
    emit "$1-bf16" "$2" "$3" "$4" "$5" 17 bf16 none 0 mean seed fused
    emit "tp-$1-bf16" "$2" "$3" "$4" "$5" 17 bf16 none 0 mean seed fused "$o"
  done
}
# The 64-slice Hopper tile generating its own g tile (--wgmma-generate, projection =
# generated): each shape as NAME (the rule: the projection kernel, then the Hopper kernel)
# and gen-NAME (one launch, clusters by rule), mid also as gen-c4-, gen-c2- and gen-c1-NAME
# (clusters of 4, 2, 1 CTAs), for scripts/gpu-ab.sh --prefix gen- (or gen-c4- ...).
generate_set() {
  local o="--wgmma-generate" shape
  for shape in "mid 1024 1024 1024 17 bf16 none 0 mean" "ragged 1000 512 1000 17 bf16 none 0 mean" \
      "n512-d2048 512 2048 1024 17 bf16 none 0 mean" "f16-sum 1024 1024 520 9 f16 none 0 sum" \
      "clamp 1024 1024 1024 17 bf16 clamp_min 0.5 mean"; do
    set -- $shape
    emit "$1-$6" 0 "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" seed fused
    emit "gen-$1-$6" 0 "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" seed fused "$o"
  done
  for c in 4 2 1; do
    emit "gen-c$c-mid-bf16" 0 1024 1024 1024 17 bf16 none 0 mean seed fused "$o --wgmma-cluster=$c"
  done
}
# The one-tile Hopper kernel whose grid generates g before a grid barrier (--wgmma-cooperative,
# projection = cooperative, a cooperative launch): each shape as NAME (--wgmma-cooperative=0: the
# projection kernel, then the Hopper kernel) and coop-NAME (=1: one launch wherever it can), for
# scripts/gpu-ab.sh --prefix coop-. The rule (-1) takes the one launch where each thread generates
# at most 32 rows (all but n512-d2048 here).
cooperative_set() {
  local o="--wgmma-cooperative=1" two="--wgmma-cooperative=0" shape
  for shape in "mid 0 1024 1024 1024 17 bf16 none 0 mean" "ragged 0 1000 1000 1000 17 bf16 none 0 mean" \
      "n512-d2048 0 512 2048 1024 17 bf16 none 0 mean" "f16-sum 0 1024 1024 520 9 f16 none 0 sum" \
      "clamp 0 1024 1024 1024 17 bf16 clamp_min 0.5 mean" "views 2 512 1024 1024 17 bf16 none 0 mean" \
      "n2048-s2048 0 2048 1024 2048 17 bf16 none 0 mean" "p33-ragged 0 700 520 900 33 f16 zero_below 0.5 mean"; do
    set -- $shape
    emit "$1-$7" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" seed fused "$two"
    emit "coop-$1-$7" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" seed fused "$o"
  done
  # The seed read from a step counter (the module's path): the tail advances it.
  emit mid-step-bf16 0 1024 1024 1024 17 bf16 none 0 mean step fused "$two"
  emit coop-mid-step-bf16 0 1024 1024 1024 17 bf16 none 0 mean step fused "$o"
}
# The single launch's blocks walking their k steps from different first steps
# (--single-launch-stagger=1): NAME (=0, unstaggered) and stg-NAME, for scripts/gpu-ab.sh
# --prefix stg-; blog also as stgf-blog-bf16 with the fast normals besides (the rule's kernel
# at blog since the twenty-fourth session).
stagger_set() {
  local shape
  for shape in "blog-bf16 0 32 2048 1024 17 bf16 none 0 mean" "slm-n256-d1024-sum 0 256 1024 256 17 bf16 none 0 sum" \
      "views-ragged 3 40 1000 300 9 f16 clamp_min 0.5 mean"; do
    set -- $shape
    emit "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" seed fused --single-launch-stagger=0
    emit "stg-$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" seed fused --single-launch-stagger=1
  done
  emit stgf-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused \
    "--single-launch-stagger=1 --single-launch-fast-normals"
}
# The single launch's ECF on the mma.sync accumulators in registers where its GEMM has one k
# group (--single-launch-fragment-ecf=1, D <= 16): NAME (=0, the y tile in shared memory) and
# fe-NAME, for scripts/gpu-ab.sh --prefix fe-; the rule (-1) takes fe- at tiles of 128 rows or more. minimal; masked rows (a ragged batch, a tile of 64 rows
# in 8 warps of 16), 16-slice blocks (two column fragments), per-slice f16 with a clip, several
# batch tiles (single-launch=2), and P = 3 (not applicable: fe- is the rule's kernel).
fragment_set() {
  local shape o=--single-launch-fragment-ecf=1 off=--single-launch-fragment-ecf=0
  for shape in "minimal-bf16 4 256 16 256 17 bf16 none 0 mean" \
      "ragged-f16 0 200 13 150 9 f16 none 0 mean" "views-none 3 40 8 64 17 bf16 none 0 none" \
      "n128-s2048 0 128 16 2048 17 bf16 none 0 sum" \
      "clamp-none-f16 2 256 16 300 5 f16 clamp_min 0.5 none" "p3 0 256 16 256 3 bf16 none 0 mean"; do
    set -- $shape
    emit "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" seed fused "$off"
    emit "fe-$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" seed fused "$o"
  done
  emit tiles-bf16 2 1000 16 64 17 bf16 none 0 mean seed fused "--single-launch=2 $off"
  emit fe-tiles-bf16 2 1000 16 64 17 bf16 none 0 mean seed fused "--single-launch=2 $o"
}
# The single launch's tensor-core k loop with 2 or 8 k steps per iteration instead of the
# rule's 4 (--single-launch-step-group): NAME, sg2-NAME and sg8-NAME, for scripts/gpu-ab.sh
# --prefix sg2- / sg8-. Blog's 4-step loop body is 878 SASS instructions (14 KB): 2 steps halve
# it, 8 double it and put twice the x loads in flight (docs/PERF-NOTES.md, twenty-third session).
stepgroup_set() {
  local shape g
  for shape in "blog-bf16 0 32 2048 1024 17 bf16 none 0 mean" \
      "slm-n256-d1024-sum 0 256 1024 256 17 bf16 none 0 sum"; do
    set -- $shape
    emit "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" seed fused
    for g in 2 8; do
      emit "sg$g-$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" seed fused \
        --single-launch-step-group=$g
    done
  done
}
# The staggered k walk with the fast normals together (stgf-NAME: --single-launch-stagger=1
# --single-launch-fast-normals), which measured blog 12.6 -> 10.9 us (twenty-third session),
# on the timed single-launch anchors and steps: NAME (--single-launch-stagger=0, neither) and
# stgf-NAME, for gpu-ab.sh --prefix stgf-. The rule (-1) takes stgf- at blog's 32-row tile.
staggerfast_set() {
  EXTRA=--single-launch-stagger=0 fast_normals_configs
  EXTRA=--single-launch-stagger=0 emit views-ragged 3 40 1000 300 9 f16 clamp_min 0.5 mean seed
  PREFIX=stgf- EXTRA="--single-launch-stagger=1 --single-launch-fast-normals" fast_normals_configs
  PREFIX=stgf- EXTRA="--single-launch-stagger=1 --single-launch-fast-normals" \
    emit views-ragged 3 40 1000 300 9 f16 clamp_min 0.5 mean seed
  # A 16-row tile (the rule's class, not measured before the rule took it).
  EXTRA=--single-launch-stagger=0 emit views8-n16-bf16 8 16 384 256 17 bf16 none 0 mean seed fused
  PREFIX=stgf- EXTRA="--single-launch-stagger=1 --single-launch-fast-normals" \
    emit views8-n16-bf16 8 16 384 256 17 bf16 none 0 mean seed fused
}
# The single launch in blocks of 16 warps (--single-launch-warps=16, schedule warps = 16):
# the single set, the training steps that take the single launch, and the seed read from a
# step counter (the packed loss word, the fenced counter forced at N = 4096), each as NAME (8
# warps, the rule) and w16-NAME, for scripts/gpu-ab.sh --prefix w16- (and w16f-, f8-: below).
warps16_configs() {
  single
  single_launch_steps
  single_launch_phased
  single_launch_device_steps
}
# Blog's forward, its training step and its device-step forward: the k-loop anchors.
kloop_anchor_configs() {
  emit blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed
  emit_step step-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused
  emit ds-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean step fused
}
# The timed anchors again with the fast normals in the single launch's GEMM
# (--single-launch-fast-normals): with 16 warps as w16f-NAME, with 8 as f8-NAME.
fast_normals_configs() {
  kloop_anchor_configs
  emit minimal-bf16 4 256 16 256 17 bf16 none 0 mean seed
  emit slm-n256-d1024-sum 0 256 1024 256 17 bf16 none 0 sum seed
}
warps16_set() {
  warps16_configs
  PREFIX=w16- EXTRA=--single-launch-warps=16 warps16_configs
  PREFIX=w16f- EXTRA="--single-launch-warps=16 --single-launch-fast-normals" \
    fast_normals_configs
  PREFIX=f8- EXTRA=--single-launch-fast-normals fast_normals_configs
}
# The single launch in blocks of 4 warps (--single-launch-warps=4, schedule warps = 4; thirty-
# third session): the configurations of warps16 as NAME (8 warps, the rule) and w4-NAME, and
# the random set's problems as w4-random-NNN only (ragged shapes for the validation), for
# scripts/gpu-calls/call-w4.sh.
warps4_set() {
  warps16_configs
  PREFIX=w4- EXTRA=--single-launch-warps=4 warps16_configs
  PREFIX=w4- EXTRA=--single-launch-warps=4 random_set
}
# 16 warps at the k-loop shapes again (thirty-fourth session): the twenty-sixth session measured
# --single-launch-warps=16 at blog equal to 8 warps before x was staged in clusters, the k walk
# staggered and the fast normals taken by rule; NAME is the rule (8 warps), w16-NAME 16 warps.
warps16b34_configs() {
  kloop_anchor_configs
  emit sl-n32-d1024 0 32 1024 1024 17 bf16 none 0 mean seed
  emit sl-v8-n16-d384 8 16 384 1024 17 bf16 none 0 mean seed
}
warps16b34_set() {
  warps16b34_configs
  PREFIX=w16- EXTRA=--single-launch-warps=16 warps16b34_configs
}
# The ECF from transposed accumulators (--single-launch-transposed-ecf; thirty-fourth session):
# the shapes whose single launch runs its ECF on the mma.sync accumulators (D <= 16, tiles of
# 128+ rows by rule; forced with --single-launch-fragment-ecf=1 for masked rows and smaller
# tiles), as NAME (the rule) and tr-NAME, for scripts/gpu-calls/call-tr34.sh.
transposed34_configs() {
  emit minimal-bf16 4 256 16 256 17 bf16 none 0 mean seed
  emit minimal-f16 4 256 16 256 17 f16 none 0 mean seed
  emit ds-minimal-bf16 4 256 16 256 17 bf16 none 0 mean step fused
  emit fe-n256-d8-sum 0 256 8 512 17 bf16 none 0 sum seed
  emit fe-n128-p33-none 2 128 16 96 33 f16 none 0 none seed
  emit fe-v8-n160-zero 8 160 16 64 17 bf16 zero_below 0.5 mean seed
  emit fe-n200-d13-clamp 3 200 13 77 9 bf16 clamp_min 0.5 mean seed
  emit fe-n45-d13-forced 2 45 13 77 9 bf16 clamp_min 0.5 mean seed fused \
    --single-launch-fragment-ecf=1
  emit fe-n100-d16-forced 1 100 16 40 5 f16 none 0 none seed fused \
    --single-launch-fragment-ecf=1
  emit fe-n64-forced 0 64 16 128 17 bf16 none 0 mean seed fused --single-launch-fragment-ecf=1
}
transposed34_set() {
  transposed34_configs
  PREFIX=tr- EXTRA=--single-launch-transposed-ecf transposed34_configs
}
# The tail's atomic words prefetched to L2 at the start (--single-launch-prefetch-tail; thirty-
# fourth session): the configurations of warps16 as NAME and pt-NAME, the random set's problems
# as pt-random-NNN, for scripts/gpu-calls/call-pt34.sh.
tail34_set() {
  warps16_configs
  PREFIX=pt- EXTRA=--single-launch-prefetch-tail warps16_configs
  PREFIX=pt- EXTRA=--single-launch-prefetch-tail random_set
}
# x staged by TMA boxes (--single-launch-stage-tma; thirty-sixth session): the one-wave shapes
# (of which a ragged f16 batch is not staged: the option leaves it alone) and the shapes where
# x is staged (clusters of 2 by rule; single blocks and clusters of 4 forced; a training step,
# its phased form, the device step, two views, P 33 f16 with zero_below; every shape of the
# sets whose PTX the option changes), as NAME
# (the rule's bulk copies) and t-NAME (boxes issued by every warp), three as t2-NAME (by
# thread 0), for scripts/gpu-calls/call-tma36.sh.
tma36_configs() {
  one_wave_configs
  emit_phased phased-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused
  emit v2-n32-d2048-bf16 2 32 2048 512 17 bf16 none 0 mean seed fused
  emit n32-d2048-p33-f16 0 32 2048 1024 33 f16 zero_below 0.9 sum seed fused
  emit blog-f16-clamp-none 0 32 2048 1024 17 f16 clamp_min 1.0 none seed fused
  emit s1-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused --single-launch-stage-x=1
  emit s4-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused --single-launch-stage-x=4
  emit n64-d1024-bf16 0 64 1024 512 17 bf16 none 0 mean seed fused
  emit_step step-n32-d1024-bf16 0 32 1024 1024 17 bf16 none 0 mean seed fused
  emit_step step-v2-n32-d1024-bf16 2 32 1024 512 17 bf16 none 0 mean seed fused
  emit_step step-blog-p33-bf16 0 32 2048 1024 33 bf16 none 0 mean seed fused
  emit_step step-blog-f16-clamp 0 32 2048 1024 17 f16 clamp_min 0.5 mean seed fused
  emit_phased ds-phased-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean step fused
}
tma36_set() {
  tma36_configs
  PREFIX=t- EXTRA=--single-launch-stage-tma=1 tma36_configs
  emit t2-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused --single-launch-stage-tma=2
  emit_step t2-step-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused \
    --single-launch-stage-tma=2
  emit t2-n32-d1024-bf16 0 32 1024 1024 17 bf16 none 0 mean seed fused --single-launch-stage-tma=2
}
# g generated step groups ahead of its MMAs (--single-launch-gen-ahead; thirty-seventh session)
# where x is staged: the one-wave shapes as NAME (the rule), t-NAME (x by TMA boxes),
# taK-NAME (TMA boxes, K = 1-3 groups ahead) and baK-NAME (the rule's bulk copies, K = 1-2
# ahead), and set tma36's other staged shapes as ta2-NAME (views, P 33 f16, per-slice clamp,
# single blocks and clusters of 4), for scripts/gpu-calls/call-ga37.sh.
ahead37_set() {
  local k
  one_wave_configs
  PREFIX=t- EXTRA=--single-launch-stage-tma=1 one_wave_configs
  for k in 1 2 3; do
    PREFIX=ta$k- EXTRA="--single-launch-stage-tma=1 --single-launch-gen-ahead=$k" \
      one_wave_configs
  done
  for k in 1 2; do
    PREFIX=ba$k- EXTRA=--single-launch-gen-ahead=$k one_wave_configs
  done
  PREFIX=ta2- EXTRA="--single-launch-stage-tma=1 --single-launch-gen-ahead=2" tma36_configs
}
# More groups ahead (call 2 of the thirty-seventh session, after ta3 and ba1-2 measured faster):
# blog and its device-step forward as taK- (K = 3-6) and baK- (K = 2-4), N 32 D 1024 as ba1-3
# and ta2-, and three other staged shapes (N 64 D 1024, two views, P 33 f16) as NAME, ta3- and
# ba2-, for scripts/gpu-calls/call-ga37b.sh.
ahead37b_set() {
  local k n
  for n in "blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed" \
    "ds-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean step"; do
    emit $n fused
    for k in 3 4 5 6; do
      emit ta$k-$n fused "--single-launch-stage-tma=1 --single-launch-gen-ahead=$k"
    done
    for k in 2 3 4; do emit ba$k-$n fused --single-launch-gen-ahead=$k; done
  done
  n="n32-d1024-bf16 0 32 1024 1024 17 bf16 none 0 mean seed"
  emit $n fused
  emit ta2-$n fused "--single-launch-stage-tma=1 --single-launch-gen-ahead=2"
  for k in 1 2 3; do emit ba$k-$n fused --single-launch-gen-ahead=$k; done
  for n in "n64-d1024-bf16 0 64 1024 512 17 bf16 none 0 mean seed" \
    "v2-n32-d2048-bf16 2 32 2048 512 17 bf16 none 0 mean seed" \
    "n32-d2048-p33-f16 0 32 2048 1024 33 f16 zero_below 0.9 sum seed"; do
    emit $n fused
    emit ta3-$n fused "--single-launch-stage-tma=1 --single-launch-gen-ahead=3"
    emit ba2-$n fused --single-launch-gen-ahead=2
  done
}
# The thirty-seventh session's rules (x by TMA boxes in forwards with D >= 2048, g generated
# the warp's step groups less 2 ahead, at most 6): every staged forward shape of set tma36 and
# the changed blog artifacts of sets single and variants as NAME, and blog, two views and P 33
# f16 as o-NAME (the rules off: the compiler before, byte for byte), for
# scripts/gpu-calls/call-rule37.sh.
rule37_set() {
  local n
  tma36_configs
  emit blog-bf16-clamp-none 0 32 2048 1024 17 bf16 clamp_min 1.0 none seed fused
  for n in "blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed" \
    "v2-n32-d2048-bf16 2 32 2048 512 17 bf16 none 0 mean seed" \
    "n32-d2048-p33-f16 0 32 2048 1024 33 f16 zero_below 0.9 sum seed"; do
    emit o-$n fused "--single-launch-stage-tma=0 --single-launch-gen-ahead=0"
  done
}
# g generated ahead in training steps (explicit only: the rule keeps steps' early wait): the
# blog step and the step of N 32 D 1024 with bulk copies (baK-) and TMA boxes (taK-) K groups
# ahead, beside the rule, for scripts/gpu-calls/call-step37.sh.
step37_set() {
  local k n="step-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed"
  emit_step $n fused
  for k in 2 4 6; do
    emit_step ba$k-$n fused --single-launch-gen-ahead=$k
    emit_step ta$k-$n fused "--single-launch-stage-tma=1 --single-launch-gen-ahead=$k"
  done
  n="step-n32-d1024-bf16 0 32 1024 1024 17 bf16 none 0 mean seed"
  emit_step $n fused
  for k in 1 2; do emit_step ba$k-$n fused --single-launch-gen-ahead=$k; done
}
# The statistic's terms summed in fixed point by the threads that gather them
# (--single-launch-term-sums; thirty-eighth session): the fragment-ECF shapes of transposed34
# and four more without a clip (ragged views, a forced small tile, P 3, P 33 f16), as NAME (the
# rule, =0 until the fortieth session), t1-NAME (the warps' sums added in shared memory) and t2-NAME (one atomic per warp),
# and the random set's problems with the fragment ECF forced as t1-/t2-random-NNN (ragged
# shapes for the validation; only those the option changes are kept), for
# scripts/gpu-calls/call-terms38.sh.
terms38_configs() {
  transposed34_configs
  emit tm-v3-n200-d13 3 200 13 77 9 bf16 none 0 mean seed
  emit tm-n45-d13-forced 2 45 13 77 9 bf16 none 0 sum seed fused --single-launch-fragment-ecf=1
  emit tm-v2-n100-p3-forced 2 100 16 60 3 bf16 none 0 mean seed fused \
    --single-launch-fragment-ecf=1
  emit tm-v2-n128-p33-f16 2 128 16 96 33 f16 none 0 sum seed
  emit tm-n130-d16-s33 0 130 16 33 17 bf16 none 0 mean seed
  emit tm-v5-n256-d12-s100-p11 5 256 12 100 11 bf16 none 0 mean seed
  emit tm-n256-d3-s7-p5 0 256 3 7 5 f16 none 0 sum seed
  emit tm-v2-n77-d9-p5-forced 2 77 9 50 5 f16 none 0 sum seed fused \
    --single-launch-fragment-ecf=1
  emit tm-v4-n256-d16-s256-p25 4 256 16 256 25 bf16 none 0 mean seed
  emit tm-v4-n256-d16-s250-p3 4 256 16 250 3 bf16 none 0 sum seed
}
# Where minimal's time goes by subtraction (forty-first session): minimal with fewer points (the
# ECF's share), with 32 rows (the same 128-block grid, an eighth of the ECF), and a one-block
# grid with one of minimal's blocks of work and with almost none (the launch's floor), for
# scripts/gpu-calls/call-floor41.sh.
floor41_set() {
  emit minimal-bf16 4 256 16 256 17 bf16 none 0 mean seed
  emit fl-p9 4 256 16 256 9 bf16 none 0 mean seed
  emit fl-p3 4 256 16 256 3 bf16 none 0 mean seed
  emit fl-n32-p3 4 32 16 256 3 bf16 none 0 mean seed
  emit fl-one-n256-p17 0 256 16 8 17 bf16 none 0 mean seed
  emit fl-one-n16-p3 0 16 16 8 3 bf16 none 0 mean seed
}
# The same shapes after term-sums=1 became the rule (fortieth session): NAME (the rule) and
# t0-NAME (--single-launch-term-sums=0, warp 0 forms the statistics), for
# scripts/gpu-calls/call-rule40.sh.
terms40_set() {
  terms38_configs
  PREFIX=t0- EXTRA=--single-launch-term-sums=0 terms38_configs
}
terms38_set() {
  terms38_configs
  PREFIX=t1- EXTRA=--single-launch-term-sums=1 terms38_configs
  PREFIX=t2- EXTRA=--single-launch-term-sums=2 terms38_configs
  local f=--single-launch-fragment-ecf=1 d
  PREFIX=t1- EXTRA="--single-launch-term-sums=1 $f" random_set
  PREFIX=t2- EXTRA="--single-launch-term-sums=2 $f" random_set
  for d in "$out"/t1-random-*/; do
    d=${d%/}
    cmp -s "$d/fused/sigreg.ptx" "${d/t1-random/t2-random}/fused/sigreg.ptx" &&
      rm -rf "$d" "${d/t1-random/t2-random}" "$d".*.log "${d/t1-random/t2-random}".*.log
  done
  return 0
}
# Per-slice statistics at a large batch (the accuracy gap of docs/STATUS.md: bf16, N = 8192,
# reduction none missed 2e-3 on both tensor-core kernels): which of the tensor cores' running
# sums (the error would grow with the k-steps: D = 128, 1024, 4096), the harmonics (P = 5
# against 17) or the kernel (the transposed tile by rule, the 128 x 64 tile, mma.sync, SIMT
# FMAs, an f32 input) the error follows, and whether promoted sums (--promote-accumulators:
# mma.sync every k-tile, the 128 x 64 Hopper tile every 1 or 4 k-tiles) remove it; N = 1024
# for its growth with the batch (docs/PERF-NOTES.md, twentieth session).
perslice_set() {
  local d
  for d in 128 1024 4096; do
    emit ps-n8192-d$d 0 8192 $d 1024 17 bf16 none 0 none seed fused
    emit ps-n8192-d$d-promote4 0 8192 $d 1024 17 bf16 none 0 none seed fused \
      --promote-accumulators=4
    emit ps-n8192-d$d-mma 0 8192 $d 1024 17 bf16 none 0 none seed fused --chip=sm_90
    emit ps-n8192-d$d-mma-promote 0 8192 $d 1024 17 bf16 none 0 none seed fused \
      "--chip=sm_90 --promote-accumulators=1"
  done
  emit ps-n8192-d1024-promote1 0 8192 1024 1024 17 bf16 none 0 none seed fused \
    --promote-accumulators=1
  emit ps-n8192-d1024-p5 0 8192 1024 1024 5 bf16 none 0 none seed fused
  emit ps-n8192-d1024-w64 0 8192 1024 1024 17 bf16 none 0 none seed fused \
    "--wgmma-rows=128 --wgmma-slices=64"
  emit ps-n8192-d1024-simt 0 8192 1024 1024 17 bf16 none 0 none seed fused \
    "--chip=sm_90 --tensor-cores=false"
  emit ps-n8192-d1024-f32 0 8192 1024 1024 17 f32 none 0 none seed fused
  emit ps-n1024-d1024 0 1024 1024 1024 17 bf16 none 0 none seed fused
  emit ps-n1024-d1024-mma 0 1024 1024 1024 17 bf16 none 0 none seed fused --chip=sm_90
}
# The shapes of scripts/gpu-calls/call-rules24-bench.sh's same-process comparison with PyTorch:
# blog, minimal, mid, the small shapes, and two views of N 512 (a cooperative grid by rule).
samebench_set() {
  emit blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused
  emit minimal-bf16 4 256 16 256 17 bf16 none 0 mean seed fused
  emit mid-bf16 0 1024 1024 1024 17 bf16 none 0 mean seed fused
  small_shapes
  emit views2-n512-bf16 2 512 1024 1024 17 bf16 none 0 mean seed fused
}
# Probes of the rules' kernels (twenty-fourth session, scripts/gpu-calls/call-probe24.sh): the
# D <= 16 shapes in smaller batch tiles (br128-, br64-: --block-rows, more blocks, their sums
# added by the last block of each column) and the single launch in blocks of 16 warps (w16-)
# now that the rule staggers blog's k walk; NAME is the rule.
probe24_set() {
  local shape
  for shape in "minimal-bf16 4 256 16 256 17 bf16 none 0 mean" \
      "clamp-none-f16 2 256 16 300 5 f16 clamp_min 0.5 none" \
      "n128-s2048 0 128 16 2048 17 bf16 none 0 sum"; do
    set -- $shape
    emit "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" seed fused
    emit "br64-$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" seed fused --block-rows=64
    [ "$3" -gt 128 ] && emit "br128-$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" seed fused --block-rows=128
    emit "w16-$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" seed fused --single-launch-warps=16
  done
  for shape in "blog-bf16 0 32 2048 1024 17 bf16 none 0 mean" "views8-n16-bf16 8 16 384 256 17 bf16 none 0 mean"; do
    set -- $shape
    emit "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" seed fused
    emit "w16-$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" seed fused --single-launch-warps=16
  done
  # Blog's k loop with 8 or 2 steps per iteration under the rule's stagger and fast normals
  # (sg8-, sg2-: more or fewer x loads in flight, now that their latency binds).
  emit blog-sg-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused
  emit_step step-blog-sg-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused
  for g in 8 2; do
    emit sg$g-blog-sg-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused --single-launch-step-group=$g
    emit_step sg$g-step-blog-sg-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused \
      --single-launch-step-group=$g
  done
  # The next step group's x words loaded one iteration ahead (px-: --single-launch-prefetch-x),
  # where blog's x loads now bind (ncu: long scoreboard 0.92 per issue).
  emit px-blog-sg-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused --single-launch-prefetch-x
  emit_step px-step-blog-sg-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused \
    --single-launch-prefetch-x
  emit views8-n16-sg-bf16 8 16 384 256 17 bf16 none 0 mean seed fused
  emit px-views8-n16-sg-bf16 8 16 384 256 17 bf16 none 0 mean seed fused --single-launch-prefetch-x
  emit n256-d1024-sg-bf16 0 256 1024 256 17 bf16 none 0 sum seed fused
  emit px-n256-d1024-sg-bf16 0 256 1024 256 17 bf16 none 0 sum seed fused --single-launch-prefetch-x
  emit ragged-sg-f16 3 40 1000 300 9 f16 clamp_min 0.5 mean seed fused
  emit px-ragged-sg-f16 3 40 1000 300 9 f16 clamp_min 0.5 mean seed fused --single-launch-prefetch-x
}
# Blog's class (tiles of at most 32 rows staggered by rule) with 4 k steps per iteration (NAME:
# --single-launch-step-group=4, the twenty-fourth session's rule), with the rule's 2 (sg2-NAME:
# kSingleLaunchStaggerStepGroup) and with 1 (sg1-NAME), for gpu-ab.sh --prefix sg2- / sg1-
# (twenty-fifth session): the timed forward, the device-step seed, the training step and its
# phased form, and three shapes that are not anchors (D 1024, four views, a ragged f16 batch).
# The one-wave shapes of blog's class: blog, its device-step seed and training step, N 32 D 1024,
# a ragged f16 batch of 30 rows.
one_wave_configs() {
  emit blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused
  emit ds-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean step fused
  emit_step step-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused
  emit n32-d1024-bf16 0 32 1024 1024 17 bf16 none 0 mean seed fused
  emit n30-f16-clamp 0 30 2048 1000 9 f16 clamp_min 0.5 none seed fused
}
stepgroup25_configs() {
  one_wave_configs
  emit_phased phased-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused
  emit views4-n32-bf16 4 32 2048 512 17 bf16 none 0 mean seed fused
}
stepgroup25_set() {
  EXTRA=--single-launch-step-group=4 stepgroup25_configs
  PREFIX=sg2- stepgroup25_configs
  PREFIX=sg1- EXTRA=--single-launch-step-group=1 stepgroup25_configs
}
# The next step group's x carried one iteration ahead (--single-launch-prefetch-x) under this
# rule's 2-step groups (px-NAME; measured only with 4-step groups, where it lost): NAME is the
# rule, on the one-wave shapes the step-group rule takes and a ragged f16 batch (twenty-fifth
# session, scripts/gpu-calls/call-probe25.sh).
probe25_set() {
  one_wave_configs
  PREFIX=px- EXTRA=--single-launch-prefetch-x one_wave_configs
}
# Blocks of 16 warps under this session's rules (w16-NAME; last measured in the twenty-fourth
# session with 4-step groups), beside the rule, at blog, its training step, N 32 D 1024 and
# minimal: timed and profiled by region (ncu's SASS source page, scripts/ncu-regions.py) to see
# whether twice the warps shorten the k loop and what they add elsewhere (twenty-sixth session,
# scripts/gpu-calls/call-probe26.sh).
probe26_set() {
  local shape
  for shape in "blog-bf16 0 32 2048 1024 17 bf16 none 0 mean" \
      "n32-d1024-bf16 0 32 1024 1024 17 bf16 none 0 mean" \
      "minimal-bf16 4 256 16 256 17 bf16 none 0 mean"; do
    set -- $shape
    emit "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" seed fused
    emit "w16-$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" seed fused --single-launch-warps=16
  done
  emit_step step-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused
  emit_step w16-step-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused --single-launch-warps=16
}
# The twenty-seventh session's A/B (scripts/gpu-calls/call-ftz27.sh): the fast normals' log2 and
# square root as lg2/sqrt.approx.ftz.f32 and the single launch's tensor-core k loop counting in
# i32. Every kernel these build generates g with the fast normals or walks that loop; built by
# the previous compiler (BUILD_DIR of that tree) as NAME and by this one with PREFIX=n-.
ftz27_set() {
  samebench_set
  emit ds-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean step fused
  emit_step step-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused
  emit n32-d1024-bf16 0 32 1024 1024 17 bf16 none 0 mean seed fused
  emit n30-f16-clamp 0 30 2048 1000 9 f16 clamp_min 0.5 none seed fused
  emit n24-d1001-bf16 0 24 1001 700 9 bf16 none 0 sum seed fused
  emit views4-n32-bf16 4 32 2048 512 17 bf16 none 0 mean seed fused
}
# Training steps that stage x by rule (single-launch-stage-x, twenty-seventh session): blog's
# and five more one-wave steps with the i32 loop (views, another D, P = 33, f16 clamp_min, sum),
# built once with --single-launch-stage-x=0 as NAME and once by rule as PREFIX=n-.
stage27_set() {
  emit_step step-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused
  emit_step step-n32-d1024-bf16 0 32 1024 1024 17 bf16 none 0 mean seed fused
  emit_step step-v2-n32-d1024-bf16 2 32 1024 512 17 bf16 none 0 mean seed fused
  emit_step step-blog-p33-bf16 0 32 2048 1024 33 bf16 none 0 mean seed fused
  emit_step step-blog-f16-clamp 0 32 2048 1024 17 f16 clamp_min 0.5 mean seed fused
  emit_step step-n64-d512-sum-bf16 0 64 512 1024 9 bf16 none 0 sum seed fused
  emit_phased phased-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused
  # Forwards, staged by the final rule (forwards and steps alike): blog, D 1024, and shapes
  # around them (16 and 64 rows, 2048 slices, f16 clamp_min per slice, sum).
  emit blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused
  emit n32-d1024-bf16 0 32 1024 1024 17 bf16 none 0 mean seed fused
  emit n16-d2048-bf16 0 16 2048 1024 17 bf16 none 0 mean seed fused
  emit n64-d1024-bf16 0 64 1024 512 17 bf16 none 0 mean seed fused
  emit n32-d512-s2048-bf16 0 32 512 2048 9 bf16 none 0 sum seed fused
  emit n32-f16-clamp-none 0 32 2048 1024 17 f16 clamp_min 0.5 none seed fused
}
# x staged in clusters (single-launch-stage-x = 2 or 4, twenty-eighth session): each block of a
# cluster copies its share of the rows and multicasts it to the cluster. NAME is the rule (staged
# alone, or not staged), c2-NAME and c4-NAME stage in clusters of 2 and 4 (forwards the rule
# does not stage included); g4-NAME and g4c2-NAME below.
cluster28_configs() {
  emit blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused "${1:-}"
  emit_step step-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused "${1:-}"
  emit_phased phased-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused "${1:-}"
  emit n32-d1024-bf16 0 32 1024 1024 17 bf16 none 0 mean seed fused "${1:-}"
  emit n16-d2048-bf16 0 16 2048 1024 17 bf16 none 0 mean seed fused "${1:-}"
  emit n64-d1024-bf16 0 64 1024 512 17 bf16 none 0 mean seed fused "${1:-}"
  emit_step step-n32-d1024-bf16 0 32 1024 1024 17 bf16 none 0 mean seed fused "${1:-}"
  emit n32-f16-clamp-none 0 32 2048 1024 17 f16 clamp_min 0.5 none seed fused "${1:-}"
}
# With x staged the loop's loads no longer wait on L2: 4 k steps per iteration (g4-NAME, more
# independent Philox work per iteration; measured before staging only), alone and in clusters
# of 2 (g4c2-NAME), at blog's forward and training step.
cluster28_set() {
  cluster28_configs
  PREFIX=c2- cluster28_configs --single-launch-stage-x=2
  PREFIX=c4- cluster28_configs --single-launch-stage-x=4
  local v
  for v in "g4- --single-launch-step-group=4" \
      "g4c2- --single-launch-step-group=4 --single-launch-stage-x=2"; do
    emit "${v%% *}blog-bf16" 0 32 2048 1024 17 bf16 none 0 mean seed fused "${v#* }"
    emit_step "${v%% *}step-blog-bf16" 0 32 2048 1024 17 bf16 none 0 mean seed fused "${v#* }"
  done
}
# The single launch's .minnctapersm 1 by rule (single-launch-minctasm, thirtieth session): the
# anchors, the small shapes, the cluster28 forwards and steps and the ragged and view shapes of
# ftz27, by rule as NAME and with --single-launch-minctasm=0 (the rule before) as h-NAME.
minctasm30_configs() {
  local o=${1:-}
  emit blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused "$o"
  emit minimal-bf16 4 256 16 256 17 bf16 none 0 mean seed fused "$o"
  emit mid-bf16 0 1024 1024 1024 17 bf16 none 0 mean seed fused "$o"
  emit_step step-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused "$o"
  emit_phased phased-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused "$o"
  emit n32-d1024-bf16 0 32 1024 1024 17 bf16 none 0 mean seed fused "$o"
  emit n16-d2048-bf16 0 16 2048 1024 17 bf16 none 0 mean seed fused "$o"
  emit n64-d1024-bf16 0 64 1024 512 17 bf16 none 0 mean seed fused "$o"
  emit_step step-n32-d1024-bf16 0 32 1024 1024 17 bf16 none 0 mean seed fused "$o"
  emit n32-f16-clamp-none 0 32 2048 1024 17 f16 clamp_min 0.5 none seed fused "$o"
  emit ds-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean step fused "$o"
  emit n30-f16-clamp 0 30 2048 1000 9 f16 clamp_min 0.5 none seed fused "$o"
  emit n24-d1001-bf16 0 24 1001 700 9 bf16 none 0 sum seed fused "$o"
  emit views4-n32-bf16 4 32 2048 512 17 bf16 none 0 mean seed fused "$o"
  emit views8-n16-bf16 8 16 384 256 17 bf16 none 0 mean seed fused "$o"
  emit n128-d1024-bf16 0 128 1024 1024 17 bf16 none 0 mean seed fused "$o"
  emit n256-d1024-bf16 0 256 1024 1024 17 bf16 none 0 mean seed fused "$o"
  emit views2-n64-bf16 2 64 768 512 17 bf16 none 0 mean seed fused "$o"
  emit odd-v3-n100-bf16 3 100 500 300 9 bf16 none 0 mean seed fused "$o"
}
minctasm30_set() {
  minctasm30_configs
  PREFIX=h- minctasm30_configs --single-launch-minctasm=0
}
# Under the minctasm rule, the variants measured before it (thirtieth session, call-mc30b.sh):
# 16 warps (w16-) and 4-step groups (g4-) at blog, x staged (s1-) where the rule does not
# stage; NAME by rule (with minctasm30_set's h-NAME beside them).
minctasm30b_set() {
  minctasm30_set
  emit w16-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused --single-launch-warps=16
  emit g4-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused --single-launch-step-group=4
  emit_step g4-step-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused \
    --single-launch-step-group=4
  emit s1-n32-d1024-bf16 0 32 1024 1024 17 bf16 none 0 mean seed fused --single-launch-stage-x=1
  emit s1-n16-d2048-bf16 0 16 2048 1024 17 bf16 none 0 mean seed fused --single-launch-stage-x=1
  emit s1-n64-d1024-bf16 0 64 1024 512 17 bf16 none 0 mean seed fused --single-launch-stage-x=1
}
# Thirty-second session: the last step's statistic over four lanes per column
# (emitPackedLossSum). stat32_timed: the configurations timed against the compiler before it
# (PREFIX=o- stat32_timed, built by that compiler); stat32_set: those, the rule set, the packed
# loss with clipping and the SIMT kernel, and minimal with fast-normals' mapping (fn-).
stat32_timed() {
  emit minimal-bf16 4 256 16 256 17 bf16 none 0 mean seed fused
  emit blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused
  emit_step step-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed fused
  emit views8-n16-bf16 8 16 384 256 17 bf16 none 0 mean seed fused
  emit n24-d1001-bf16 0 24 1001 700 9 bf16 none 0 sum seed fused
  emit minimal-f32 4 256 16 256 17 f32 none 0 mean seed fused
}
stat32_set() {
  minctasm30_configs
  emit minimal-f32 4 256 16 256 17 f32 none 0 mean seed fused
  emit blog-f32 0 32 2048 1024 17 f32 none 0 mean seed fused
  emit ragged-bf16-clamp 3 37 129 77 9 bf16 clamp_min 1.0 mean seed fused
  emit_step step-views-f16-zero-sum 3 37 136 72 9 f16 zero_below 0.9 sum seed fused
  emit_step step-n129-p33-f16-clamp 0 129 520 136 33 f16 clamp_min 0.3 mean seed fused
  emit fn-minimal-bf16 4 256 16 256 17 bf16 none 0 mean seed fused --single-launch-fast-normals
  emit fn-n64-d1024-bf16 0 64 1024 512 17 bf16 none 0 mean seed fused --single-launch-fast-normals
  emit fn-n128-d1024-bf16 0 128 1024 1024 17 bf16 none 0 mean seed fused --single-launch-fast-normals
  emit fn-odd-v3-n100-bf16 3 100 500 300 9 bf16 none 0 mean seed fused --single-launch-fast-normals
}
# Thirty-second session: fast-normals' mapping where the rule keeps the exact one (tiles of
# more than 32 rows, unstaggered walks): NAME by rule, fn-NAME with
# --single-launch-fast-normals (forwards, training steps, the device step).
fn32_configs() {
  emit minimal-bf16 4 256 16 256 17 bf16 none 0 mean seed fused "$@"
  emit minimal-f16 4 256 16 256 17 f16 none 0 mean seed fused "$@"
  emit n64-d1024-bf16 0 64 1024 512 17 bf16 none 0 mean seed fused "$@"
  emit n128-d1024-bf16 0 128 1024 1024 17 bf16 none 0 mean seed fused "$@"
  emit n256-d1024-bf16 0 256 1024 1024 17 bf16 none 0 mean seed fused "$@"
  emit views2-n64-bf16 2 64 768 512 17 bf16 none 0 mean seed fused "$@"
  emit odd-v3-n100-bf16 3 100 500 300 9 bf16 none 0 mean seed fused "$@"
  emit n24-d1001-bf16 0 24 1001 700 9 bf16 none 0 sum seed fused "$@"
  emit ragged-bf16-clamp 3 37 129 77 9 bf16 clamp_min 1.0 mean seed fused "$@"
  emit n200-d136-f16 0 200 136 40 9 f16 none 0 mean seed fused "$@"
  emit ds-minimal-bf16 4 256 16 256 17 bf16 none 0 mean step fused "$@"
  emit_step step-minimal-bf16 4 256 16 256 17 bf16 none 0 mean seed fused "$@"
  emit_step step-n128-d1024-bf16 0 128 1024 1024 17 bf16 none 0 mean seed fused "$@"
  emit_phased phased-minimal-bf16 4 256 16 256 17 bf16 none 0 mean seed fused "$@"
}
fn32_set() {
  fn32_configs
  PREFIX=fn- fn32_configs --single-launch-fast-normals
}
# Thirty-second session: the halving butterfly without selects at its first level (the lanes
# that keep the sines list them first): the rule set and two masked or f16 shapes; NAME by
# this compiler, o-NAME (PREFIX=o-) by the compiler before it.
sines32_set() {
  minctasm30_configs
  emit ragged-bf16-clamp 3 37 129 77 9 bf16 clamp_min 1.0 mean seed fused
  emit n200-d136-f16 0 200 136 40 9 f16 none 0 mean seed fused
}
# The minctasm rule on the single launch's other kernels: f32 inputs (SIMT FMAs) and an
# explicit projection; NAME by rule, h-NAME with --single-launch-minctasm=0.
minctasm30f_configs() {
  local o=${1:-}
  emit blog-f32 0 32 2048 1024 17 f32 none 0 mean seed fused "$o"
  emit minimal-f32 4 256 16 256 17 f32 none 0 mean seed fused "$o"
  emit n32-d1024-f32 0 32 1024 1024 17 f32 none 0 mean seed fused "$o"
  emit explicit-n37-f16 0 37 129 77 9 f16 none 0 mean explicit fused "$o"
  emit explicit-blog-bf16 0 32 2048 1024 17 bf16 none 0 mean explicit fused "$o"
}
minctasm30f_set() {
  minctasm30f_configs
  PREFIX=h- minctasm30f_configs --single-launch-minctasm=0
}
case "$set_" in
  minctasm30f) minctasm30f_set ;;
  minctasm30) minctasm30_set ;;
  stat32) stat32_set ;;
  fn32) fn32_set ;;
  sines32) sines32_set ;;
  stat32-timed) stat32_timed ;;
  minctasm30b) minctasm30b_set ;;
  cluster28) cluster28_set ;;
  stage27) stage27_set ;;
  ftz27) ftz27_set ;;
  probe26) probe26_set ;;
  probe25) probe25_set ;;
  stepgroup25) stepgroup25_set ;;
  perslice) perslice_set ;;
  warps16) warps16_set ;;
  warps4) warps4_set ;;
  tail34) tail34_set ;;
  transposed34) transposed34_set ;;
  tma36) tma36_set ;;
  ahead37) ahead37_set ;;
  ahead37b) ahead37b_set ;;
  rule37) rule37_set ;;
  step37) step37_set ;;
  terms38) terms38_set ;;
  terms40) terms40_set ;;
  floor41) floor41_set ;;
  warps16b34) warps16b34_set ;;
  pingpong) pingpong_set ;;
  generate) generate_set ;;
  cooperative) cooperative_set ;;
  samebench) samebench_set ;;
  probe24) probe24_set ;;
  stagger) stagger_set ;;
  fragment) fragment_set ;;
  stepgroup) stepgroup_set ;;
  staggerfast) staggerfast_set ;;
  tpersistent) tpersistent_set ;;
  transposed) transposed_set ;;
  p65) for w in 64 128 256; do
         emit p65-f16-none-w$w 0 1000 520 1032 65 f16 none 0 none seed fused --wgmma-slices=$w
       done
       emit p65-f16-none-mma 0 1000 520 1032 65 f16 none 0 none seed fused --chip=sm_90
       emit p65-f16-none-simt 0 1000 520 1032 65 f16 none 0 none seed fused "--chip=sm_90 --tensor-cores=false"
       emit p33-f16-none-w64 0 1000 520 1032 33 f16 none 0 none seed fused --wgmma-slices=64 ;;
  quick) emit ragged-bf16-clamp 3 37 129 77 9 bf16 clamp_min 1.0 mean seed
         emit blog-bf16 0 32 2048 1024 17 bf16 none 0 mean seed ;;
  anchors) anchors ;;
  variants) variants ;;
  all) anchors; variants; hopper; split_set; single; grad; grad_fused; step_set; phased_set; random_set ;;
  grad) grad ;;
  grad-fused) grad_fused ;;
  step) step_set ;;
  phased) phased_set ;;
  device-step) device_step_set ;;
  tail-sums) many_tiles_set ts --wgmma-atomic-sums ;;
  finalize-loss) many_tiles_set fl "" ;;
  hopper) hopper ;;
  split) split_set ;;
  training) training ;;
  small-shapes) small_shapes ;;
  random) random_set ;;
  single) single ;;
  *) echo "unknown set $set_"; exit 2 ;;
esac
echo "artifacts in $out: $(ls -d "$out"/*/ | wc -l) configurations"
