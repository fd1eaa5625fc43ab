#!/usr/bin/env bash
# Thirty-seventh session, call 2 (docs/PERF-NOTES.md): more step groups ahead
# (--single-launch-gen-ahead up to 6) at blog and its device-step forward, with TMA boxes
# (taK-) and with the rule's bulk copies (baK-), N 32 D 1024 with 1-3 ahead, and three other
# staged shapes in the two best forms of call 1; every ta*/ba* artifact validated first, then
# timed against the rule in one process (3 rounds alternating), the sanitizers on ta6-blog.
# Recipe (CPU machine): scripts/build.sh, scripts/gpu-pack.sh, then
#   PIPES=fused bash scripts/build-gpu-artifacts.sh build .gpu/ahead37b ahead37b
# Carry [".gpu/rt", ".gpu/ahead37b"]. About 2 minutes.
export PATH=$PATH:/usr/local/cuda/bin
. scripts/gpu-calls/lib.sh
D=.gpu/ahead37b
check() { validate $(ls -d $D/ta*-*/ $D/ba*-*/ | grep -v unclipped); }
times() { alternate $D 3 "blog-bf16 ds-blog-bf16" "- ta3- ta4- ta5- ta6- ba2- ba3- ba4-";
  alternate $D 3 n32-d1024-bf16 "- ta2- ba1- ba2- ba3-";
  alternate $D 3 "n64-d1024-bf16 v2-n32-d2048-bf16 n32-d2048-p33-f16" "- ta3- ba2-"; }
san() { sanitize $D/ta6-blog-bf16; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-times check san}
