#!/usr/bin/env bash
# Thirty-fifth session (docs/PERF-NOTES.md): does the L1/shared carveout the driver picks for
# the single launch cost anything after the L2 flush's memset? sigreg-aot-run --bench with
# --carveout=P (every kernel's preferred shared-memory carveout) against the driver's choice,
# at minimal, blog and mid (set co35: those three of this compiler, copied from sets tr35 and
# tail34), 3 rounds alternating. Carry [".gpu/rt", ".gpu/co35"]. About 1 minute.
export PATH=$PATH:/usr/local/cuda/bin
. scripts/gpu-calls/lib.sh
carve() { local r n c
  for r in 1 2 3; do for n in minimal-bf16 blog-bf16 mid-bf16; do for c in - 0 50 100; do
    local flag=""; [ "$c" != - ] && flag="--carveout=$c"
    echo "$n c$c r$r $(timeout 60 .gpu/rt/bin/sigreg-aot-run .gpu/co35/$n/fused --bench \
      --no-validate $flag 2>&1 | grep -E '^full_forward|rror' | awk '{printf "%s ", $2}')"
  done; done; done; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-carve}
