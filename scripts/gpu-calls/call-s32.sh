#!/usr/bin/env bash
# Thirty-second session (docs/PERF-NOTES.md): the single launch's last step forms each
# column's statistic over four lanes (two at 16 slices per block) instead of one. Set s32
# (PIPES=fused bash scripts/build-gpu-artifacts.sh build DIR stat32 by this compiler, then
# PREFIX=o- ... stat32-timed by the compiler before it): validation of every NAME, sanitizers
# on three, then o-NAME against NAME and NAME against fn-NAME (fast-normals' mapping) at
# minimal and three shapes of more than 32 rows (where the rule keeps the exact mapping),
# 3 rounds alternating. Carry [".gpu/rt", ".gpu/s32"]. About 4 minutes.
export PATH=$PATH:/usr/local/cuda/bin
export SIGREG_GPU_BUILD=.gpu/rt SIGREG_AOT_LIB=.gpu/rt/lib/libsigreg_aot.so
. scripts/gpu-calls/lib.sh
T="minimal-bf16 blog-bf16 step-blog-bf16 views8-n16-bf16 n24-d1001-bf16 minimal-f32"
check() { validate $(ls -d .gpu/s32/*/ | grep -v '/o-'); }
san() { local n; for n in minimal-bf16 fn-minimal-bf16 step-views-f16-zero-sum; do
  sanitize .gpu/s32/$n; done; }
time_all() { alternate .gpu/s32 3 "$T" "o- -"; alternate .gpu/s32 3 \
  "minimal-bf16 n64-d1024-bf16 n128-d1024-bf16 odd-v3-n100-bf16" "- fn-"; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-check san time_all}
