#!/usr/bin/env bash
# Thirty-second session (docs/PERF-NOTES.md): the compiler of the last-step statistic over
# four lanes and the fast-normals tile rule, checked wide. Sets: v32 (PIPES=fused
# bash scripts/build-gpu-artifacts.sh build DIR SET for random, single, step, phased and
# device-step, keeping the 114 configurations with a single launch), f32 (blog and minimal
# copied from v32, mid from s32: this compiler's), the module's cache precompiled by this
# compiler (module_check --precompile --only blog,minimal,mid). Call 4 ran it with the
# figures from sets s32 and fn32 (the compiler of 131065f); call 8 with set f32 (da0b99a). Issue 8's figures (blog, minimal, mid; 3 rounds), validation of v32,
# the module (float64, ops against ctypes, the device step), sanitizers on two shapes.
# Carry [".gpu/rt", ".gpu/v32", ".gpu/f32", ".gpu/modcache"]. About 6 minutes.
export PATH=$PATH:/usr/local/cuda/bin
export SIGREG_GPU_BUILD=.gpu/rt SIGREG_AOT_LIB=.gpu/rt/lib/libsigreg_aot.so
export SIGREG_CACHE_DIR=.gpu/modcache
. scripts/gpu-calls/lib.sh
figures() { alternate .gpu/f32 3 "blog-bf16 minimal-bf16 mid-bf16" -; }
check() { validate .gpu/v32/*/ > $OUT/v32.txt; grep -v PASS $OUT/v32.txt
  echo "PASS $(grep -c PASS $OUT/v32.txt) of $(ls -d .gpu/v32/*/ | wc -l)"; }
module() { PYTHONPATH=python timeout 300 python3 -m sigreg.module_check --only blog,minimal,mid \
  --ops --device-step 2>&1 | grep -v -i warn | tail -75; }
san() { sanitize .gpu/v32/sl-views-ragged-clamp; sanitize .gpu/v32/minimal-bf16; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-figures check module san}
