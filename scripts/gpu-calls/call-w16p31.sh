#!/usr/bin/env bash
# Thirty-first session (docs/PERF-NOTES.md): does blog's k loop run faster with more warps per
# scheduler or more Philox chains per warp, and where does the rest go? ncu's full set with
# the SASS source page (scripts/ncu-regions.py reads it here) for blog under the rules, in
# blocks of 16 warps (w16-) and with 4-step groups (g4-), set mc30b of the thirtieth session;
# then the three alternating, 3 rounds. Carry [".gpu/rt", ".gpu/mc30b"]. About 3 minutes.
export PATH=$PATH:/usr/local/cuda/bin
. scripts/gpu-calls/lib.sh
prof() { profile mc30b/blog-bf16 mc30b/w16-blog-bf16 mc30b/g4-blog-bf16; }
time_all() { alternate .gpu/mc30b 3 "blog-bf16" "- w16- g4-"; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-prof time_all}
