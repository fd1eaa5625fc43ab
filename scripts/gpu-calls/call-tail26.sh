#!/usr/bin/env bash
# With `SIGREG_CACHE_DIR=.gpu/modcache PYTHONPATH=python python3 -m sigreg.module_check
# --precompile` here; from the repository root with carry [".gpu/rt", ".gpu/modcache"]
# (docs/PERF-NOTES.md, twenty-sixth session). Results under $OUT. About 5 minutes.
#  1. kernels-ref/microbench_tail.py: the last step of the single launch (one atomic round
#     trip per block on one word) against an empty grid, grouped words and no wait, and ncu's
#     duration and SM-active cycles of the empty grid (the floor of any 128-block launch);
#  2. the one-call form (sigreg_aot_call), never yet run on a GPU: module_check's full check of
#     blog, minimal and mid, then --host and --host-breakdown.
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
echo "== microbench $(date +%T)"
timeout 120 python3 kernels-ref/microbench_tail.py > $OUT/tail.txt 2>&1; echo "rc=$?"
cat $OUT/tail.txt | tail -14
for k in empty one; do
  for spin in 0 20000; do
    timeout 60 ncu --metrics gpu__time_duration.sum,sm__cycles_active.avg,sm__cycles_elapsed.avg,smsp__cycles_active.avg \
      -k regex:tail python3 kernels-ref/microbench_tail.py --ncu-kind $k --spin $spin > $OUT/ncu-tail-$k-$spin.txt 2>&1
    echo "ncu $k spin $spin rc=$?"; grep -E 'duration|cycles' $OUT/ncu-tail-$k-$spin.txt
  done
done
echo "== module $(date +%T)"
export SIGREG_GPU_BUILD=.gpu/rt SIGREG_AOT_LIB=.gpu/rt/lib/libsigreg_aot.so PYTHONPATH=python
export SIGREG_CACHE_DIR=.gpu/modcache
timeout 300 python3 -m sigreg.module_check --only blog,minimal,mid --host --host-breakdown \
  > $OUT/module.txt 2>&1
echo "module rc=$?"; grep -v -i warn $OUT/module.txt | tail -50
echo "== done $(date +%T)"
