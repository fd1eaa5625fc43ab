#!/usr/bin/env bash
# After `bash scripts/gpu-pack.sh build probe25` and `SIGREG_CACHE_DIR=.gpu/modcache
# PYTHONPATH=python python3 -m sigreg.module_check --precompile` here; from the repository root
# with carry [".gpu/rt", ".gpu/probe25", ".gpu/modcache"] (docs/PERF-NOTES.md, twenty-fifth
# session). Results under $OUT. About 5 minutes.
#  1. the one-call form (sigreg_aot_call), never yet run on a GPU: module_check's full check of
#     blog, minimal and mid, then --host and --host-breakdown (which first checks that it gives
#     the bits of bind + seed + run, then times both in one process);
#  2. the probe25 set validated (px-: the next step group's x carried under the 2-step rule),
#     sanitizers on px-blog, 3 rounds of pairs, ncu on px-blog.
export SIGREG_GPU_BUILD=.gpu/rt SIGREG_AOT_LIB=.gpu/rt/lib/libsigreg_aot.so PYTHONPATH=python
export SIGREG_CACHE_DIR=.gpu/modcache
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
echo "== module $(date +%T)"
timeout 300 python3 -m sigreg.module_check --only blog,minimal,mid --host --host-breakdown \
  > $OUT/module.txt 2>&1
echo "module rc=$?"; grep -v -i warn $OUT/module.txt | tail -50
echo "== probe25 $(date +%T)"
short() { awk '/ rc=/{if ($0 !~ / rc=0 .*PASS/) print "FAIL:", $0; else v++} END{if (v) print v, "PASS"}
  / r[0-9] /{for(i=1;i<=NF;i++){if($i=="full_forward")f=$(i+1); if($i=="full_forward_graph")g=$(i+1)}; print $1, $2, $3, f, g}'; }
timeout 100 bash scripts/gpu-ab.sh .gpu/probe25 --prefix px- --rounds 3 --out $OUT/px 2>&1 | short
timeout 90 bash scripts/gpu-ab.sh .gpu/probe25 --prefix px- --skip-validate --skip-bench \
  --sanitize "px-blog-bf16" --out $OUT/px-san 2>&1 | grep -E 'rc='
source scripts/gpu-calls/ncu-metrics.sh
ncu_single .gpu/probe25 blog-bf16 px-blog-bf16
echo "== done $(date +%T)"
