#!/usr/bin/env bash
# Thirty-seventh session, call 5 (docs/PERF-NOTES.md): g generated ahead in training steps
# (explicit --single-launch-gen-ahead; the rule leaves steps alone): every baK-/taK- artifact
# of set step37 validated (loss and gradient) against float64, then timed against the rule,
# 3 rounds alternating; minimal (set s37) beside them.
# Recipe (CPU machine): scripts/build.sh, scripts/gpu-pack.sh, then
#   PIPES=fused bash scripts/build-gpu-artifacts.sh build .gpu/step37 step37
#   PIPES=fused bash scripts/build-gpu-artifacts.sh build .gpu/s37 single
# Carry [".gpu/rt", ".gpu/step37", ".gpu/s37"]. About 2 minutes.
export PATH=$PATH:/usr/local/cuda/bin
. scripts/gpu-calls/lib.sh
D=.gpu/step37
check() { validate $(ls -d $D/ba*/ $D/ta*/); }
times() { alternate $D 3 step-blog-bf16 "- ba2- ba4- ba6- ta2- ta4- ta6-";
  alternate $D 3 step-n32-d1024-bf16 "- ba1- ba2-"; alternate .gpu/s37 3 minimal-bf16 -; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-times check}
