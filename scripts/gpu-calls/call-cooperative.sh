#!/usr/bin/env bash
# After `scripts/gpu-pack.sh build cooperative anchors single stagger fragment stepgroup
# grad-fused` here
# (the sets of this call and of call-single.sh and call-fragment.sh, the calls that follow it);
# from the repository root with carry [".gpu"] (docs/PERF-NOTES.md, twenty-second session):
# the one-tile Hopper kernel whose grid generates g before a grid barrier (coop-NAME,
# --wgmma-cooperative, one cooperative launch) against the rule's two launches (NAME). Results
# under $OUT. About 5 minutes.
export SIGREG_GPU_BUILD=.gpu/rt
v=/tmp/coopv; rm -rf $v; mkdir -p $v
for d in .gpu/cooperative/coop-*/; do ln -s "$(cd "$d" && pwd)" "$v/$(basename "$d")"; done
timeout 240 bash scripts/gpu-ab.sh $v --skip-bench --sanitize "coop-mid-bf16 coop-ragged-bf16" --out $OUT/val 2>&1 |
  grep -E 'rc=|gpu-ab: done'
timeout 200 bash scripts/gpu-ab.sh .gpu/cooperative --prefix coop- --skip-validate --rounds 3 --out $OUT/bench 2>&1 |
  grep -E ' r[0-9] |gpu-ab'
