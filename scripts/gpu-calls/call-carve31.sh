#!/usr/bin/env bash
# Thirty-first session (docs/PERF-NOTES.md): two probes in one call.
#  carve: does the shared-memory carveout the driver picks at each launch cost blog or minimal
#    anything? .gpu/rtexp is this runtime with a probe (not committed) that sets
#    CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT to $SIGREG_EXP_CARVEOUT on every kernel
#    at load; "-" leaves it unset (the committed runtime's behavior). Set hx30.
#  host_ab: the module's host time per call, this session's Python (the direct call of a
#    device-step route's op) against HEAD's (.gpu/oldpy31/python), alternating, 3 rounds.
# Carry [".gpu/rt", ".gpu/rtexp", ".gpu/hx30", ".gpu/modcache", ".gpu/oldpy31"]. About 2 minutes.
export PATH=$PATH:/usr/local/cuda/bin
export SIGREG_GPU_BUILD=.gpu/rt SIGREG_AOT_LIB=.gpu/rt/lib/libsigreg_aot.so
export SIGREG_CACHE_DIR=.gpu/modcache
. scripts/gpu-calls/lib.sh
carve() {
  local r c n
  for r in 1 2 3; do for n in blog-bf16 minimal-bf16; do for c in - 0 100 50; do
    if [ "$c" = - ]; then unset SIGREG_EXP_CARVEOUT; else export SIGREG_EXP_CARVEOUT=$c; fi
    echo "carve$c $n r$r $(timeout 60 .gpu/rtexp/bin/sigreg-aot-run .gpu/hx30/$n/fused --bench \
      --no-validate 2>&1 | grep -E '^full_forward|rror' | awk '{printf "%s ", $2}')"
  done; done; done
  unset SIGREG_EXP_CARVEOUT
}
host_ab() {
  local r p
  for r in 1 2 3; do for p in .gpu/oldpy31/python python; do
    echo "$p r$r $(PYTHONPATH=$p timeout 100 python3 -m sigreg.module_check --only blog \
      --skip-check --host 2>&1 | grep -E '^blog +ops')"
  done; done
}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-carve host_ab}
