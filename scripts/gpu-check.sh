#!/usr/bin/env bash
# Runs the GPU checks on a machine with an NVIDIA GPU and no MLIR (the GPU
# machine): builds the MLIR-free runtime with CMake, runs the runtime unit
# tests, then validates (and with --bench times) every AOT artifact under
# ARTDIR with sigreg-aot-run, and runs compute-sanitizer on the fused kernels.
# With --e2e it then runs scripts/gpu-e2e.sh: the static compiler of
# scripts/build-static.sh (dist/) compiling and running in one process, and
# the lit suite with the GPU tests.
# The random problems (random-NNN, from the seeded generator of build-gpu-artifacts.sh: ragged
# shapes, every dtype, clip mode, reduction and projection kind; at least 50 per run) are
# validated like the others and summarized at the end; ARTDIR/random-problems.txt lists them.
# Every clipped configuration has a NAME-unclipped twin (clip none, reduction none) that checks
# each unclipped per-slice statistic.
# Usage: scripts/gpu-check.sh ARTDIR [--bench] [--sanitize] [--e2e] [--out DIR]
set -uo pipefail
art=${1:?artifact dir}; shift
bench=0; sanitize=0; e2e=0; out=${OUT:-/tmp/sigreg-gpu-check}
while [ $# -gt 0 ]; do
  case "$1" in
    --bench) bench=1 ;;
    --sanitize) sanitize=1 ;;
    --e2e) e2e=1 ;;
    --out) out=$2; shift ;;
    *) echo "unknown option $1"; exit 2 ;;
  esac; shift
done
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
bld=${SIGREG_GPU_BUILD:-/tmp/sigreg-build-nomlir}
if [ ! -x "$bld/bin/sigreg-aot-run" ]; then
  cmake -S "$root" -B "$bld" -DSIGREG_ENABLE_MLIR=OFF -DCMAKE_BUILD_TYPE=Release \
    > "$out/cmake.log" 2>&1 && cmake --build "$bld" -j"$(nproc)" >> "$out/cmake.log" 2>&1 \
    || { tail -30 "$out/cmake.log"; exit 2; }
fi
aot="$bld/bin/sigreg-aot-run"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$out/device.txt"
fail=0
if [ -x "$bld/unittests/SigregRuntimeTests" ]; then
  "$bld/unittests/SigregRuntimeTests" --gtest_brief=1 > "$out/runtime-tests.log" 2>&1 \
    && echo "runtime unit tests: PASS" || { echo "runtime unit tests: FAIL"; tail -20 "$out/runtime-tests.log"; fail=1; }
fi
printf '%-28s %-6s %-6s %-11s %-11s %-11s\n' config pipe result rel_err full_ms graph_ms | tee "$out/summary.txt"
for dir in "$art"/*/; do
  name=$(basename "$dir")
  for pipe in fused naive; do
    [ -f "$dir/$pipe/manifest.json" ] || continue
    args=("$dir/$pipe")
    [ $bench = 1 ] && args+=(--bench --json="$out/$name-$pipe.json")
    log="$out/$name-$pipe.log"
    timeout 300 "$aot" "${args[@]}" > "$log" 2>&1; rc=$?
    res=$([ $rc = 0 ] && echo PASS || echo "FAIL($rc)")
    [ $rc = 0 ] || fail=1
    err=$(grep -m1 -E "^(relative error|max relative error)" "$log" | awk '{print $NF}')
    full=$(grep -m1 -E "^full_forward " "$log" | awk '{print $2}')
    graph=$(grep -m1 -E "^full_forward_graph" "$log" | awk '{print $2}')
    printf '%-28s %-6s %-6s %-11s %-11s %-11s\n' "$name" "$pipe" "$res" "${err:--}" "${full:--}" "${graph:--}" | tee -a "$out/summary.txt"
  done
done
nrand=$(ls -d "$art"/random-[0-9][0-9][0-9]/ 2>/dev/null | wc -l)
if [ "$nrand" -gt 0 ]; then
  # Runs of the problems and of their -unclipped twins.
  rpass=$(grep -cE '^random-[0-9]+(-unclipped)? +(fused|naive) +PASS' "$out/summary.txt")
  rruns=$(grep -cE '^random-[0-9]+(-unclipped)? ' "$out/summary.txt")
  echo "random problems: $nrand, runs passed $rpass of $rruns (problems: $art/random-problems.txt)" | tee -a "$out/summary.txt"
  [ "$nrand" -ge 50 ] || { echo "FAIL: fewer than 50 random problems" | tee -a "$out/summary.txt"; fail=1; }
fi
if [ $sanitize = 1 ] && command -v compute-sanitizer > /dev/null; then
  for name in ragged-bf16-clamp ragged-f32-zero-none blog-bf16 n1000-bf16-zero ragged-bf16-mma ragged-f16-mma-explicit \
              wg-ragged-views wg-f16-clamp-sum wg-views-none-explicit wg128-ragged-views wg128-f16-clamp-sum \
              wgp-ragged-views wgp-f16-clamp-sum wgp-views-none-explicit wgp-d64-explicit \
              pp-ragged pp-views-none-explicit pp-p25-zero \
              minimal-bf16 sl-views-ragged-clamp sl-f32-p3-zero-none sl-f16-p33-explicit-sum \
              sl-bf16-tiles-none sl-f16-tiles-mean gradf-views-f16-zero-sum gradf-explicit-clamp-none \
              gradf-p33-views-bf16 wgf-ragged-views wgf-views-none-explicit wgf-d3-clamp-sum \
              wgs-views-clamp-none wgs-small-d-sum wg64-views-clamp-none wg64-views-none-explicit \
              wg-n100-tail-clamp wg-t16-mean slm-views-d13-clamp slm-f16-d100-none \
              slm-n256-d1024-sum slm-tiles-clamp-none slm-f16-p33-zero-mean \
              step-views-f16-zero-sum step-explicit-clamp-none step-p33-views-bf16 \
              step-ragged-small-bf16 step-n129-p33-f16-clamp step-minimal-bf16 step-blog-bf16 \
              slw-views-d1032-clamp slw-f16-n200-d4096-none slm-n256-d1024-sum \
              step-ragged-views-bf16 phased-p33-views-bf16 phased-ragged-views-bf16 gradf-p65-f16 \
              ds-blog-bf16 ds-ragged-none-bf16 ds-n200-sum-bf16 ds-views-f32-clamp \
              ds-phased-blog-bf16 ds-ragged-f16-mma ds-mid-bf16 ds-ragged-f32-simt; do
    [ -d "$art/$name/fused" ] || continue
    for tool in memcheck racecheck synccheck; do
      compute-sanitizer --tool $tool --error-exitcode 99 "$aot" "$art/$name/fused" \
        > "$out/sanitize-$tool-$name.log" 2>&1; rc=$?
      echo "compute-sanitizer $tool $name: $([ $rc = 0 ] && echo clean || echo "FAIL($rc)")" | tee -a "$out/summary.txt"
      [ $rc = 0 ] || fail=1
    done
  done
fi
if [ $e2e = 1 ]; then
  OUT="$out/e2e" bash "$root/scripts/gpu-e2e.sh" "$root/dist" || fail=1
fi
exit $fail
