#!/usr/bin/env bash
# After `scripts/gpu-pack.sh build cooperative anchors single stagger fragment stepgroup
# grad-fused` and
# `scripts/gpu-calls/pack-single-ab.sh BASE_RUN` here; from the repository root with carry
# [".gpu"], right after call-cooperative.sh (docs/PERF-NOTES.md, twenty-second session): issue
# 8's single launch at blog and minimal. Results under $OUT. About 5 minutes; call-fragment.sh
# follows.
export SIGREG_GPU_BUILD=.gpu/rt
# 1. Issue 8's blog and minimal: which pipe binds the single launch (docs/PERF-NOTES.md,
# twenty-second session: per 4-step iteration of blog's k loop 895 SASS, about 384 on the
# ALU pipe at half rate).
export PATH=$PATH:/usr/local/cuda/bin
m=smsp__issue_active.avg.pct_of_peak_sustained_active,gpc__cycles_elapsed.max
for p in alu fma fmaheavy xu lsu tensor_op_hmma; do
  m=$m,sm__inst_executed_pipe_$p.avg.pct_of_peak_sustained_active
done
for n in blog-bf16 minimal-bf16; do
  # The sections (always valid names), their charts printed; then the metrics by name.
  timeout 90 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section ComputeWorkloadAnalysis --section WarpStateStats --section SchedulerStats \
    --print-details all -k regex:sigreg_single_launch -c 2 \
    .gpu/rt/bin/sigreg-aot-run .gpu/anchors/$n/fused > $OUT/ncu-pipes-$n.txt 2>&1
  echo "ncu sections $n rc=$?"; grep -iE 'pipe|issue|stall|ipc|warp cycles|eligible|throughput|l2|l1|duration|hit' $OUT/ncu-pipes-$n.txt | head -80
  timeout 60 ncu --metrics "$m" -k regex:sigreg_single_launch -c 2 \
    .gpu/rt/bin/sigreg-aot-run .gpu/anchors/$n/fused > $OUT/ncu-metrics-$n.txt 2>&1
  echo "ncu metrics $n rc=$?"; grep -E 'pct_of_peak|cycles_elapsed|ERROR' $OUT/ncu-metrics-$n.txt | head -20
  # The stall reasons by name (warps stalled per issued instruction), apart so that a name
  # this ncu lacks cannot cost the figures above; no_instruction and imc_miss test whether the
  # 14 KB k loop misses the instruction cache.
  st=""
  for r in long_scoreboard short_scoreboard wait math_pipe_throttle no_instruction imc_miss \
      barrier lg_throttle mio_throttle not_selected dispatch_stall branch_resolving; do
    st=$st${st:+,}smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio
  done
  timeout 60 ncu --metrics "$st" -k regex:sigreg_single_launch -c 2 \
    .gpu/rt/bin/sigreg-aot-run .gpu/anchors/$n/fused > $OUT/ncu-stalls-$n.txt 2>&1
  echo "ncu stalls $n rc=$?"; grep -E 'stalled|ERROR' $OUT/ncu-stalls-$n.txt | head -26
done
# 2. The single launch's g rounded two values at a time (one cvt.rn.bf16x2.f32 per word; the
# same bits as two roundings): the single set validated again, blog and minimal timed.
timeout 150 bash scripts/gpu-ab.sh .gpu/single --skip-bench --out $OUT/single > $OUT/single.txt 2>&1
echo "single: $(grep -c 'rc=0 PASS' $OUT/single.txt) PASS of $(grep -c ' rc=' $OUT/single.txt)"
grep -E 'rc=[^0]|FAIL|gpu-ab: done' $OUT/single.txt
for n in blog-bf16 minimal-bf16; do
  .gpu/rt/bin/sigreg-aot-run .gpu/anchors/$n/fused --bench 2>&1 | grep -E 'PASS|FAIL|full_forward' | sed "s/^/$n /"
done
# 3. The single launch's staggered k walk (stg-NAME, --single-launch-stagger; stgf-blog-bf16 with
# the fast normals too): validated, then timed against the rule.
v=/tmp/stgv; rm -rf $v; mkdir -p $v
for d in .gpu/stagger/stg*/; do ln -s "$(cd "$d" && pwd)" "$v/$(basename "$d")"; done
timeout 90 bash scripts/gpu-ab.sh $v --skip-bench --out $OUT/stg-val 2>&1 | grep -E 'rc=|gpu-ab: done'
timeout 90 bash scripts/gpu-ab.sh .gpu/stagger --prefix stg- --skip-validate --rounds 3 --out $OUT/stg-bench 2>&1 |
  grep -E ' r[0-9] |gpu-ab'
for n in blog-bf16 stgf-blog-bf16; do
  .gpu/rt/bin/sigreg-aot-run .gpu/stagger/$n/fused --bench 2>&1 | grep -E 'full_forward' | sed "s/^/$n /"
done
