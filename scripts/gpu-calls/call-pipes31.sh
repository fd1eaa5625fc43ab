#!/usr/bin/env bash
# Thirty-first session (docs/PERF-NOTES.md): which pipes bound blog's and minimal's single
# launch (ncu, the second launch): every pipe's active cycles and instructions as a share of
# its peak, the issue rate, the warp stall reasons, the launch statistics. Set hx30. Carry
# [".gpu/rt", ".gpu/hx30"]. About a minute.
export PATH=$PATH:/usr/local/cuda/bin
. scripts/gpu-calls/lib.sh
pipes() { local n; for n in blog-bf16 minimal-bf16; do
  echo "== $n"
  timeout 120 ncu --clock-control none -k regex:sigreg_single_launch --launch-skip 1 -c 1 \
    --metrics 'regex:^sm__pipe_.*_cycles_active\.avg\.pct_of_peak_sustained_active$,regex:^sm__inst_executed_pipe_.*\.avg\.pct_of_peak_sustained_active$,sm__issue_active.avg.pct_of_peak_sustained_active,sm__cycles_active.avg,gpc__cycles_elapsed.max,gpu__time_duration.sum,regex:^smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,lts__t_bytes.sum,dram__bytes_read.sum' \
    .gpu/rt/bin/sigreg-aot-run .gpu/hx30/$n/fused 2>&1 | grep -E '^ +[a-z]' | awk '$NF != "0" && $NF != "0.00"'
done; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-pipes}
