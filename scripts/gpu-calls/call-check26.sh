#!/usr/bin/env bash
# After `bash scripts/gpu-pack.sh build probe26 samebench`; from the repository root with carry
# [".gpu/rt", ".gpu/probe26", ".gpu/samebench"] (docs/PERF-NOTES.md, twenty-sixth session).
# Results under $OUT. About 5 minutes.
#  1. memcheck, racecheck and synccheck on the 16-warp kernels whose stages after the k loop now
#     run on 8 warps (w16-blog, its training step, w16-n32-d1024);
#  2. the rules' kernels in the same process as PyTorch (python -m sigreg.bench, --quick) at
#     blog, minimal, mid and five shapes that are not anchors.
export SIGREG_GPU_BUILD=.gpu/rt
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
echo "== sanitizers $(date +%T)"
timeout 150 bash scripts/gpu-ab.sh .gpu/probe26 --prefix w16- --skip-validate --skip-bench \
  --sanitize "w16-blog-bf16 w16-step-blog-bf16 w16-n32-d1024-bf16" --out $OUT/san 2>&1 | grep -E 'rc='
echo "== same process $(date +%T)"
export SIGREG_AOT_LIB=.gpu/rt/lib/libsigreg_aot.so PYTHONPATH=python
timeout 300 python3 -m sigreg.bench --artifacts .gpu/samebench --dtype bf16 --configs blog,minimal,mid \
  --shape views2-n64=2,64,768,512,17 --shape n128-d1024=1,128,1024,1024,17 \
  --shape views8-n16=8,16,384,256,17 --shape odd-v3-n100=3,100,500,300,9 \
  --shape views2-n512=2,512,1024,1024,17 \
  --variants eager+graph,compile,compile-ro,fused,fused+graph --quick > $OUT/same.txt 2>&1
echo "same rc=$?"; grep -vE '^ +(compile|compile-ro): compiled' $OUT/same.txt | tail -40
echo "== done $(date +%T)"
