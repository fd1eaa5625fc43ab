#!/usr/bin/env bash
# On a machine with two GPUs or more (run kind nvidia-h100-x2 / nvidia-h200-x2), from the
# repository root with carry [".gpu"], after, here:
#   bash scripts/gpu-pack.sh build anchors    # .gpu/rt: the runtime and its C ABI library
#   SIGREG_CACHE_DIR=.gpu/ddpcache PYTHONPATH=python python3 -m sigreg.ddp_check --precompile
# (docs/PERF-NOTES.md, twenty-third session): the SIGReg module with the compiled backend under
# DDP, each rank's artifacts on its own device (cuda:LOCAL_RANK) through the C ABI, against the
# torch backend on the same shard; then one process running artifacts on two devices. Results under
# $OUT. About 3 minutes.
export SIGREG_CACHE_DIR=$PWD/.gpu/ddpcache SIGREG_AOT_LIB=$PWD/.gpu/rt/lib/libsigreg_aot.so
export PYTHONPATH=$PWD/python
nvidia-smi -L
timeout 300 torchrun --standalone --nproc_per_node="$(nvidia-smi -L | wc -l)" \
  -m sigreg.ddp_check --compiled --out "$OUT/ddp" 2>&1 | tail -30
# The C ABI on two devices of one process: blog and minimal on cuda:0 and on the last GPU,
# bitwise equal (python -m sigreg.capi_check, its "device" column).
timeout 120 python3 -m sigreg.capi_check .gpu/anchors/blog-bf16/fused .gpu/anchors/minimal-bf16/fused
