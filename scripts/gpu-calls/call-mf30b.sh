#!/usr/bin/env bash
# Thirtieth session (docs/PERF-NOTES.md): the SIMT single launch (f32 inputs, explicit
# projections) before and after the twenty-ninth session's halving butterfly, neither with
# .minnctapersm (the rule leaves them without). Set mf30 plus p-NAME: the h-NAME configurations
# built by this compiler with 262e40e and 5a7a584 reverted in its source files (a temporary
# `git revert --no-commit 5a7a584 262e40e`, then `git revert --abort`). Carry [".gpu/rt",
# ".gpu/mf30"]. About 1 minute.
export SIGREG_GPU_BUILD=.gpu/rt
. scripts/gpu-calls/lib.sh
time_all() {
  alternate .gpu/mf30 3 "blog-f32 minimal-f32 n32-d1024-f32 explicit-n37-f16 explicit-blog-bf16" \
    "p- h-"
}
check() { validate $(ls -d .gpu/mf30/p-*/); }
nvidia-smi --query-gpu=name --format=csv,noheader
run_parts ${PART:-time_all check}
