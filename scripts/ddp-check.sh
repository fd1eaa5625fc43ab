#!/usr/bin/env bash
# SIGReg under DDP on the GPUs of one machine (NCCL): correctness of sigreg.torch against the
# single-process full batch and the LeJEPA-style eager module, then forward+backward speed per
# rank (python/sigreg/ddp_check.py). Usage: scripts/ddp-check.sh [NGPU] [--out DIR] [--quick]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-$(nvidia-smi -L | wc -l)}
[ $# -gt 0 ] && shift
cd "$root"
PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}" exec torchrun --standalone --nproc_per_node="$n" \
  -m sigreg.ddp_check "$@"
