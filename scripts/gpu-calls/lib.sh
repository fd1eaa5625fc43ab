#!/usr/bin/env bash
# Helpers of the call scripts (sourced, from the repository root on the GPU machine, with the
# runtime in .gpu/rt and $OUT set by the device tool):
#  validate DIR...       each artifact against float64 (PASS/FAIL, bitwise repeat, graph replay);
#  sanitize DIR          memcheck, racecheck and synccheck on one artifact;
#  alternate DIR ROUNDS "NAMES" "PREFIXES"
#                        every PREFIX+NAME in turn (- for none), ROUNDS times: full_forward and
#                        full_forward_graph in ms (BENCH_FLAGS: more flags for the
#                        runner, e.g. --no-flush);
#  run_parts PART...     each named function in turn, its output to $OUT/PART.txt and printed;
#  profile SET/NAME...   ncu's full set of the single launch (second launch) with its SASS source
#                        page for scripts/ncu-regions.py, and the duration, cycles, instructions
#                        and L2 throughput.
validate() { for d in "$@"; do
  echo "$(basename $d) $(timeout 60 .gpu/rt/bin/sigreg-aot-run $d/fused 2>&1 |
    grep -E 'PASS|FAIL|bitwise|rror' | tr '\n' ' ' | cut -c1-150)"
done; }
sanitize() { local tool; for tool in memcheck racecheck synccheck; do
  echo "$(basename $1) $tool $(timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 \
    .gpu/rt/bin/sigreg-aot-run $1/fused 2>&1 | grep -m1 -E '(ERROR|RACECHECK) SUMMARY')"
done; }
alternate() {
  local dir=$1 rounds=$2 names=$3 prefixes=$4 r n p
  for r in $(seq 1 "$rounds"); do for n in $names; do for p in $prefixes; do
    [ "$p" = - ] && p=""
    echo "$p$n r$r $(timeout 60 .gpu/rt/bin/sigreg-aot-run $dir/$p$n/fused --bench --no-validate \
      ${BENCH_FLAGS:-} 2>&1 |
      grep -E '^full_forward' | awk '{printf "%s ", $2}')"
  done; done; done
}
profile() { local a n; for a in "$@"; do
  n=$(echo $a | tr / -)
  echo "== ncu $n $(date +%T)"
  timeout 100 ncu --set full --import-source yes --warp-sampling-interval 0 --clock-control none \
    -k regex:sigreg_single_launch --launch-skip 1 -c 1 -o "$OUT/$n" -f \
    .gpu/rt/bin/sigreg-aot-run ".gpu/$a/fused" > "$OUT/ncu-$n.log" 2>&1
  echo "ncu rc=$?"
  ncu -i "$OUT/$n.ncu-rep" --page source --csv --print-source sass > "$OUT/$n-source.csv" 2>&1
  ncu -i "$OUT/$n.ncu-rep" --page details --csv > "$OUT/$n-details.csv" 2>&1
  grep -E '"(Duration|Elapsed Cycles|SM Active Cycles|Executed Instructions|L2 Cache Throughput)"' \
    "$OUT/$n-details.csv" | awk -F'","' '{print $(NF-2), $NF}'
  rm -f "$OUT/$n.ncu-rep"
done; }
run_parts() { local part; for part in "$@"; do
  echo "== $part $(date +%T)"
  $part > "$OUT/$part.txt" 2>&1
  cat "$OUT/$part.txt"
done; echo "== done $(date +%T)"; }
