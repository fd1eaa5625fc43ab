#!/usr/bin/env bash
# From the repository root (docs/PERF-NOTES.md, twenty-first session), run with carry
# [".gpu", ".gpun/changed"]: .gpun/changed holds the configurations of the anchors, hopper,
# transposed, training and perslice sets whose PTX the new rules (the persistent transposed
# tile where it keeps its waves, promoted sums for per-slice statistics past the truncation
# budget) change. Results under $OUT.
#  1. validate them against float64; sanitizers on two, and on the two promoted kernels;
#  2. the tpersistent pairs in the same process as torch.compile (B = tp-NAME = the new rule's
#     PTX, byte for byte; A = the one-tile kernel, the old rule);
#  3. the d512 pair in sigreg-aot-run (its first timing was lost).
export SIGREG_GPU_BUILD=.gpu/rt
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
timeout 200 bash scripts/gpu-ab.sh .gpun/changed --skip-bench --sanitize "wgs-f16-none tr-n100-none" \
  --out $OUT/val 2>&1 | tail -24
pss=/tmp/pss; rm -rf $pss; mkdir -p $pss
for n in ps-n8192-d128-promote4 ps-n8192-d128-mma-promote; do ln -s $(pwd)/.gpu/perslice/$n $pss/$n; done
timeout 150 bash scripts/gpu-ab.sh $pss --skip-bench --sanitize "ps-n8192-d128-promote4 ps-n8192-d128-mma-promote" \
  --out $OUT/val-promote 2>&1 | grep -E 'rc=|gpu-ab: done'
timeout 60 bash scripts/gpu-ab.sh .gpu/tpersistent --skip-validate --rounds 2 --pairs "d512-bf16" \
  --out $OUT/d512 2>&1 | grep -E ' r[0-9] '
sed -i 's/timeout 300 python3/timeout 420 python3/' scripts/gpu-ab.sh
timeout 330 bash scripts/gpu-ab.sh .gpu/tpersistent --skip-validate --skip-bench \
  --same-process "large-bf16 wide-bf16 views2-bf16 n16384-bf16" --out $OUT/same 2>&1 | tail -40
