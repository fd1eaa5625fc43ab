#!/usr/bin/env bash
# Thirty-fourth session (docs/PERF-NOTES.md): 16 warps at the k-loop shapes again, with x
# staged in clusters, the staggered walk and the fast normals by rule (set warps16b34: NAME the
# rule, w16-NAME --single-launch-warps=16; PIPES=fused bash scripts/build-gpu-artifacts.sh
# build .gpu/warps16b34 warps16b34). Times both forms (5 rounds, alternating), validates the w16-
# artifacts, sanitizers on w16-blog. Carry [".gpu/rt", ".gpu/warps16b34"]. About 1 minute.
export PATH=$PATH:/usr/local/cuda/bin
. scripts/gpu-calls/lib.sh
times() { alternate .gpu/warps16b34 5 "blog-bf16 sl-n32-d1024 sl-v8-n16-d384 step-blog-bf16 \
  ds-blog-bf16" "- w16-"; }
check() { validate .gpu/warps16b34/w16-*/; }
san() { sanitize .gpu/warps16b34/w16-blog-bf16; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-times check san}
