#!/usr/bin/env bash
# Thirty-first session, first call (docs/PERF-NOTES.md): issue 8's figures once more on whatever
# card comes (the targets are the H200's): blog and minimal under the minctasm rule against the
# rule before (h-, set hx30 of the thirtieth session) and mid, 3 rounds; today's host's time per
# module call (the baseline of this session's host-path work); on an H200 also the forwards in
# the same process as PyTorch (set samebench: `PIPES=fused bash scripts/build-gpu-artifacts.sh
# build .gpu/samebench samebench`). Carry [".gpu/rt", ".gpu/hx30", ".gpu/modcache",
# ".gpu/samebench"]. About 2 minutes, 7 on an H200.
export PATH=$PATH:/usr/local/cuda/bin
export SIGREG_GPU_BUILD=.gpu/rt SIGREG_AOT_LIB=.gpu/rt/lib/libsigreg_aot.so
export SIGREG_CACHE_DIR=.gpu/modcache
. scripts/gpu-calls/lib.sh
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
time_all() {
  alternate .gpu/hx30 3 "blog-bf16 minimal-bf16" "h- -"
  alternate .gpu/hx30 3 "mid-bf16" "-"
}
check() { validate .gpu/hx30/blog-bf16 .gpu/hx30/minimal-bf16 .gpu/hx30/mid-bf16; }
host() {
  PYTHONPATH=python timeout 150 python3 -m sigreg.module_check --only blog,minimal --skip-check \
    --host 2>&1 | grep -v -i warn | tail -8
}
same() {
  case "$gpu" in *H200*) ;; *) echo "skipped on $gpu (an H200's figures only)"; return;; esac
  PYTHONPATH=python timeout 330 python3 -m sigreg.bench --artifacts .gpu/samebench --dtype bf16 \
    --configs blog,minimal,mid --shape views2-n64=2,64,768,512,17 \
    --shape n128-d1024=1,128,1024,1024,17 --shape views8-n16=8,16,384,256,17 \
    --shape odd-v3-n100=3,100,500,300,9 --shape views2-n512=2,512,1024,1024,17 \
    --variants eager+graph,compile,compile-ro,fused,fused+graph --quick 2>&1 |
    grep -vE "^ +(compile|compile-ro): compiled"
}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-time_all check host same}
