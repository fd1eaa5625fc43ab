#!/usr/bin/env bash
# Thirtieth session, second machine (docs/PERF-NOTES.md): the single launch's .minnctapersm 1
# rule timed on whatever card comes (issue 8's figures are the H200's), then the random set
# validated with it. From the repository root with carry [".gpu/rt", ".gpu/mc30",
# ".gpu/random30"] (`PIPES=fused scripts/build-gpu-artifacts.sh build DIR minctasm30`, and
# `... random` for random30). Every part writes its own file under $OUT. About 4 minutes.
#  PART=time_all: h-NAME (--single-launch-minctasm=0) and NAME alternating, 3 rounds;
#  PART=random: every random artifact against float64 (FAIL lines and the PASS count).
export PATH=$PATH:/usr/local/cuda/bin
export SIGREG_GPU_BUILD=.gpu/rt
. scripts/gpu-calls/lib.sh
time_all() {
  alternate .gpu/mc30 3 "blog-bf16 minimal-bf16 n32-d1024-bf16 ds-blog-bf16 step-blog-bf16 \
n30-f16-clamp mid-bf16" "h- -"
}
random() {
  validate $(ls -d .gpu/random30/*/) > "$OUT/random-all.txt" 2>&1
  grep -v PASS "$OUT/random-all.txt"
  echo "$(grep -c PASS "$OUT/random-all.txt") of $(wc -l < "$OUT/random-all.txt") PASS"
}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-time_all random}
