#!/usr/bin/env bash
# After `bash scripts/gpu-pack.sh build probe24` here; from the repository root with carry
# [".gpu/rt", ".gpu/probe24"] (docs/PERF-NOTES.md, twenty-fourth session): blog's k loop with 8
# or 2 steps per iteration under the rule's stagger and fast normals (sg8-, sg2-), and with the
# next group's x words loaded one iteration ahead (px-, --single-launch-prefetch-x; also at V 8
# N 16, N 256 D 1024 and a ragged f16 shape with views: D 1000, 63 k steps), the forward and the
# training step, validated (sanitizers on px-blog and px-ragged), then 3 rounds of pairs.
# Results under $OUT. About 2 minutes.
export SIGREG_GPU_BUILD=.gpu/rt
nvidia-smi --query-gpu=name --format=csv,noheader
p=/tmp/sgprobe; rm -rf $p; mkdir -p $p
for d in .gpu/probe24/*sg*/; do ln -s "$(pwd)/$d" $p/$(basename $d); done
short() { awk '/ rc=/{if ($0 !~ / rc=0 .*PASS/) print "FAIL:", $0; else v++} END{if (v) print v, "PASS"}
  / r[0-9] /{for(i=1;i<=NF;i++){if($i=="full_forward")f=$(i+1); if($i=="full_forward_graph")g=$(i+1)}; print $1, $2, $3, f, g}'; }
timeout 60 bash scripts/gpu-ab.sh $p --prefix sg8- --rounds 3 --out $OUT/sg8 2>&1 | short
timeout 40 bash scripts/gpu-ab.sh $p --prefix sg2- --skip-validate --rounds 3 --out $OUT/sg2 2>&1 | short
timeout 90 bash scripts/gpu-ab.sh $p --prefix px- --skip-validate --rounds 3 --out $OUT/px 2>&1 | short
timeout 120 bash scripts/gpu-ab.sh $p --prefix px- --skip-validate --skip-bench \
  --sanitize "px-blog-sg-bf16 px-ragged-sg-f16" --out $OUT/px-san 2>&1 | grep -E 'rc='
