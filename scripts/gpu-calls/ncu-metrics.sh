#!/usr/bin/env bash
# Sourced by the call scripts that read a kernel's time, issue, pipes and stall reasons by
# name: sets `st` to the ncu --metrics list and puts the CUDA tools on PATH.
export PATH=$PATH:/usr/local/cuda/bin
st="gpu__time_duration.sum,sm__inst_issued.avg.pct_of_peak_sustained_active"
for p in alu fma fmaheavy xu lsu; do
  st=$st,sm__inst_executed_pipe_$p.avg.pct_of_peak_sustained_active
done
for r in long_scoreboard short_scoreboard wait math_pipe_throttle no_instruction barrier \
    lg_throttle mio_throttle not_selected dispatch_stall membar; do
  st=$st,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio
done
