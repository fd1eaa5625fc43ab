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
# PART=exp (after PART=ab showed the device-step blog and the ragged f16 batch slower with the
# i32 loop): .gpu/exp27 holds NAME (the previous compiler) and r-NAME (this one: the i32 loop by
# rule, narrowKLoop, so the ragged f16 batch and the device-step blog keep the index loop and
# differ from NAME only in the ftz log2 and square root), validated, then timed in alternation.
if [ "${PART:-ab}" = exp ]; then
  for d in .gpu/exp27/r-*; do
    echo "$(basename $d) $(timeout 60 .gpu/rt/bin/sigreg-aot-run $d/fused 2>&1 | grep -m1 -E 'PASS|FAIL')"
  done
  for r in 1 2 3 4; do
    for n in blog-bf16 ds-blog-bf16 n30-f16-clamp minimal-bf16; do
      for p in "" r-; do
        echo "$p$n r$r $(timeout 60 .gpu/rt/bin/sigreg-aot-run .gpu/exp27/$p$n/fused --bench --no-validate 2>&1 |
          grep -E '^full_forward' | awk '{printf "%s ", $2}')"
      done
    done
  done
fi
