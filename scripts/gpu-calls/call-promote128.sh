#!/usr/bin/env bash
# After scripts/gpu-calls/pack-promote128.sh here; from the repository root with carry
# [".gpu", ".gpun/pw"] (docs/PERF-NOTES.md, twenty-first
# session): promoted sums in the 128 x 128 tile (w-NAME: --promote-accumulators=4
# --wgmma-slices=128, one CTA per multiprocessor, 6 stages) against the 128 x 64 tile the rule
# promotes in (NAME). N 8192 S 1024 per-slice at D 1024 and 4096, a ragged N 8100 D 4000 S 1000
# (NAME = the rule), and a small ragged one for the sanitizers. Results under $OUT.
export SIGREG_GPU_BUILD=.gpu/rt
# d1024 and d4096 are byte for byte the perslice set's validated -promote4 artifacts.
v=/tmp/pwv; rm -rf $v; mkdir -p $v
for n in w-d1024 w-d4096 ragged w-ragged w-small; do ln -s "$(pwd)/.gpun/pw/$n" $v/$n; done
timeout 200 bash scripts/gpu-ab.sh $v --skip-bench --sanitize "w-small" --out $OUT/val 2>&1 |
  grep -E 'rc=|gpu-ab: done'
timeout 120 bash scripts/gpu-ab.sh .gpun/pw --prefix w- --skip-validate --rounds 2 --out $OUT/bench 2>&1 |
  grep -E ' r[0-9] |gpu-ab'
