#!/usr/bin/env bash
# Thirty-second session (docs/PERF-NOTES.md): the y tile's halving butterfly without selects
# at its first level (the lanes that keep the sines list them first: their recurrences start
# from each other's values). Set sn32 (PIPES=fused bash scripts/build-gpu-artifacts.sh build
# DIR sines32 by this compiler, PREFIX=o- ... by the one before it, pairs with the same PTX
# removed): the loss of each pair bit for bit (--json), validation, sanitizers on blog and a
# masked ragged shape, 3 rounds alternating. Carry [".gpu/rt", ".gpu/sn32"]. About 4 minutes.
export PATH=$PATH:/usr/local/cuda/bin
export SIGREG_GPU_BUILD=.gpu/rt SIGREG_AOT_LIB=.gpu/rt/lib/libsigreg_aot.so
. scripts/gpu-calls/lib.sh
ALL=$(ls -d .gpu/sn32/*/ | xargs -n1 basename | grep -v '^o-')
bits() { local n p; for n in $ALL; do for p in o- ""; do
    timeout 60 .gpu/rt/bin/sigreg-aot-run .gpu/sn32/$p$n/fused --json=$OUT/$p$n.json > /dev/null 2>&1
  done
  echo "$n $(for p in o- ""; do grep -o '"loss": [^,]*' $OUT/$p$n.json | head -1 | tr '\n' ' '; done)"
  rm -f $OUT/o-$n.json $OUT/$n.json
done; }
check() { local n; for n in $ALL; do validate .gpu/sn32/$n; done; }
san() { sanitize .gpu/sn32/blog-bf16; sanitize .gpu/sn32/ragged-bf16-clamp; }
time_all() { alternate .gpu/sn32 3 "blog-bf16 step-blog-bf16 phased-blog-bf16 ds-blog-bf16 \
n32-d1024-bf16 views8-n16-bf16 n128-d1024-bf16 n24-d1001-bf16 n256-d1024-bf16 ragged-bf16-clamp" "o- -"; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-bits check san time_all}
