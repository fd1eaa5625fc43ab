#!/usr/bin/env bash
# Fortieth session (docs/PERF-NOTES.md): issue 8's figures under the compiler with
# --single-launch-term-sums=1 as the default. Validates the single set's minimal (the one
# configuration of set single whose PTX the new default changes) and terms40's minimal f16
# and device-step minimal (the others it changes are byte for byte call-terms39.sh's t1-
# artifacts), times blog, minimal and mid (9 rounds), and minimal against the previous
# default (terms40's t0- artifacts, =0), 9 rounds alternating.
# Recipe (CPU machine): scripts/build.sh, scripts/gpu-pack.sh, then
#   PIPES=fused bash scripts/build-gpu-artifacts.sh build .gpu/s40 single
#   PIPES=fused bash scripts/build-gpu-artifacts.sh build .gpu/terms40 terms40
# Carry [".gpu/rt", ".gpu/s40", ".gpu/terms40"]. About 1 minute.
export PATH=$PATH:/usr/local/cuda/bin
. scripts/gpu-calls/lib.sh
check() { validate .gpu/s40/minimal-bf16 .gpu/terms40/minimal-f16 .gpu/terms40/ds-minimal-bf16; }
times() { alternate .gpu/s40 9 "blog-bf16 minimal-bf16 mid-bf16" -;
  alternate .gpu/terms40 9 minimal-bf16 "- t0-"; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-check times}
