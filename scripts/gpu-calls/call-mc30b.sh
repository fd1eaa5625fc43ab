#!/usr/bin/env bash
# Thirtieth session, third machine (docs/PERF-NOTES.md): the minctasm rule extended to grids of
# two blocks per multiprocessor (.minnctapersm 2: four and eight views, 256 blocks), and the
# variants measured before the rule, again under it: 16 warps and 4-step groups at blog, x
# staged where the rule does not stage. Set mc30b (`PIPES=fused scripts/build-gpu-artifacts.sh
# build DIR minctasm30b`). From the repository root with carry [".gpu/rt", ".gpu/mc30b"]; every
# part writes its own file under $OUT. About 3 minutes.
export PATH=$PATH:/usr/local/cuda/bin
export SIGREG_GPU_BUILD=.gpu/rt
. scripts/gpu-calls/lib.sh
set=.gpu/mc30b
time_all() {
  alternate $set 3 "views4-n32-bf16 views8-n16-bf16" "h- -"
  alternate $set 3 "blog-bf16" "- w16- g4-"
  alternate $set 2 "step-blog-bf16" "- g4-"
  alternate $set 2 "n32-d1024-bf16 n16-d2048-bf16 n64-d1024-bf16" "- s1-"
}
check() {
  validate $set/views4-n32-bf16 $set/views8-n16-bf16 $set/w16-blog-bf16 $set/g4-blog-bf16 \
    $set/g4-step-blog-bf16 $set/s1-n32-d1024-bf16 $set/s1-n16-d2048-bf16 $set/s1-n64-d1024-bf16
  sanitize $set/views4-n32-bf16
}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-time_all check}
