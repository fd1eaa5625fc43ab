#!/usr/bin/env bash
# Thirty-fourth session (docs/PERF-NOTES.md): the single launch's ECF from transposed
# accumulators (--single-launch-transposed-ecf: g^T x^T, every accumulator a lane holds of one
# slice, 24 butterfly shuffles per warp instead of 56). Built on the CPU machine with
#   bash scripts/build.sh && bash scripts/gpu-pack.sh build transposed34
# (set transposed34: NAME the rule, tr-NAME the option). Validates every tr- artifact against
# float64, times both forms (5 rounds, alternating), sanitizers on three (n64: warps past
# the 64-row batch, whose x rows are clamped). Not yet run: the
# thirty-fourth session's device time ran out first.
# Carry [".gpu/rt", ".gpu/transposed34"]. About 1.5 minutes.
export PATH=$PATH:/usr/local/cuda/bin
. scripts/gpu-calls/lib.sh
check() { validate .gpu/transposed34/tr-*/; }
times() { alternate .gpu/transposed34 5 "minimal-bf16 minimal-f16 ds-minimal-bf16 fe-n256-d8-sum \
  fe-v8-n160-zero" "- tr-"; }
san() { sanitize .gpu/transposed34/tr-minimal-bf16; sanitize .gpu/transposed34/tr-fe-n45-d13-forced
  sanitize .gpu/transposed34/tr-fe-n64-forced; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-check times san}
