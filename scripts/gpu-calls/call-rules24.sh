#!/usr/bin/env bash
# After `bash scripts/gpu-pack.sh build anchors single small-shapes grad-fused device-step step
# phased random variants cooperative staggerfast fragment samebench` here, and the list of the
# configurations whose PTX this session's rules change in .gpu/changed24.txt (SET/NAME lines:
# each set built again with --wgmma-cooperative=0 --single-launch-stagger=0
# --single-launch-fragment-ecf=0 and compared); from the repository root with carry [".gpu"]
# (docs/PERF-NOTES.md, twenty-fourth session). Results under $OUT. About 5 minutes.
#  1. validates against float64 (bitwise repeat and graph replay) the anchors, the changed
#     configurations, and the cooperative, staggerfast and fragment sets (each rule's kernel
#     beside its off switch, on ragged shapes too): a line per failure, a count per group;
#  2. memcheck, racecheck and synccheck on blog, minimal and mid (each rule's kernel).
export SIGREG_GPU_BUILD=.gpu/rt
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
count() {
  awk '/ rc=/{n++; if ($0 ~ / rc=0 .*PASS/) p++; else print "  FAIL:", substr($0, 1, 160)}
       END{print "  " p+0 " of " n+0 " PASS"}'
}
ch=/tmp/changed24; rm -rf $ch; mkdir -p $ch
while read -r c; do ln -s "$(pwd)/.gpu/$c" "$ch/$(echo "$c" | tr / _)"; done < .gpu/changed24.txt
for g in .gpu/anchors $ch .gpu/cooperative .gpu/staggerfast .gpu/fragment; do
  echo "== $g $(date +%T)"
  timeout 150 bash scripts/gpu-ab.sh $g --skip-bench --out $OUT/val-$(basename $g) 2>&1 | count
done
echo "== sanitizers $(date +%T)"
timeout 150 bash scripts/gpu-ab.sh .gpu/anchors --skip-validate --skip-bench \
  --sanitize "blog-bf16 minimal-bf16 mid-bf16" --out $OUT/san 2>&1 | grep -E 'rc=' | cut -c1-120
echo "== done $(date +%T)"
