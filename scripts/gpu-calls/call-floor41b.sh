#!/usr/bin/env bash
# Forty-first session, second call (docs/PERF-NOTES.md): where a one-block single launch's
# time goes when it has almost no work. ncu source pages (scripts/ncu-regions.py) of set
# floor41's one-block kernels and minimal; ncu's duration of the hand-written Triton floor
# (kernels-ref/microbench_tail.py: an empty block and one with the kernel's atomic, 1 and 128
# blocks); and the one-block kernels and minimal timed without the L2 flush (3 rounds).
# Recipe: as call-floor41.sh (set floor41). Carry [".gpu/rt", ".gpu/floor41"]. About 2 minutes.
export PATH=$PATH:/usr/local/cuda/bin
. scripts/gpu-calls/lib.sh
prof() { profile floor41/fl-one-n16-p3 floor41/fl-one-n256-p17 floor41/minimal-bf16
  for n in fl-one-n16-p3 fl-one-n256-p17 minimal-bf16; do
    echo "== regions $n"; python3 scripts/ncu-regions.py "$OUT/floor41-$n-source.csv" --top 4
  done; }
trincu() { local b k; for b in 1 128; do for k in empty one; do
  echo "== triton $k blocks $b"
  timeout 100 ncu --clock-control none -k regex:tail -c 1 \
    python3 kernels-ref/microbench_tail.py --ncu-kind $k --blocks $b 2>&1 |
    grep -E "^\s+(Duration|Elapsed Cycles|SM Active Cycles|SM Frequency)" | head -4
done; done; }
nf() { BENCH_FLAGS=--no-flush alternate .gpu/floor41 3 "fl-one-n16-p3 fl-one-n256-p17 minimal-bf16" -; }
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
run_parts ${PART:-prof trincu nf}
