#!/usr/bin/env bash
# Thirty-fifth session (docs/PERF-NOTES.md): issue 8's figures under the session's final
# compiler (set co35: blog, minimal, mid; 5 rounds on an H200, 3 on an H100) and ncu's source
# page of blog's single launch (scripts/ncu-regions.py reads it).
# Carry [".gpu/rt", ".gpu/co35"]. About 1 minute.
export PATH=$PATH:/usr/local/cuda/bin
. scripts/gpu-calls/lib.sh
rounds=3
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && rounds=5
figures() { alternate .gpu/co35 $rounds "blog-bf16 minimal-bf16 mid-bf16" -; }
prof() { profile co35/blog-bf16; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-figures prof}
