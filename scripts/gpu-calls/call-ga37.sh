#!/usr/bin/env bash
# Thirty-seventh session (docs/PERF-NOTES.md): g generated step groups ahead of its MMAs
# (--single-launch-gen-ahead). Validates every ta*/ba* artifact of set ahead37 against
# float64, times blog in every form (the rule, TMA boxes, TMA boxes 1-3 groups ahead, bulk
# copies 1-2 ahead; 3 rounds alternating), N 32 D 1024 and the device-step blog in the
# rule's and the ahead forms, minimal and mid of set s37 beside them (issue 8's figures on the
# same device), runs the sanitizers on ta2-blog and profiles it (ncu).
# Recipe (CPU machine): scripts/build.sh, scripts/gpu-pack.sh, then
#   PIPES=fused bash scripts/build-gpu-artifacts.sh build .gpu/ahead37 ahead37
#   PIPES=fused bash scripts/build-gpu-artifacts.sh build .gpu/s37 single
# Carry [".gpu/rt", ".gpu/ahead37", ".gpu/s37"]. About 3 minutes.
export PATH=$PATH:/usr/local/cuda/bin
. scripts/gpu-calls/lib.sh
check() { validate $(ls -d .gpu/ahead37/ta*-*/ .gpu/ahead37/ba*-*/ | grep -v unclipped); }
times() { alternate .gpu/ahead37 3 blog-bf16 "- t- ta1- ta2- ta3- ba1- ba2-";
  alternate .gpu/ahead37 3 "n32-d1024-bf16 ds-blog-bf16" "- t- ta1- ta2- ta3- ba2-";
  alternate .gpu/s37 3 "minimal-bf16 mid-bf16" -; }
san() { sanitize .gpu/ahead37/ta2-blog-bf16; }
prof() { profile ahead37/ta2-blog-bf16; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-times check san prof}
