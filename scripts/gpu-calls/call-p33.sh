#!/usr/bin/env bash
# Thirty-third session (docs/PERF-NOTES.md): where minimal's time goes, per SASS instruction.
# Set f32 (the thirty-second session's: blog, minimal, mid of the landed compiler, PTX
# byte for byte HEAD's). Issue 8's figures (3 rounds), minimal with and without the L2 flush,
# and ncu's source page of minimal for scripts/ncu-regions.py.
# Carry [".gpu/rt", ".gpu/f32"]. About 2 minutes.
export PATH=$PATH:/usr/local/cuda/bin
. scripts/gpu-calls/lib.sh
figures() { alternate .gpu/f32 3 "blog-bf16 minimal-bf16 mid-bf16" -; }
noflush() { local r; for r in 1 2 3; do
  for f in "" --no-flush; do
    echo "minimal $f r$r $(.gpu/rt/bin/sigreg-aot-run .gpu/f32/minimal-bf16/fused --bench \
      --no-validate $f 2>&1 | grep -E '^full_forward' | awk '{printf "%s ", $2}')"
  done; done; }
prof() { profile f32/minimal-bf16; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-figures noflush prof}
