#!/usr/bin/env bash
# Sourced by the call scripts that read a kernel's time, issue, pipes and stall reasons by
# name: sets `st` to the ncu --metrics list, puts the CUDA tools on PATH and defines
# `ncu_single DIR NAME...`: those metrics of each artifact's single-launch kernel (second
# launch) into $OUT/ncu-NAME.txt, with a summary on stdout.
export PATH=$PATH:/usr/local/cuda/bin
st="gpu__time_duration.sum,sm__inst_issued.avg.pct_of_peak_sustained_active"
for p in alu fma fmaheavy xu lsu; do
  st=$st,sm__inst_executed_pipe_$p.avg.pct_of_peak_sustained_active
done
for r in long_scoreboard short_scoreboard wait math_pipe_throttle no_instruction barrier \
    lg_throttle mio_throttle not_selected dispatch_stall membar; do
  st=$st,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio
done
ncu_single() {
  local dir=$1 n; shift
  for n in "$@"; do
    timeout 60 ncu --metrics "$st" -k regex:sigreg_single_launch -c 2 \
      .gpu/rt/bin/sigreg-aot-run "$dir/$n/fused" > "$OUT/ncu-$n.txt" 2>&1
    echo "ncu $n rc=$?"; grep -E 'duration|pct_of_peak|stalled|ERROR' "$OUT/ncu-$n.txt" | tail -19
  done
}
