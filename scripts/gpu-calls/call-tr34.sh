#!/usr/bin/env bash
# Thirty-fourth session (docs/PERF-NOTES.md): the single launch's ECF from transposed
# accumulators (--single-launch-transposed-ecf: g^T x^T, every accumulator a lane holds of one
# slice, 24 butterfly shuffles per warp instead of 56). Set transposed34 (PIPES=fused bash
# scripts/build-gpu-artifacts.sh build .gpu/tr34 transposed34): NAME the rule, tr-NAME the
# option. Validates every tr- artifact against float64, times both forms (5 rounds,
# alternating), sanitizers on two. Carry [".gpu/rt", ".gpu/tr34"]. About 1.5 minutes.
export PATH=$PATH:/usr/local/cuda/bin
. scripts/gpu-calls/lib.sh
check() { validate .gpu/tr34/tr-*/; }
times() { alternate .gpu/tr34 5 "minimal-bf16 minimal-f16 ds-minimal-bf16 fe-n256-d8-sum \
  fe-v8-n160-zero" "- tr-"; }
san() { sanitize .gpu/tr34/tr-minimal-bf16; sanitize .gpu/tr34/tr-fe-n45-d13-forced; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-check times san}
