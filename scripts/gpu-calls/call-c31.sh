#!/usr/bin/env bash
# Thirty-first session (docs/PERF-NOTES.md): x staged in clusters of 2 by rule (the cluster
# barrier arrived relaxed). Set c31: NAME by this compiler (PIPES=fused bash
# scripts/build-gpu-artifacts.sh build DIR minctasm30, the six configurations whose PTX the
# rule changes) and o-NAME by the compiler before it (set mc30 of the thirtieth session):
# validation, sanitizers on two, 3 rounds alternating; then the module on artifacts of this
# compiler (.gpu/modcache precompiled here: module_check --precompile --only blog,minimal,mid)
# against float64, the ops path bitwise, the device step. Carry [".gpu/rt", ".gpu/c31",
# ".gpu/modcache"]. About 5 minutes.
export PATH=$PATH:/usr/local/cuda/bin
export SIGREG_GPU_BUILD=.gpu/rt SIGREG_AOT_LIB=.gpu/rt/lib/libsigreg_aot.so
export SIGREG_CACHE_DIR=.gpu/modcache
. scripts/gpu-calls/lib.sh
N="blog-bf16 step-blog-bf16 phased-blog-bf16 n32-f16-clamp-none step-n32-d1024-bf16"
check() { local n; for n in $N n32-f16-clamp-none-unclipped; do validate .gpu/c31/$n; done
  sanitize .gpu/c31/step-n32-d1024-bf16; sanitize .gpu/c31/phased-blog-bf16; }
time_all() { alternate .gpu/c31 3 "$N" "o- -"; }
quick() { local n; for n in $N; do validate .gpu/c31/$n; done; }  # PART="quick time_all": again on another card
module() { PYTHONPATH=python timeout 300 python3 -m sigreg.module_check --only blog,minimal,mid \
  --ops --device-step 2>&1 | grep -v -i warn | tail -75; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-check time_all module}
