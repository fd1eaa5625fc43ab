#!/usr/bin/env bash
# After `scripts/gpu-pack.sh build cooperative anchors single` here; from the repository root with carry
# [".gpu"] (docs/PERF-NOTES.md, twenty-second session): the one-tile Hopper kernel whose grid
# generates g before a grid barrier (coop-NAME, --wgmma-cooperative, one cooperative launch)
# against the rule's two launches (NAME); then ncu on the single launch (below). Results under $OUT.
export SIGREG_GPU_BUILD=.gpu/rt
v=/tmp/coopv; rm -rf $v; mkdir -p $v
for d in .gpu/cooperative/coop-*/; do ln -s "$(cd "$d" && pwd)" "$v/$(basename "$d")"; done
timeout 240 bash scripts/gpu-ab.sh $v --skip-bench --sanitize "coop-mid-bf16 coop-ragged-bf16" --out $OUT/val 2>&1 |
  grep -E 'rc=|gpu-ab: done'
timeout 200 bash scripts/gpu-ab.sh .gpu/cooperative --prefix coop- --skip-validate --rounds 3 --out $OUT/bench 2>&1 |
  grep -E ' r[0-9] |gpu-ab'
# 2. Issue 8's blog and minimal: which pipe binds the single launch (docs/PERF-NOTES.md,
# twenty-second session: per 4-step iteration of blog's k loop 895 SASS, about 384 on the
# ALU pipe at half rate). Needs `scripts/gpu-pack.sh build cooperative anchors` here.
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
done
# 3. The single launch's g rounded two values at a time (one cvt.rn.bf16x2.f32 per word; the
# same bits as two roundings): the single set validated again, blog and minimal timed.
# Needs `scripts/gpu-pack.sh build cooperative anchors single` here.
timeout 150 bash scripts/gpu-ab.sh .gpu/single --skip-bench --out $OUT/single > $OUT/single.txt 2>&1
echo "single: $(grep -c 'rc=0 PASS' $OUT/single.txt) PASS of $(grep -c ' rc=' $OUT/single.txt)"
grep -E 'rc=[^0]|FAIL|gpu-ab: done' $OUT/single.txt
for n in blog-bf16 minimal-bf16; do
  .gpu/rt/bin/sigreg-aot-run .gpu/anchors/$n/fused --bench 2>&1 | grep -E 'PASS|FAIL|full_forward' | sed "s/^/$n /"
done
