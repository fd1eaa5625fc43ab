#!/usr/bin/env bash
# After call-rules24.sh, with `bash scripts/gpu-pack.sh build cooperative staggerfast fragment
# samebench` and `SIGREG_CACHE_DIR=.gpu/modcache PYTHONPATH=python python3 -m
# sigreg.module_check --precompile` here; from the repository root with carry [".gpu"]
# (docs/PERF-NOTES.md, twenty-fourth session). Results under $OUT. About 8 minutes.
#  1. each rule against its off switch, 2 rounds of sigreg-aot-run --bench (L2 flushed):
#     blog (stgf- = the rule), mid and N 2048 S 2048 (coop- = the rule), minimal (fe- = the rule);
#  2. the rule's kernels in the same process as PyTorch (python -m sigreg.bench: eager + graph,
#     torch.compile, reduce-overhead, fused, fused from a graph) at every N x S <= 2^20 shape
#     of the benchmark list, plus views2-n512 (a cooperative grid with two views);
#  3. sigreg.torch's compiled backend against float64 (module_check: the whole-loss, step,
#     pair and DDP-split paths), its forward + backward against the eager module, host time.
export SIGREG_GPU_BUILD=.gpu/rt
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
short() { awk '/ r[0-9] /{for(i=1;i<=NF;i++){if($i=="full_forward")f=$(i+1); if($i=="full_forward_graph")g=$(i+1)}; print $1, $2, $3, f, g} /gpu-ab/'; }
timeout 60 bash scripts/gpu-ab.sh .gpu/staggerfast --prefix stgf- --skip-validate --rounds 2 \
  --pairs "blog-bf16 ds-blog-bf16 step-blog-bf16 views8-n16-bf16" --out $OUT/stgf 2>&1 | short
timeout 60 bash scripts/gpu-ab.sh .gpu/cooperative --prefix coop- --skip-validate --rounds 2 \
  --pairs "mid-bf16 n2048-s2048-bf16 n512-d2048-bf16" --out $OUT/coop 2>&1 | short
timeout 40 bash scripts/gpu-ab.sh .gpu/fragment --prefix fe- --skip-validate --rounds 2 \
  --pairs "minimal-bf16 views-none" --out $OUT/fe 2>&1 | short
echo "== same process $(date +%T)"
export SIGREG_AOT_LIB=.gpu/rt/lib/libsigreg_aot.so PYTHONPATH=python
timeout 240 python3 -m sigreg.bench --artifacts .gpu/samebench --dtype bf16 --configs blog,minimal,mid \
  --shape views2-n64=2,64,768,512,17 --shape n128-d1024=1,128,1024,1024,17 \
  --shape views8-n16=8,16,384,256,17 --shape odd-v3-n100=3,100,500,300,9 \
  --shape views2-n512=2,512,1024,1024,17 \
  --variants eager+graph,compile,compile-ro,fused,fused+graph --quick > $OUT/same.txt 2>&1
echo "same rc=$?"; grep -vE '^ +(compile|compile-ro): compiled' $OUT/same.txt | tail -40
echo "== module $(date +%T)"
export SIGREG_CACHE_DIR=.gpu/modcache
timeout 200 python3 -m sigreg.module_check --bench --host > $OUT/module.txt 2>&1
echo "module rc=$?"; tail -60 $OUT/module.txt
echo "== done $(date +%T)"
