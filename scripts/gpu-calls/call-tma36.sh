#!/usr/bin/env bash
# Thirty-sixth session (docs/PERF-NOTES.md): x staged by TMA boxes (--single-launch-stage-tma).
# Validates every t- and t2- artifact of set tma36 against float64, times five shapes against
# the rule's bulk copies (NAME, t-NAME and for three t2-NAME, 3 rounds alternating, with
# minimal and mid), runs the sanitizers on two and profiles t-blog (ncu).
# Recipe (CPU machine): scripts/build.sh, then
#   PIPES=fused bash scripts/build-gpu-artifacts.sh build .gpu/tma36 tma36
# and minimal-bf16, mid-bf16 from set co35 (call-fin35.sh; this compiler's PTX is the same)
# copied in: issue 8's other two figures on the same device.
# Carry [".gpu/rt", ".gpu/tma36"]. About 3 minutes.
export PATH=$PATH:/usr/local/cuda/bin
. scripts/gpu-calls/lib.sh
rounds=3
check() { validate $(ls -d .gpu/tma36/t-*/ .gpu/tma36/t2-*/); }
times() { alternate .gpu/tma36 $rounds "blog-bf16 step-blog-bf16 n32-d1024-bf16" "- t- t2-";
  alternate .gpu/tma36 $rounds "ds-blog-bf16 v2-n32-d2048-bf16" "- t-";
  alternate .gpu/tma36 $rounds "minimal-bf16 mid-bf16" -; }
san() { local c; for c in t-blog-bf16 t-step-blog-bf16; do
  sanitize .gpu/tma36/$c; done; }
prof() { profile tma36/t-blog-bf16; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-check times san prof}
