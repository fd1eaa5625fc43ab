#!/usr/bin/env bash
# From the repository root, after scripts/gpu-pack.sh, on the GPU machine (run with carry [".gpu"]);
# docs/PERF-NOTES.md, twentieth session. Results under $OUT.
# Call (generate): validate gen- variants, sanitize mid, time pairs and cluster sizes; then perslice.
export SIGREG_GPU_BUILD=.gpu/rt
sub=/tmp/genv; rm -rf $sub; mkdir -p $sub
for d in .gpu/generate/gen-*/; do ln -s "$(cd "$d" && pwd)" "$sub/$(basename "$d")"; done
timeout 150 bash scripts/gpu-ab.sh $sub --skip-bench --sanitize "gen-mid-bf16" --out $OUT/gen-val 2>&1 | tail -24
for pre in gen- gen-c4- gen-c2- gen-c1-; do
  timeout 60 bash scripts/gpu-ab.sh .gpu/generate --prefix $pre --skip-validate --rounds 2 --out $OUT/gen-bench-$pre 2>&1 | grep -v "^gpu-ab: done" | tail -12
done
timeout 200 bash scripts/gpu-ab.sh .gpu/perslice --skip-bench --out $OUT/ps 2>&1 | tail -22
