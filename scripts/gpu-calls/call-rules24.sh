#!/usr/bin/env bash
# After `bash scripts/gpu-pack.sh build anchors single small-shapes grad-fused device-step step
# phased random variants` here; from the repository root with carry [".gpu"]
# (docs/PERF-NOTES.md, twenty-fourth session): every configuration of those sets, compiled with
# this session's three rules (the cooperative grid at mid-class shapes, the staggered walk with
# the fast normals at single-launch tiles of <= 32 rows, the ECF on the accumulators at D <= 16
# and tiles of >= 128 rows), validated against float64 (bitwise repeat and graph replay), a
# line per failure and a count per set; then memcheck, racecheck and synccheck on blog, minimal
# and mid (each rule's kernel). Results under $OUT. About 8 minutes.
export SIGREG_GPU_BUILD=.gpu/rt
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
count() {
  awk '/ rc=/{n++; if ($0 ~ / rc=0 .*PASS/) p++; else print "  FAIL:", substr($0, 1, 160)}
       END{print "  " p+0 " of " n+0 " PASS"}'
}
for s in anchors single small-shapes grad-fused device-step step phased random variants; do
  [ -d .gpu/$s ] || { echo "== $s: not packed"; continue; }
  echo "== $s $(date +%T)"
  timeout 170 bash scripts/gpu-ab.sh .gpu/$s --skip-bench --out $OUT/val-$s 2>&1 | count
done
echo "== sanitizers $(date +%T)"
timeout 150 bash scripts/gpu-ab.sh .gpu/anchors --skip-validate --skip-bench \
  --sanitize "blog-bf16 minimal-bf16 mid-bf16" --out $OUT/san 2>&1 | grep -E 'rc=' | cut -c1-120
echo "== done $(date +%T)"
