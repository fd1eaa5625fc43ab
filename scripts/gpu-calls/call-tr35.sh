#!/usr/bin/env bash
# Thirty-fifth session (docs/PERF-NOTES.md): the ECF from transposed accumulators by default.
# Validates every artifact whose PTX the new default changes (set tr35: the configurations of
# sets single, fragment, random, tail34 and warps4 whose sigreg.ptx differs with
# --single-launch-transposed-ecf=0, that build as o-NAME), times five of them against their
# o- twins (3 rounds, alternating), sanitizers on two, and profiles minimal (ncu).
# Recipe (CPU machine): scripts/build.sh, then PIPES=fused scripts/build-gpu-artifacts.sh build
# /tmp/new/SET SET for SET in single fragment random tail34 warps4, the same with
# EXTRA=--single-launch-transposed-ecf=0 into /tmp/old/SET, and the differing ones copied into
# .gpu/tr35 (o-NAME from /tmp/old).
# Carry [".gpu/rt", ".gpu/tr35"]. About 1.5 minutes.
export PATH=$PATH:/usr/local/cuda/bin
. scripts/gpu-calls/lib.sh
check() { validate $(ls -d .gpu/tr35/*/ | grep -v '/o-'); }
times() { alternate .gpu/tr35 3 "fe-n128-s2048 fe-views-none fe-tiles-bf16 random-049 \
  ds-fenced-bf16" "- o-"; }
san() { sanitize .gpu/tr35/w4-minimal-bf16; sanitize .gpu/tr35/fe-ragged-f16; }
prof() { profile tr35/minimal-bf16; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-check times san prof}
