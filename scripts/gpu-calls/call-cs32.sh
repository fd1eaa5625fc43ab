#!/usr/bin/env bash
# Thirty-second session (docs/PERF-NOTES.md): the accumulator ECF's butterfly sends a whole
# column at offset 16 (the lanes of bit 16 take their two columns in swapped roles) and, at
# offset 8, the second half of a list whose sines come first where bit 8 is set: no select per
# sum at either. Set cs32: NAME by this compiler, c-NAME with the column swap alone (call 5
# timed it as NAME), o-NAME by the compiler before both (copied from
# sets v32 and fn32 of call-v32.sh / call-fn32.sh), the seven configurations whose PTX it
# changes (minimal bf16 and f16, the device-step minimal, a fenced 4096 x 16 loss, two random
# problems). The loss of each pair compared bit for bit (--json), validation, sanitizers on
# two, 3 rounds alternating. Carry [".gpu/rt", ".gpu/cs32"]. About 2 minutes.
export PATH=$PATH:/usr/local/cuda/bin
export SIGREG_GPU_BUILD=.gpu/rt SIGREG_AOT_LIB=.gpu/rt/lib/libsigreg_aot.so
. scripts/gpu-calls/lib.sh
N="minimal-bf16 minimal-f16 ds-minimal-bf16 ds-fenced-bf16 random-010 random-010-unclipped random-049"
bits() { local n p; for n in $N; do for p in o- c- ""; do
    timeout 60 .gpu/rt/bin/sigreg-aot-run .gpu/cs32/$p$n/fused --json=$OUT/$p$n.json > /dev/null 2>&1
  done
  echo "$n $(for p in o- c- ""; do grep -o '"loss": [^,]*' $OUT/$p$n.json | tr '\n' ' '; done)"
  rm -f $OUT/*$n.json
done; }
check() { local n; for n in $N; do validate .gpu/cs32/$n; done; }
san() { sanitize .gpu/cs32/minimal-bf16; sanitize .gpu/cs32/random-010; }
time_all() { alternate .gpu/cs32 3 "minimal-bf16 minimal-f16 ds-minimal-bf16 random-049" "o- c- -"; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-bits check san time_all}
