#!/usr/bin/env bash
# Thirtieth session (docs/PERF-NOTES.md): the minctasm rule on the single launch's SIMT kernels
# (f32 inputs) and with an explicit projection. Set mf30 (`PIPES=fused
# scripts/build-gpu-artifacts.sh build DIR minctasm30f`): NAME by rule, h-NAME with
# --single-launch-minctasm=0. Carry [".gpu/rt", ".gpu/mf30"]. About 1 minute.
export PATH=$PATH:/usr/local/cuda/bin
export SIGREG_GPU_BUILD=.gpu/rt
. scripts/gpu-calls/lib.sh
time_all() {
  alternate .gpu/mf30 3 "blog-f32 minimal-f32 n32-d1024-f32 explicit-n37-f16 explicit-blog-bf16" \
    "h- -"
}
check() { validate $(ls -d .gpu/mf30/*/ | grep -v '/h-'); }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-time_all check}
