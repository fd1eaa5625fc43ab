#!/usr/bin/env bash
# Thirty-first session (docs/PERF-NOTES.md): x staged where the seed is read from the device
# step (the module's default routes). Set ds31b: NAME by this compiler, o-NAME by the one
# before (device-step blog forward and phased step); the module's cache precompiled by this
# compiler (module_check --precompile --only blog). Sanitizers on both, then the module at blog
# (float64, ops against ctypes, the device step eager and from a graph). Carry [".gpu/rt",
# ".gpu/ds31b", ".gpu/modcache"]. About 2 minutes.
export PATH=$PATH:/usr/local/cuda/bin
export SIGREG_GPU_BUILD=.gpu/rt SIGREG_AOT_LIB=.gpu/rt/lib/libsigreg_aot.so
export SIGREG_CACHE_DIR=.gpu/modcache
. scripts/gpu-calls/lib.sh
san() { sanitize .gpu/ds31b/ds-blog-bf16; sanitize .gpu/ds31b/ds-phased-blog-bf16; }
module() { PYTHONPATH=python timeout 200 python3 -m sigreg.module_check --only blog --ops \
  --device-step 2>&1 | grep -v -i warn | grep -E "PASS|FAIL|kernels|failure" | tail -40; }
time_all() { alternate .gpu/ds31b 2 "ds-blog-bf16 ds-phased-blog-bf16" "o- -"; }
nvidia-smi --query-gpu=name --format=csv,noheader
run_parts ${PART:-san module time_all}
