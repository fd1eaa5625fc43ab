#!/usr/bin/env bash
# Thirtieth session (docs/PERF-NOTES.md; not run, the device time ran out): the SIMT single
# launch (f32 inputs, explicit projections) with the twenty-ninth session's halving butterfly
# (h-NAME of set mf30, built before emitTileEcf kept the halving for tensor cores) against the
# full butterfly (p-NAME: the same configurations built with 262e40e and 5a7a584 reverted in
# the compiler's sources, a temporary `git revert --no-commit 5a7a584 262e40e`; the same SASS as
# this compiler's NAME since the halving is the tensor cores' only). Neither has .minnctapersm.
# Carry [".gpu/rt", ".gpu/mf30"]. About 1 minute.
export SIGREG_GPU_BUILD=.gpu/rt
. scripts/gpu-calls/lib.sh
time_all() {
  alternate .gpu/mf30 3 "blog-f32 minimal-f32 n32-d1024-f32 explicit-n37-f16 explicit-blog-bf16" \
    "p- h-"
}
check() { validate $(ls -d .gpu/mf30/p-*/); }
nvidia-smi --query-gpu=name --format=csv,noheader
run_parts ${PART:-time_all check}
