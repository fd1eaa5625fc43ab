#!/usr/bin/env bash
# After packing (docs/PERF-NOTES.md, twenty-seventh session): .gpu/ftz27 holds the ftz27 set
# built by the previous compiler (NAME) and by this one (n-NAME); .gpu/random27 the random
# problems built by this one; .gpu/exp27 the PART=exp pairs below. From the repository root with
# carry [".gpu/rt", ".gpu/ftz27", ".gpu/random27", ".gpu/exp27"]. Results under $OUT. PART=ab
# about 1 minute, PART=check 1.5, PART=exp 0.5.
#  PART=ab (default): every artifact of ftz27 validated against float64 (bitwise repeat, graph
#    replay), memcheck/racecheck/synccheck on the new blog, training step and ragged batch,
#    then each pair timed A then B, 3 rounds;
#  PART=check: the random problems validated; ncu (full set, SASS source page) of the new and
#    the old blog kernel for the region table (scripts/ncu-regions.py, run here afterwards).
#  PART=exp, PART=stage, PART=span: the probes below (carry .gpu/exp27, .gpu/sx27, .gpu/span27).
# The staging rule's final A/B: scripts/gpu-ab.sh .gpu/fin27 --prefix n- --rounds 3 (the stage27
# set built with --single-launch-stage-x=0 as NAME and by rule as n-NAME, staged pairs only).
export PATH=$PATH:/usr/local/cuda/bin
export SIGREG_GPU_BUILD=.gpu/rt
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
short() { awk '/ (memcheck|racecheck|synccheck) rc=/{print; next}
  / rc=/{if ($0 !~ / rc=0 .*PASS/) print "FAIL:", $0; else v++; i = index($0, "| "); r[substr($0, i + 2)]++}
  / r[0-9] /{for(i=1;i<=NF;i++){if($i=="full_forward")f=$(i+1); if($i=="full_forward_graph")g=$(i+1)}; print $1, $2, $3, f, g}
  END{if (v) print v, "PASS"; for (k in r) print r[k], "x", k}'; }
case "${PART:-ab}" in
  ab)
    echo "== ab $(date +%T)"
    timeout 560 bash scripts/gpu-ab.sh .gpu/ftz27 --prefix n- --rounds 3 \
      --sanitize "n-blog-bf16 n-step-blog-bf16 n-n24-d1001-bf16" --out $OUT/ab 2>&1 | short
    ;;
  check)
    echo "== random $(date +%T)"
    timeout 300 bash scripts/gpu-ab.sh .gpu/random27 --prefix zz- --skip-bench --out $OUT/random 2>&1 | short
    for n in n-blog-bf16 blog-bf16; do
      echo "== ncu $n $(date +%T)"
      timeout 100 ncu --set full --import-source yes --warp-sampling-interval 0 --clock-control none \
        -k regex:sigreg_single_launch --launch-skip 1 -c 1 -o "$OUT/$n" -f \
        .gpu/rt/bin/sigreg-aot-run ".gpu/ftz27/$n/fused" > "$OUT/ncu-$n.log" 2>&1
      echo "ncu rc=$?"
      ncu -i "$OUT/$n.ncu-rep" --page source --csv --print-source sass > "$OUT/$n-source.csv" 2>&1
      ncu -i "$OUT/$n.ncu-rep" --page details --csv > "$OUT/$n-details.csv" 2>&1
      grep -E '"(Duration|Elapsed Cycles|SM Active Cycles|Executed Instructions)"' "$OUT/$n-details.csv" \
        | awk -F'","' '{print $(NF-2), $NF}'
      rm -f "$OUT/$n.ncu-rep"
    done
    ;;
esac
echo "== done $(date +%T)"
# The probes after PART=ab, each over its own folder; alternate DIR ROUNDS "NAMES" "PREFIXES"
# times every PREFIX+NAME in turn, ROUNDS times (full_forward, full_forward_graph ms).
validate() { for d in "$@"; do
  echo "$(basename $d) $(timeout 60 .gpu/rt/bin/sigreg-aot-run $d/fused 2>&1 | grep -m1 -E 'PASS|FAIL' | cut -c1-60)"
done; }
alternate() {
  local dir=$1 rounds=$2 names=$3 prefixes=$4 r n p
  for r in $(seq 1 "$rounds"); do for n in $names; do for p in $prefixes; do
    [ "$p" = - ] && p=""
    echo "$p$n r$r $(timeout 60 .gpu/rt/bin/sigreg-aot-run $dir/$p$n/fused --bench --no-validate 2>&1 |
      grep -E '^full_forward' | awk '{printf "%s ", $2}')"
  done; done; done
}
sanitize() { local tool; for tool in memcheck racecheck synccheck; do
  echo "$(basename $1) $tool $(timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 \
    .gpu/rt/bin/sigreg-aot-run $1/fused 2>&1 | grep -m1 -E '(ERROR|RACECHECK) SUMMARY')"
done; }
case "${PART:-ab}" in
  # .gpu/exp27 (after PART=ab showed the device-step blog and the ragged f16 batch slower with
  # the i32 loop): NAME (the previous compiler) and r-NAME (this one: the i32 loop by rule,
  # narrowKLoop, so those two keep the index loop and differ from NAME only in the ftz lines).
  exp)
    validate .gpu/exp27/r-*
    alternate .gpu/exp27 4 "blog-bf16 ds-blog-bf16 n30-f16-clamp minimal-bf16" "- r-" ;;
  # .gpu/sx27: NAME (not staged) and sx-NAME (--single-launch-stage-x=1, one group per copy).
  stage)
    validate .gpu/sx27/*
    sanitize .gpu/sx27/sx-blog-bf16
    alternate .gpu/sx27 3 "blog-bf16 n32-d1024-bf16 step-blog-bf16" "- sx-" ;;
  # .gpu/span27: not staged (NAME) and staged variants sGL-NAME: each copy spanning G step
  # groups (one mbarrier per span), the wait early (e: before the group's Philox work) or late
  # (l: after it).
  span)
    validate .gpu/span27/*
    alternate .gpu/span27 3 "blog-bf16 step-blog-bf16" "- s1e- s1l- s2e- s2l- s4l- s8l-" ;;
esac
