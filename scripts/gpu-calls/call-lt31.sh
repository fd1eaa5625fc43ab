#!/usr/bin/env bash
# Thirty-first session (docs/PERF-NOTES.md): blog's x copies issued partly inside the k loop.
# Set lt31 (a compile-time probe of this session, not committed: SIGREG_PROBE_STAGE), blog and
# its training step: base- the rule (each warp issues its 16 copies before the loop); late1-
# the first span's copies before the loop, span s + 1's at iteration s; late2- two spans before,
# span s + 2's at iteration s; c2-blog: this compiler's clusters of 2 (--single-launch-stage-x=2,
# half the copies per block, multicast), for its ncu regions. Then the module with the direct
# call against float64, the ops path against ctypes bitwise and the device step (module_check
# --ops --device-step at blog, minimal and mid). Carry [".gpu/rt", ".gpu/lt31",
# ".gpu/modcache"]. About 5 minutes.
export PATH=$PATH:/usr/local/cuda/bin
export SIGREG_GPU_BUILD=.gpu/rt SIGREG_AOT_LIB=.gpu/rt/lib/libsigreg_aot.so
export SIGREG_CACHE_DIR=.gpu/modcache
. scripts/gpu-calls/lib.sh
V="base- late1- late2-"
check() { local v n; for n in blog-bf16 step-blog-bf16; do for v in $V; do
  validate .gpu/lt31/$v$n; done; done; validate .gpu/lt31/c2-blog-bf16; }
time_all() { alternate .gpu/lt31 3 "blog-bf16 step-blog-bf16" "$V"; alternate .gpu/lt31 2 "blog-bf16" "c2-"; }
prof() { profile lt31/late2-blog-bf16 lt31/c2-blog-bf16; }
module() { PYTHONPATH=python timeout 300 python3 -m sigreg.module_check --only blog,minimal,mid \
  --ops --device-step 2>&1 | grep -v -i warn | tail -60; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-check time_all prof module}
