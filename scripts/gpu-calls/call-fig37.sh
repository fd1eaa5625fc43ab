#!/usr/bin/env bash
# Thirty-seventh session (docs/PERF-NOTES.md): issue 8's three figures (blog, minimal, mid)
# under this session's starting compiler, validated first; 5 rounds on an H200, 3 on an H100.
# Recipe (CPU machine): scripts/build.sh, scripts/gpu-pack.sh, then
#   PIPES=fused bash scripts/build-gpu-artifacts.sh build .gpu/s37 single
# Carry [".gpu/rt", ".gpu/s37"]. About 1 minute.
export PATH=$PATH:/usr/local/cuda/bin
. scripts/gpu-calls/lib.sh
rounds=3
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && rounds=5
check() { validate .gpu/s37/blog-bf16 .gpu/s37/minimal-bf16 .gpu/s37/mid-bf16; }
figures() { alternate .gpu/s37 $rounds "blog-bf16 minimal-bf16 mid-bf16" -; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-check figures}
