#!/usr/bin/env bash
# Thirtieth session (docs/PERF-NOTES.md): the single launch's .minnctapersm 1 by rule
# (single-launch-minctasm). Set mc30 (`PIPES=fused scripts/build-gpu-artifacts.sh build DIR
# minctasm30`): NAME by rule, h-NAME with --single-launch-minctasm=0 (the rule before, byte for
# byte the twenty-ninth session's). From the repository root with carry [".gpu/rt", ".gpu/mc30",
# ".gpu/modcache"]; every part writes its own file under $OUT as it goes. About 6 minutes.
#  PART=time_all: h- and NAME alternating; PART=check: every NAME against float64, sanitizers on
#  three; PART=ops: the ops path against ctypes with the float64 checks (module_check --ops
#  --device-step), for making it the default.
export PATH=$PATH:/usr/local/cuda/bin
export SIGREG_GPU_BUILD=.gpu/rt
. scripts/gpu-calls/lib.sh
set=.gpu/mc30
time_all() {
  alternate $set 3 "blog-bf16 minimal-bf16 n32-d1024-bf16 ds-blog-bf16 step-blog-bf16" "h- -"
  alternate $set 2 "n16-d2048-bf16 n64-d1024-bf16 n24-d1001-bf16 n30-f16-clamp views4-n32-bf16 \
views8-n16-bf16 views2-n64-bf16 odd-v3-n100-bf16 phased-blog-bf16 n32-f16-clamp-none \
step-n32-d1024-bf16 n128-d1024-bf16 mid-bf16" "h- -"
}
check() {
  validate $(ls -d $set/*/ | grep -v '/h-')
  sanitize $set/blog-bf16
  sanitize $set/minimal-bf16
  sanitize $set/ds-blog-bf16
}
ops() {
  PYTHONPATH=python SIGREG_AOT_LIB=.gpu/rt/lib/libsigreg_aot.so SIGREG_CACHE_DIR=.gpu/modcache \
    SIGREG_TORCH_OPS=1 timeout 240 python3 -m sigreg.module_check --only blog,minimal,mid --ops \
    --device-step 2>&1 | grep -v -i warn | tail -60
}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-time_all check ops}
