#!/usr/bin/env bash
# The torch ops path (docs/TORCH.md, "The ops path") on the GPU: from the repository root with
# carry [".gpu/rt", ".gpu/modcache"], after `bash scripts/build-torch-ops.sh && cp
# build/lib/libsigreg_torch_ops.so .gpu/rt/lib/` here (the library loads from the directory of
# the libsigreg_aot.so that sigreg.capi loads) and the module check's artifacts in
# .gpu/modcache (`SIGREG_CACHE_DIR=.gpu/modcache PYTHONPATH=python python3 -m
# sigreg.module_check --precompile --only blog,minimal,mid`). Results under $OUT. About 3
# minutes.
#  1. the ops path against the ctypes path, bitwise (module_check --ops: no_grad forward,
#     training step phased and whole, host seed, loss + gradient pair, CUDA graph; a second
#     ctypes run as the control), and the float64 check of every backend with the ops on;
#  2. the same check and the device-step check (CUDA graph replays) with SIGREG_NO_TORCH_OPS=1;
#  3. host time per call on both paths (--host --host-breakdown), blog and minimal.
export SIGREG_GPU_BUILD=.gpu/rt SIGREG_AOT_LIB=.gpu/rt/lib/libsigreg_aot.so PYTHONPATH=python
export SIGREG_CACHE_DIR=.gpu/modcache
export SIGREG_TORCH_OPS=1  # opt-in until this call has run
nvidia-smi --query-gpu=name --format=csv,noheader
if [ "${PART:-}" = short ]; then
  # The last minutes of a session's device time: the bitwise comparison and the host time per
  # call of both paths, blog and minimal, no float64 check (about 1.5 minutes).
  timeout 110 python3 -m sigreg.module_check --only blog,minimal --skip-check --ops --host \
    > "$OUT/short.txt" 2>&1
  echo "short rc=$?"; grep -v -i warn "$OUT/short.txt" | tail -50
  exit 0
fi
echo "== ops against ctypes $(date +%T)"
timeout 240 python3 -m sigreg.module_check --only blog,minimal,mid --ops --device-step \
  > "$OUT/ops.txt" 2>&1
echo "ops rc=$?"; grep -v -i warn "$OUT/ops.txt" | tail -60
echo "== ctypes only $(date +%T)"
SIGREG_NO_TORCH_OPS=1 timeout 120 python3 -m sigreg.module_check --only blog,minimal \
  --device-step > "$OUT/ctypes.txt" 2>&1
echo "ctypes rc=$?"; grep -v -i warn "$OUT/ctypes.txt" | tail -30
echo "== host $(date +%T)"
timeout 200 python3 -m sigreg.module_check --only blog,minimal --skip-check --host \
  --host-breakdown > "$OUT/host.txt" 2>&1
echo "host rc=$?"; grep -v -i warn "$OUT/host.txt" | tail -70
echo "== done $(date +%T)"
