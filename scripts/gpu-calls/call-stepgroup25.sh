#!/usr/bin/env bash
# After `bash scripts/gpu-pack.sh build stepgroup25` here and the configurations whose PTX the
# step-group rule changes copied to .gpu/changed25 (each set of .gpu/changed25.txt built again
# and compared with the twenty-fourth session's); from the repository root with carry
# [".gpu/rt", ".gpu/stepgroup25", ".gpu/changed25"] (docs/PERF-NOTES.md, twenty-fifth
# session). Results under $OUT. About 5 minutes.
#  1. validates against float64 (bitwise repeat, graph replay) the changed configurations and
#     the stepgroup25 set (4, 2 and 1 k steps per iteration in blog's class, ragged f16 too);
#  2. memcheck, racecheck, synccheck on the rule's blog forward and training step;
#  3. 3 rounds of pairs: the rule's 2 steps (sg2-) and 1 step (sg1-) against the old 4;
#  4. ncu on the rule's blog kernel: duration, issue, pipes, stall reasons.
export SIGREG_GPU_BUILD=.gpu/rt
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
count() {
  awk '/ rc=/{n++; if ($0 ~ / rc=0 .*PASS/) p++; else print "  FAIL:", substr($0, 1, 160)}
       END{print "  " p+0 " of " n+0 " PASS"}'
}
short() { awk '/ r[0-9] /{for(i=1;i<=NF;i++){if($i=="full_forward")f=$(i+1); if($i=="full_forward_graph")g=$(i+1)}; print $1, $2, $3, f, g}'; }
for g in .gpu/changed25 .gpu/stepgroup25; do
  echo "== $g $(date +%T)"
  timeout 150 bash scripts/gpu-ab.sh $g --skip-bench --out $OUT/val-$(basename $g) 2>&1 | count
done
echo "== sanitizers $(date +%T)"
timeout 120 bash scripts/gpu-ab.sh .gpu/stepgroup25 --prefix sg2- --skip-validate --skip-bench \
  --sanitize "sg2-blog-bf16 sg2-step-blog-bf16" --out $OUT/san 2>&1 | grep -E 'rc=' | cut -c1-120
for p in sg2- sg1-; do
  echo "== $p $(date +%T)"
  timeout 100 bash scripts/gpu-ab.sh .gpu/stepgroup25 --prefix $p --skip-validate --rounds 3 \
    --out $OUT/$p 2>&1 | short
done
source scripts/gpu-calls/ncu-metrics.sh
ncu_single .gpu/stepgroup25 blog-bf16 sg2-blog-bf16
echo "== done $(date +%T)"
