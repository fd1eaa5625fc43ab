#!/usr/bin/env bash
# Thirty-eighth session (docs/PERF-NOTES.md): the statistic's terms summed in fixed point by
# the threads that gather them (--single-launch-term-sums). Times minimal (issue 8's figure),
# its f16 and device-step forms and N 256 D 8 sum as the rule, t1- (the warps' sums added in
# shared memory) and t2- (one atomic per warp), alternating (5 rounds on an H200, 3 on an
# H100); validates every t1-/t2- artifact of set terms38 that the option changes against
# float64; sanitizers on t1- and t2-minimal; ncu of the three minimals.
# Recipe (CPU machine): scripts/build.sh, scripts/gpu-pack.sh, then
#   PIPES=fused bash scripts/build-gpu-artifacts.sh build .gpu/terms38 terms38
# Carry [".gpu/rt", ".gpu/terms38"]. About 4 minutes.
export PATH=$PATH:/usr/local/cuda/bin
. scripts/gpu-calls/lib.sh
rounds=3
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && rounds=5
D=.gpu/terms38
changed() { local d b; for d in $D/t1-*/; do b=$(basename $d); b=${b#t1-}
  cmp -s $d/fused/sigreg.ptx $D/t2-$b/fused/sigreg.ptx || echo "$D/t1-$b $D/t2-$b"; done; }
check() { validate $(changed); }
times() { alternate $D $rounds minimal-bf16 "- t1- t2-";
  alternate $D 3 "minimal-f16 ds-minimal-bf16 fe-n256-d8-sum" "- t1- t2-"; }
san() { sanitize $D/t1-minimal-bf16; sanitize $D/t2-minimal-bf16; }
prof() { profile terms38/minimal-bf16 terms38/t1-minimal-bf16 terms38/t2-minimal-bf16; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-times check san prof}
