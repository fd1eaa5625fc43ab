#!/usr/bin/env bash
# After scripts/gpu-calls/pack-promote128.sh here; from the repository root with carry
# [".gpu", ".gpun/pw"] (docs/PERF-NOTES.md, twenty-first
# session): promoted sums in the 128 x 128 tile (w-NAME: --promote-accumulators=4
# --wgmma-slices=128, one CTA per multiprocessor, 6 stages) against the 128 x 64 tile the rule
# promotes in (NAME). N 8192 S 1024 per-slice at D 1024 and 4096, a ragged N 8100 D 4000 S 1000
# (NAME = the rule), and a small ragged one for the sanitizers. Results under $OUT.
export SIGREG_GPU_BUILD=.gpu/rt
timeout 300 bash scripts/gpu-ab.sh .gpun/pw --prefix w- --sanitize "w-small" --rounds 2 \
  --out $OUT/pw 2>&1 | grep -E 'rc=| r[0-9] |gpu-ab'
