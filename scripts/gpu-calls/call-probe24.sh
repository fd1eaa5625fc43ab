#!/usr/bin/env bash
# After `bash scripts/gpu-pack.sh build probe24` here; from the repository root with carry
# [".gpu"] (docs/PERF-NOTES.md, twenty-fourth session): probes of the rules' single-launch
# kernels toward issue 8's blog <= 10 us and minimal <= 6 us. Results under $OUT. About 4 min.
#  1. the probe24 set validated (every variant against float64);
#  2. 2 rounds of pairs: the D <= 16 shapes in 64- and 128-row batch tiles (br64-, br128-),
#     every shape in blocks of 16 warps (w16-), against the rule;
#  3. ncu on the rule's blog and minimal kernels: duration, issue, pipes, stall reasons.
export SIGREG_GPU_BUILD=.gpu/rt
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
short() { awk '/ r[0-9] /{for(i=1;i<=NF;i++){if($i=="full_forward")f=$(i+1); if($i=="full_forward_graph")g=$(i+1)}; print $1, $2, $3, f, g} /gpu-ab/'; }
timeout 90 bash scripts/gpu-ab.sh .gpu/probe24 --prefix w16- --rounds 2 --out $OUT/w16 2>&1 |
  awk '/ rc=/{if ($0 !~ / rc=0 .*PASS/) print "FAIL:", $0; else p++} END{print p+0, "PASS"}
       / r[0-9] /{for(i=1;i<=NF;i++){if($i=="full_forward")f=$(i+1); if($i=="full_forward_graph")g=$(i+1)}; print $1, $2, $3, f, g}'
for p in br64- br128-; do
  timeout 60 bash scripts/gpu-ab.sh .gpu/probe24 --prefix $p --skip-validate --rounds 2 \
    --out $OUT/$p 2>&1 | short
done
source scripts/gpu-calls/ncu-metrics.sh
for n in blog-bf16 minimal-bf16; do
  timeout 60 ncu --metrics "$st" -k regex:sigreg_single_launch -c 2 \
    .gpu/rt/bin/sigreg-aot-run .gpu/probe24/$n/fused > $OUT/ncu-$n.txt 2>&1
  echo "ncu $n rc=$?"; grep -E 'duration|pct_of_peak|stalled|ERROR' $OUT/ncu-$n.txt | tail -19
done
