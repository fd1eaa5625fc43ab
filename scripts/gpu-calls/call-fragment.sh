#!/usr/bin/env bash
# After call-single.sh, on the same packs (carry [".gpu"]; docs/PERF-NOTES.md, twenty-third
# session): the single launch's changes against an earlier compiler's kernels, the ECF on the
# mma.sync accumulators, the k loop's step groups, and the fused backward set (per-slice steps at
# N <= 256 compile since this session). Needs `grad-fused` packed too. Results under $OUT. About
# 9 minutes.
export SIGREG_GPU_BUILD=.gpu/rt
# 1. This compiler's single launch (g rounded in pairs, y scaled by one reciprocal per thread)
# against 1b8a104's (base-NAME, .gpu/singleab), three rounds of pairs.
timeout 100 bash scripts/gpu-ab.sh .gpu/singleab --prefix base- --skip-validate --rounds 3 \
  --out $OUT/singleab 2>&1 | grep -E ' r[0-9] |gpu-ab'
# 2. The ECF on the mma.sync accumulators (fe-NAME, --single-launch-fragment-ecf; D <= 16):
# validated (fe-p3 is the rule's kernel, not applicable), sanitized at minimal and at the masked
# ragged batch, then three rounds of pairs.
timeout 120 bash scripts/gpu-ab.sh .gpu/fragment --prefix fe- --skip-bench \
  --sanitize "fe-minimal-bf16 fe-ragged-f16" --out $OUT/fe-val 2>&1 | grep -E 'rc=|gpu-ab: done'
timeout 90 bash scripts/gpu-ab.sh .gpu/fragment --prefix fe- --skip-validate --rounds 3 \
  --out $OUT/fe-bench 2>&1 | grep -E ' r[0-9] |gpu-ab'
# 3. The k loop with 2 or 8 steps per iteration (sg2-, sg8-; the rule takes 4): validated, then
# two rounds of pairs each. A loop body that no longer fits the instruction cache would show as
# sg2 faster and sg8 slower; x loads' latency as sg8 faster.
timeout 60 bash scripts/gpu-ab.sh .gpu/stepgroup --prefix sg2- --skip-bench --out $OUT/sg-val \
  2>&1 | grep -E 'rc=|gpu-ab: done'
for g in 2 8; do
  timeout 60 bash scripts/gpu-ab.sh .gpu/stepgroup --prefix sg$g- --skip-validate --rounds 2 \
    --out $OUT/sg$g-bench 2>&1 | grep -E ' r[0-9] |gpu-ab'
done
# 4. The fused backward set, validated (its fused artifacts; new: gradf-n96-none-bf16 and
# gradf-n200-zero-none-f16, the per-slice single-launch step; gradf-step- and
# gradf-phased-n300-d72-s48-bf16, the backward reading the split forward's hi rows), sanitizers
# on three of the new ones.
timeout 280 bash scripts/gpu-ab.sh .gpu/grad-fused --prefix none- --skip-bench \
  --sanitize "gradf-n96-none-bf16 gradf-n200-zero-none-f16 gradf-step-n300-d72-s48-bf16" \
  --out $OUT/gradf 2>&1 | grep -E 'rc=|gpu-ab: done'
