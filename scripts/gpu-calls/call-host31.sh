#!/usr/bin/env bash
# Thirty-first session (docs/PERF-NOTES.md): the module's host time per no_grad call with
# SIGReg.forward calling a device-step route's op directly, against the same module through
# _run_route (the previous path), in one process (`module_check --host-breakdown`, which
# first checks that the paths give the same bits), twice; then `--host`'s table. Carry
# [".gpu/rt", ".gpu/modcache"]. About 2 minutes.
export SIGREG_GPU_BUILD=.gpu/rt SIGREG_AOT_LIB=.gpu/rt/lib/libsigreg_aot.so
export SIGREG_CACHE_DIR=.gpu/modcache PYTHONPATH=python
. scripts/gpu-calls/lib.sh
breakdown() { local r; for r in 1 2; do
  timeout 150 python3 -m sigreg.module_check --only blog,minimal --skip-check --host-breakdown \
    2>&1 | grep -v -i warn
done; }
host() { timeout 150 python3 -m sigreg.module_check --only blog,minimal --skip-check --host 2>&1 |
  grep -v -i warn | tail -8; }
nvidia-smi --query-gpu=name --format=csv,noheader
run_parts ${PART:-breakdown host}
