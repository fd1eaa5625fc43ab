#!/usr/bin/env bash
# Thirty-first session (docs/PERF-NOTES.md): who issues the single launch's bulk copies of x.
# ncu (call 4) put 18% of blog's warp time in the copy-issue loops before the k loop: lane 0 of
# every warp issues its 16 copies through an ELECT loop, the operands moved to uniform
# registers one copy at a time. Set st31 (built by a probe of this session, not committed:
# SIGREG_PROBE_STAGE at compile time), blog and its training step:
#   base-    the rule (lane 0 of each warp, rows w, w + 8, ..., 4 spans of 2 step groups)
#   t0-      thread 0 issues all 128 copies (every operand uniform: no ELECT loop per copy)
#   pw-      lane 0 of each warp, in a branch per warp (operands uniform)
#   rows-, t0rows-, pwrows-  the same with one span (each row copied whole: 32 copies)
#   span4-, pwspan4-         two spans of 4 step groups (64 copies)
# Carry [".gpu/rt", ".gpu/st31"]. About 4 minutes.
export PATH=$PATH:/usr/local/cuda/bin
. scripts/gpu-calls/lib.sh
V="base- t0- pw- rows- t0rows- pwrows- span4- pwspan4-"
check() { local v n; for n in blog-bf16 step-blog-bf16; do for v in $V; do
  validate .gpu/st31/$v$n; done; done; }
time_all() { alternate .gpu/st31 3 "blog-bf16 step-blog-bf16" "$V"; }
prof() { profile st31/pw-blog-bf16 st31/t0-blog-bf16; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-check time_all prof}
