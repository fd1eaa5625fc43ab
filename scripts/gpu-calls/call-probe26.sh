#!/usr/bin/env bash
# After `bash scripts/gpu-pack.sh build probe26`; from the repository root with carry
# [".gpu/rt", ".gpu/probe26"] (docs/PERF-NOTES.md, twenty-sixth session). Results under $OUT.
# About 3 minutes.
#  1. the probe26 set validated and timed: 16 warps (w16-) against the rule's 8, 3 rounds;
#  2. ncu --set full with the SASS source page of blog and w16-blog (the region table of
#     scripts/ncu-regions.py: does the k loop get shorter with twice the warps, and what grows).
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
short() { awk '/ rc=/{if ($0 !~ / rc=0 .*PASS/) print "FAIL:", $0; else v++} END{if (v) print v, "PASS"}
  / r[0-9] /{for(i=1;i<=NF;i++){if($i=="full_forward")f=$(i+1); if($i=="full_forward_graph")g=$(i+1)}; print $1, $2, $3, f, g}'; }
echo "== w16 $(date +%T)"
timeout 150 bash scripts/gpu-ab.sh .gpu/probe26 --prefix w16- --rounds 3 --out $OUT/w16 2>&1 | short
for n in blog-bf16 w16-blog-bf16; do
  echo "== ncu $n $(date +%T)"
  timeout 100 ncu --set full --import-source yes --warp-sampling-interval 0 --clock-control none \
    -k regex:sigreg_single_launch --launch-skip 1 -c 1 -o "$OUT/$n" -f \
    .gpu/rt/bin/sigreg-aot-run ".gpu/probe26/$n/fused" > "$OUT/ncu-$n.log" 2>&1
  echo "ncu rc=$?"
  ncu -i "$OUT/$n.ncu-rep" --page source --csv --print-source sass > "$OUT/$n-source.csv" 2>&1
  ncu -i "$OUT/$n.ncu-rep" --page details --csv > "$OUT/$n-details.csv" 2>&1
  grep -E '"(Duration|Elapsed Cycles|SM Active Cycles|Executed Instructions)"' "$OUT/$n-details.csv" \
    | awk -F'","' '{print $(NF-2), $NF}'
  rm -f "$OUT/$n.ncu-rep"
done
echo "== done $(date +%T)"
