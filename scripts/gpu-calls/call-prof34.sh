#!/usr/bin/env bash
# Thirty-fourth session (docs/PERF-NOTES.md): minimal's single launch under ncu once more, its
# SASS source page (scripts/ncu-regions.py $OUT/tail34-minimal-bf16-source.csv) and the spread
# of its blocks: the SM active cycles' minimum, mean and maximum over the multiprocessors, and
# the same for an ECF-free reference point (set tail34's NAME artifacts, this compiler's rule).
# Carry [".gpu/rt", ".gpu/tail34"]. About 1 minute.
export PATH=$PATH:/usr/local/cuda/bin
. scripts/gpu-calls/lib.sh
prof() { profile tail34/minimal-bf16; rm -f $OUT/tail34-minimal-bf16-details.csv; }
spread() { local n; for n in minimal-bf16 blog-bf16; do echo "== $n"
  timeout 100 ncu --metrics sm__cycles_active.min,sm__cycles_active.avg,sm__cycles_active.max,gpc__cycles_elapsed.max,sm__warps_launched.sum,smsp__inst_executed.max,smsp__inst_executed.min \
    --clock-control none -k regex:sigreg_single_launch --launch-skip 1 -c 1 \
    .gpu/rt/bin/sigreg-aot-run .gpu/tail34/$n/fused 2>&1 | grep -E "sm__|gpc__|smsp__"; done; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-prof spread}
