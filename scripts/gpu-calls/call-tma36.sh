#!/usr/bin/env bash
# Thirty-sixth session (docs/PERF-NOTES.md): x staged by TMA boxes (--single-launch-stage-tma).
# Validates every t- artifact of set tma36 and t2-blog against float64, times four shapes
# against the rule's bulk copies (NAME, t-NAME, blog's t2-NAME too; 3 rounds alternating;
# minimal and mid beside them), runs the sanitizers on t-blog and profiles it (ncu).
# Recipe (CPU machine): scripts/build.sh, then
#   PIPES=fused bash scripts/build-gpu-artifacts.sh build .gpu/tma36 tma36
# and minimal-bf16, mid-bf16 from set co35 (call-fin35.sh; this compiler's PTX is the same)
# copied in: issue 8's other two figures on the same device.
# Carry [".gpu/rt", ".gpu/tma36"]. About 3 minutes.
export PATH=$PATH:/usr/local/cuda/bin
. scripts/gpu-calls/lib.sh
check() { validate $(ls -d .gpu/tma36/t-*/) .gpu/tma36/t2-blog-bf16; }
times() { alternate .gpu/tma36 3 blog-bf16 "- t- t2-";
  alternate .gpu/tma36 3 "step-blog-bf16 n32-d1024-bf16 ds-blog-bf16" "- t-";
  alternate .gpu/tma36 3 "minimal-bf16 mid-bf16" -; }
san() { sanitize .gpu/tma36/t-blog-bf16; }
prof() { profile tma36/t-blog-bf16; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-check times san prof}
