#!/usr/bin/env bash
# Thirty-second session (docs/PERF-NOTES.md): fast-normals' mapping where the rule keeps the
# exact one. Set fn32 (PIPES=fused bash scripts/build-gpu-artifacts.sh build DIR fn32): NAME by
# rule, fn-NAME with --single-launch-fast-normals. Validation of every fn-NAME, sanitizers on
# the training step at minimal, then NAME against fn-NAME, 3 rounds alternating. Carry
# [".gpu/rt", ".gpu/fn32"]. About 4 minutes.
export PATH=$PATH:/usr/local/cuda/bin
export SIGREG_GPU_BUILD=.gpu/rt SIGREG_AOT_LIB=.gpu/rt/lib/libsigreg_aot.so
. scripts/gpu-calls/lib.sh
T="minimal-bf16 minimal-f16 n128-d1024-bf16 n256-d1024-bf16 views2-n64-bf16 odd-v3-n100-bf16
 n24-d1001-bf16 ragged-bf16-clamp n200-d136-f16 ds-minimal-bf16 step-minimal-bf16
 step-n128-d1024-bf16 phased-minimal-bf16"
check() { validate .gpu/fn32/fn-*; }
san() { sanitize .gpu/fn32/fn-step-minimal-bf16; sanitize .gpu/fn32/fn-ds-minimal-bf16; }
time_all() { alternate .gpu/fn32 3 "$T" "- fn-"; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-check san time_all}
