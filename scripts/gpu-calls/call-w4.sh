#!/usr/bin/env bash
# Thirty-third session (docs/PERF-NOTES.md): the single launch in blocks of 4 warps
# (--single-launch-warps=4). Built on the CPU machine with
#   bash scripts/build.sh && bash scripts/gpu-pack.sh build warps4
# (.gpu/rt, and set warps4: the warps16 configurations as NAME, 8 warps, and w4-NAME, plus the
# random set's problems as w4-random-NNN; 60 of its w4- artifacts run in 4 warps). Times
# minimal, blog and minimal's training step in both forms (3 rounds), validates every
# artifact in 4 warps, runs the sanitizers on two and takes ncu's source pages of minimal in
# both forms (scripts/ncu-regions.py $OUT/warps4-*-source.csv). Not yet run: no device came
# in the thirty-third session.
# Carry [".gpu/rt", ".gpu/warps4"]. About 4 minutes.
export PATH=$PATH:/usr/local/cuda/bin
. scripts/gpu-calls/lib.sh
w4dirs() { local d; for d in .gpu/warps4/w4-*/; do
  grep -q 'maxntid 128' "$d/fused/sigreg.ptx" 2>/dev/null && echo "$d"; done; }
times() { alternate .gpu/warps4 3 "minimal-bf16 blog-bf16 step-minimal-bf16" "- w4-"; }
check() { validate $(w4dirs) > $OUT/w4.txt; grep -v PASS $OUT/w4.txt
  echo "PASS $(grep -c PASS $OUT/w4.txt) of $(w4dirs | wc -l)"; }
san() { sanitize .gpu/warps4/w4-minimal-bf16; sanitize .gpu/warps4/w4-sl-views-ragged-clamp; }
prof() { profile warps4/minimal-bf16 warps4/w4-minimal-bf16; }
# Optional (PART=noflush): both forms of minimal with and without the L2 flush.
noflush() { local r n f; for r in 1 2 3; do for n in minimal-bf16 w4-minimal-bf16; do
  for f in "" --no-flush; do echo "$n $f r$r $(.gpu/rt/bin/sigreg-aot-run .gpu/warps4/$n/fused \
    --bench --no-validate $f 2>&1 | grep -E '^full_forward' | awk '{printf "%s ", $2}')"
  done; done; done; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-times check san prof}
