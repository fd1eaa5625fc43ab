#!/usr/bin/env bash
# Thirtieth session (docs/PERF-NOTES.md): the module's host time per call with SIGReg._last (a
# call like the one before it compares the key's parts instead of hashing the key) against the
# previous Python (a copy of 1fa544f's python/ in .gpu/oldpy/python), alternating, on the ops
# path (the default). From the repository root with carry [".gpu/rt", ".gpu/modcache",
# ".gpu/oldpy"]; every part writes its own file under $OUT. About 3 minutes.
export SIGREG_GPU_BUILD=.gpu/rt SIGREG_AOT_LIB=.gpu/rt/lib/libsigreg_aot.so
export SIGREG_CACHE_DIR=.gpu/modcache
. scripts/gpu-calls/lib.sh
host_ab() {
  local r p
  for r in 1 2; do for p in .gpu/oldpy/python python; do
    echo "== $p round $r"
    PYTHONPATH=$p timeout 100 python3 -m sigreg.module_check --only blog,minimal --skip-check \
      --host 2>&1 | grep -v -i warn | tail -8
  done; done
}
nvidia-smi --query-gpu=name --format=csv,noheader
run_parts ${PART:-host_ab}
