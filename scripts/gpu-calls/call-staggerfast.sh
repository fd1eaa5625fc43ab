#!/usr/bin/env bash
# After `scripts/gpu-pack.sh build staggerfast` (and the packs of call-fragment.sh) here; from
# the repository root with carry [".gpu"] (docs/PERF-NOTES.md, twenty-third session): the
# staggered k walk with the fast normals on the single-launch anchors and steps (stgf-NAME),
# validated, sanitized at blog and minimal, three rounds of pairs; then the A/B pairs of
# call-fragment.sh's steps 1 and 2 again, printed compactly. Results under $OUT. About 4 minutes.
export SIGREG_GPU_BUILD=.gpu/rt
short() { awk '/ r[0-9] /{for(i=1;i<=NF;i++){if($i=="full_forward")f=$(i+1); if($i=="full_forward_graph")g=$(i+1)}; print $1, $2, $3, f, g} /gpu-ab/'; }
timeout 200 bash scripts/gpu-ab.sh .gpu/staggerfast --prefix stgf- --skip-bench \
  --sanitize "stgf-blog-bf16 stgf-minimal-bf16" --out $OUT/stgf-val 2>&1 | grep -E 'rc=[^0]|FAIL|gpu-ab: done|PASS' | cut -c1-140
timeout 120 bash scripts/gpu-ab.sh .gpu/staggerfast --prefix stgf- --skip-validate --rounds 3 \
  --out $OUT/stgf-bench 2>&1 | short
timeout 100 bash scripts/gpu-ab.sh .gpu/singleab --prefix base- --skip-validate --rounds 3 \
  --out $OUT/singleab 2>&1 | short
timeout 90 bash scripts/gpu-ab.sh .gpu/fragment --prefix fe- --skip-validate --rounds 3 \
  --out $OUT/fe-bench 2>&1 | short
