#!/usr/bin/env bash
# Thirty-third session (docs/PERF-NOTES.md): the single launch in blocks of 4 warps
# (--single-launch-warps=4). Set w4: minimal, blog and minimal's training step of the landed
# compiler (NAME) and with 4 warps (w4-NAME); set w4all: every configuration of set v32 whose
# kernel the option changes (63), compiled with it:
#   for d in .gpu/v32/*/; do n=$(basename $d); build/bin/sigreg-run $d/source.mlir --target=cuda \
#     --compile-only --pipeline=fused --emit-artifact=.gpu/w4all/$n --single-launch-warps=4 &&
#   cp $d/source.mlir .gpu/w4all/$n/; grep -q 'maxntid 128' .gpu/w4all/$n/fused/sigreg.ptx ||
#   rm -rf .gpu/w4all/$n; done
# (set w4 the same way for minimal and blog of set f32 and step-minimal of v32, with and
# without the option). Built at cc71794; not yet run (no device in the thirty-third session).
# Carry [".gpu/rt", ".gpu/w4", ".gpu/w4all"]. About 4 minutes.
export PATH=$PATH:/usr/local/cuda/bin
. scripts/gpu-calls/lib.sh
times() { alternate .gpu/w4 3 "minimal-bf16 blog-bf16 step-minimal-bf16" "- w4-"; }
check() { validate .gpu/w4all/*/ > $OUT/w4all.txt; grep -v PASS $OUT/w4all.txt
  echo "PASS $(grep -c PASS $OUT/w4all.txt) of $(ls -d .gpu/w4all/*/ | wc -l)"; }
san() { sanitize .gpu/w4all/minimal-bf16; sanitize .gpu/w4all/sl-views-ragged-clamp; }
# ncu's source pages of both forms (scripts/ncu-regions.py $OUT/w4-*-source.csv).
prof() { profile w4/minimal-bf16 w4/w4-minimal-bf16; }
# Optional (PART=noflush): both forms of minimal with and without the L2 flush.
noflush() { local r n f; for r in 1 2 3; do for n in minimal-bf16 w4-minimal-bf16; do
  for f in "" --no-flush; do echo "$n $f r$r $(.gpu/rt/bin/sigreg-aot-run .gpu/w4/$n/fused \
    --bench --no-validate $f 2>&1 | grep -E '^full_forward' | awk '{printf "%s ", $2}')"
  done; done; done; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-times check san prof}
