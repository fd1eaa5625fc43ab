#!/usr/bin/env bash
# Forty-first session (docs/PERF-NOTES.md): where minimal's 6 us go, by subtraction. Validates
# set floor41 (minimal, minimal at P 9 and 3, 32 rows at P 3 on the same 128-block grid, and
# one-block grids with one of minimal's blocks of work and with almost none), times the six
# in turn (9 rounds), then the hand-written Triton floor (kernels-ref/microbench_tail.py
# --flush: an empty grid and one with the kernel's atomic, 1 and 128 blocks, each launch timed
# after the runner's L2 flush). On an H200 it also runs call-rule40.sh's parts (issue 8's
# figures under the term-sums rule), which need .gpu/s40 and .gpu/terms40.
# Recipe (CPU machine): scripts/build.sh, scripts/gpu-pack.sh, then
#   PIPES=fused bash scripts/build-gpu-artifacts.sh build .gpu/floor41 floor41
#   (and for the H200 parts, .gpu/s40 single and .gpu/terms40 terms40 as call-rule40.sh says)
# Carry [".gpu/rt", ".gpu/floor41", ".gpu/s40", ".gpu/terms40"]. About 2-3 minutes.
export PATH=$PATH:/usr/local/cuda/bin
. scripts/gpu-calls/lib.sh
names="minimal-bf16 fl-p9 fl-p3 fl-n32-p3 fl-one-n256-p17 fl-one-n16-p3"
fcheck() { validate $(for n in $names; do echo .gpu/floor41/$n; done); }
ffloor() { alternate .gpu/floor41 9 "$names" -; }
tri() { for b in 1 128; do python3 kernels-ref/microbench_tail.py --flush --blocks $b; done; }
rule40() { bash scripts/gpu-calls/call-rule40.sh; }
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "$gpu"
parts=${PART:-fcheck ffloor tri}
case "$gpu" in *H200*) parts="$parts rule40" ;; esac
run_parts $parts
