#!/usr/bin/env bash
# Thirty-ninth session (docs/PERF-NOTES.md): --single-launch-term-sums=1 with the warps' sums
# gathered by a named barrier (warps 1 .. W - 1 bar.arrive, warp 0 bar.sync) instead of the
# thirty-eighth session's arrival count between fences, which racecheck reported (3 hazards).
# Validates every t1- artifact that differs from the rule against float64, runs the three
# sanitizers on t1-minimal and a 2-warp ragged t1- (racecheck's report kept in full), times
# minimal as the rule, t1- and t2- (9 rounds alternating) and its f16, device-step and N 256
# D 8 sum forms (5 rounds), and profiles the rule and t1-minimal.
# Recipe (CPU machine): scripts/build.sh, scripts/gpu-pack.sh, then
#   PIPES=fused bash scripts/build-gpu-artifacts.sh build .gpu/terms39 terms38
# Carry [".gpu/rt", ".gpu/terms39"]. About 2 minutes.
export PATH=$PATH:/usr/local/cuda/bin
. scripts/gpu-calls/lib.sh
D=.gpu/terms39
changed() { local d b; for d in $D/t1-*/; do b=$(basename $d); b=${b#t1-}
  cmp -s $d/fused/sigreg.ptx $D/$b/fused/sigreg.ptx || echo "$D/t1-$b"; done; }
check() { validate $(changed); }
times() { alternate $D 9 minimal-bf16 "- t1- t2-";
  alternate $D 5 "minimal-f16 ds-minimal-bf16 fe-n256-d8-sum" "- t1-"; }
san() { local a; for a in t1-minimal-bf16 t1-tm-n45-d13-forced; do sanitize $D/$a
  compute-sanitizer --tool racecheck --racecheck-report all .gpu/rt/bin/sigreg-aot-run \
    $D/$a/fused > "$OUT/racecheck-$a.log" 2>&1; done; }
prof() { profile terms39/minimal-bf16 terms39/t1-minimal-bf16; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run_parts ${PART:-times check san prof}
