#!/usr/bin/env bash
# Thirtieth session (docs/PERF-NOTES.md): the twenty-ninth session's call (call-hb29.sh: the
# halving butterfly and the clusters, timed then validated; call-ops28.sh PART=short: the ops
# path) in one command, then what the next change needs to know: ncu's regions of the new blog
# forward (scripts/ncu-regions.py reads the CSVs) and blog timed without the L2 flush. From the
# repository root with carry [".gpu/rt", ".gpu/ut", ".gpu/hb29", ".gpu/modcache"]. Every part
# writes its own file under $OUT as it goes, so a call stopped at its limit returns what ran.
# About 8 minutes.
export PATH=$PATH:/usr/local/cuda/bin
. scripts/gpu-calls/lib.sh
PART=time bash scripts/gpu-calls/call-hb29.sh > "$OUT/time.txt" 2>&1
cat "$OUT/time.txt"
PART=short bash scripts/gpu-calls/call-ops28.sh > "$OUT/ops.txt" 2>&1
tail -c 2500 "$OUT/ops.txt"
PART=check bash scripts/gpu-calls/call-hb29.sh > "$OUT/check.txt" 2>&1
tail -c 4000 "$OUT/check.txt"
{
  echo "== no flush $(date +%T)"
  for r in 1 2; do for n in o-blog-bf16 blog-bf16; do
    echo "$n r$r $(timeout 60 .gpu/rt/bin/sigreg-aot-run .gpu/hb29/$n/fused --bench \
      --no-validate --no-flush 2>&1 | grep -E '^full_forward' | awk '{printf "%s ", $2}')"
  done; done
  profile hb29/blog-bf16 hb29/o-blog-bf16
  echo "== done $(date +%T)"
} > "$OUT/prof.txt" 2>&1
cat "$OUT/prof.txt"
