#!/usr/bin/env bash
# After `bash scripts/gpu-pack.sh build probe24` here; from the repository root with carry
# [".gpu/rt", ".gpu/probe24"] (docs/PERF-NOTES.md, twenty-fourth session): blog's k loop with 8
# or 2 steps per iteration under the rule's stagger and fast normals (sg8-, sg2-), the forward
# and the training step, validated, then 3 rounds of pairs. Results under $OUT. About 1 minute.
export SIGREG_GPU_BUILD=.gpu/rt
nvidia-smi --query-gpu=name --format=csv,noheader
p=/tmp/sgprobe; rm -rf $p; mkdir -p $p
for n in blog-sg-bf16 step-blog-sg-bf16 sg8-blog-sg-bf16 sg8-step-blog-sg-bf16 sg2-blog-sg-bf16 \
    sg2-step-blog-sg-bf16; do ln -s "$(pwd)/.gpu/probe24/$n" $p/$n; done
short() { awk '/ rc=/{if ($0 !~ / rc=0 .*PASS/) print "FAIL:", $0; else v++} END{if (v) print v, "PASS"}
  / r[0-9] /{for(i=1;i<=NF;i++){if($i=="full_forward")f=$(i+1); if($i=="full_forward_graph")g=$(i+1)}; print $1, $2, $3, f, g}'; }
timeout 60 bash scripts/gpu-ab.sh $p --prefix sg8- --rounds 3 --out $OUT/sg8 2>&1 | short
timeout 40 bash scripts/gpu-ab.sh $p --prefix sg2- --skip-validate --rounds 3 --out $OUT/sg2 2>&1 | short
