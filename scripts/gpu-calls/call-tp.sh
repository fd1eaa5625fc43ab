#!/usr/bin/env bash
# From the repository root, after scripts/gpu-pack.sh, on the GPU machine (run with carry [".gpu"]);
# docs/PERF-NOTES.md, twentieth session. Results under $OUT.
# Call 1 (tpersistent): validate the tp- variants, sanitize tp-ragged, time six pairs twice.
export SIGREG_GPU_BUILD=.gpu/rt
sub=/tmp/tpv; rm -rf $sub; mkdir -p $sub
for d in .gpu/tpersistent/tp-*/; do ln -s "$(cd "$d" && pwd)" "$sub/$(basename "$d")"; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
timeout 300 bash scripts/gpu-ab.sh $sub --skip-bench --sanitize "tp-ragged" --out $OUT/tp-val 2>&1 | tail -40
timeout 240 bash scripts/gpu-ab.sh .gpu/tpersistent --skip-validate --rounds 2 --pairs "large-bf16 wide-bf16 views4-bf16 views8-bf16 n16384-bf16 n4096-bf16" --out $OUT/tp-bench 2>&1 | tail -30
