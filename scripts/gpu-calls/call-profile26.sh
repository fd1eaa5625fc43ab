#!/usr/bin/env bash
# From the repository root with carry [".gpu/rt", ".gpu/probe25", ".gpu/anchors"]
# (docs/PERF-NOTES.md, twenty-sixth session). Results under $OUT. About 4 minutes.
#  1. where blog's and minimal's single launch spend their time now: ncu --set full with the
#     SASS source page (warp-state samples every 32 cycles) at the GPU's own clocks, exported as
#     CSV for scripts/ncu-regions.py, plus the details page (cycles active against elapsed);
#  2. the probe25 set (px-: the next step group's x carried under the 2-step rule) validated
#     and timed, 2 rounds of pairs.
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
for a in probe25/blog-bf16 anchors/minimal-bf16; do
  n=${a//\//-}
  echo "== ncu $n $(date +%T)"
  timeout 150 ncu --set full --import-source yes --warp-sampling-interval 0 --clock-control none \
    -k regex:sigreg_single_launch --launch-skip 1 -c 1 -o "$OUT/$n" -f \
    .gpu/rt/bin/sigreg-aot-run ".gpu/$a/fused" > "$OUT/ncu-$n.log" 2>&1
  echo "ncu rc=$?"; tail -3 "$OUT/ncu-$n.log"
  ncu -i "$OUT/$n.ncu-rep" --page source --csv --print-source sass > "$OUT/$n-source.csv" 2>&1
  ncu -i "$OUT/$n.ncu-rep" --page details --csv > "$OUT/$n-details.csv" 2>&1
  grep -E '"(Duration|Elapsed Cycles|SM Active Cycles|SM Frequency|Executed Instructions|Issue Slots Busy|Achieved Occupancy|Registers Per Thread)"' \
    "$OUT/$n-details.csv" | cut -d, -f12- | head -12
  rm -f "$OUT/$n.ncu-rep"
done
[ -n "$SKIP_PROBE" ] && exit 0
echo "== probe25 $(date +%T)"
short() { awk '/ rc=/{if ($0 !~ / rc=0 .*PASS/) print "FAIL:", $0; else v++} END{if (v) print v, "PASS"}
  / r[0-9] /{for(i=1;i<=NF;i++){if($i=="full_forward")f=$(i+1); if($i=="full_forward_graph")g=$(i+1)}; print $1, $2, $3, f, g}'; }
timeout 100 bash scripts/gpu-ab.sh .gpu/probe25 --prefix px- --rounds 2 --out $OUT/px 2>&1 | short
echo "== done $(date +%T)"
