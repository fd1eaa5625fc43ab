#!/usr/bin/env bash
# From the repository root, after scripts/gpu-pack.sh, on the GPU machine (run with carry [".gpu"]);
# docs/PERF-NOTES.md, twentieth session. Results under $OUT.
# Call (warps16): validate the w16-/w16f-/f8- variants, sanitize two, time six pairs per prefix.
export SIGREG_GPU_BUILD=.gpu/rt
sub=/tmp/w16v; rm -rf $sub; mkdir -p $sub
for d in .gpu/warps16/w16-*/ .gpu/warps16/w16f-*/ .gpu/warps16/f8-*/; do ln -s "$(cd "$d" && pwd)" "$sub/$(basename "$d")"; done
timeout 200 bash scripts/gpu-ab.sh $sub --skip-bench --sanitize "w16-blog-bf16 w16-minimal-bf16" --out $OUT/w16-val 2>&1 | grep -v " rc=0 PASS" | tail -30
echo "validation: $(grep -l PASS $OUT/w16-val/val-*.txt | wc -l) PASS of $(ls $OUT/w16-val/val-*.txt | wc -l)"
P="blog-bf16 minimal-bf16 slm-n256-d1024-sum step-blog-bf16 ds-blog-bf16 sl-views-ragged-clamp"
for pre in w16- w16f- f8-; do
  timeout 110 bash scripts/gpu-ab.sh .gpu/warps16 --prefix $pre --skip-validate --rounds 2 --pairs "$P" --out $OUT/w16-bench-$pre 2>&1 | grep -v "^gpu-ab: done" | tail -14
done
