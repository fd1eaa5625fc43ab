#!/usr/bin/env bash
# Thirty-seventh session, call 3 (docs/PERF-NOTES.md): the session's rules (x by TMA boxes in
# forwards with D >= 2048; g generated the warp's step groups less 2 ahead, at most 6).
# Validates every artifact of set rule37 against float64, times blog, two views and P 33 f16
# against the rules off (o-: the compiler before), and issue 8's minimal and mid (set s37,
# unchanged by the rules), 5 rounds on an H200, 3 on an H100; sanitizers on the two views;
# ncu of blog.
# Recipe (CPU machine): scripts/build.sh, scripts/gpu-pack.sh, then
#   PIPES=fused bash scripts/build-gpu-artifacts.sh build .gpu/rule37 rule37
#   PIPES=fused bash scripts/build-gpu-artifacts.sh build .gpu/s37 single
# Carry [".gpu/rt", ".gpu/rule37", ".gpu/s37"]. About 2 minutes.
export PATH=$PATH:/usr/local/cuda/bin
. scripts/gpu-calls/lib.sh
rounds=3
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && rounds=5
D=.gpu/rule37
check() { validate $(ls -d $D/*/ | grep -v -e unclipped -e /o-); }
times() { alternate $D $rounds blog-bf16 "- o-"; alternate .gpu/s37 $rounds "minimal-bf16 mid-bf16" -;
  alternate $D 3 "v2-n32-d2048-bf16 n32-d2048-p33-f16" "- o-"; }
san() { sanitize $D/v2-n32-d2048-bf16; }
prof() { profile rule37/blog-bf16; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-times check san prof}
