#!/usr/bin/env bash
# Thirty-fourth session (docs/PERF-NOTES.md): issue 8's figures (blog, minimal and mid, plain
# launch and from a graph, 5 rounds) on whatever card comes, from set tail34's NAME artifacts
# (this compiler's rule), and the tail prefetch (pt-) again at the shapes where call 2 saw it
# gain or lose. Carry [".gpu/rt", ".gpu/tail34"]. About 1 minute.
export PATH=$PATH:/usr/local/cuda/bin
. scripts/gpu-calls/lib.sh
figures() { alternate .gpu/tail34 5 "blog-bf16 minimal-bf16 mid-bf16" -; }
again() { alternate .gpu/tail34 3 "ds-minimal-bf16 step-minimal-bf16 slm-n256-d1024-sum" "- pt-"; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-figures again}
