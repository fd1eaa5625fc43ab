#!/usr/bin/env bash
# Thirty-first session (docs/PERF-NOTES.md): with the cluster barrier arrived relaxed, does
# staging x pay where the rule does not stage (forwards of 16 rows or D = 1024)? Set x31: NAME
# the rule (no staging), s1-NAME staged in single blocks (--single-launch-stage-x=1), s2-NAME in
# clusters of 2 (=2); validation of s2-, 3 rounds. First set c31 once more (the rule against
# the one before it), for a card not yet measured. Carry [".gpu/rt", ".gpu/c31", ".gpu/x31"].
# About 4 minutes.
export PATH=$PATH:/usr/local/cuda/bin
. scripts/gpu-calls/lib.sh
N="n32-d1024-bf16 n16-d2048-bf16 n64-d1024-bf16"
c31() { alternate .gpu/c31 3 "blog-bf16 step-blog-bf16 phased-blog-bf16" "o- -"; }
check() { local n; for n in $N; do validate .gpu/x31/s2-$n; done; }
explore() { alternate .gpu/x31 3 "$N" "- s1- s2-"; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-c31 check explore}
