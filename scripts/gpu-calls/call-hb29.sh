#!/usr/bin/env bash
# Twenty-ninth session (docs/PERF-NOTES.md): the ECF's halving butterfly in emitTileEcf, and the
# twenty-eighth session's clusters, which have not run yet. From the repository root with carry
# [".gpu/rt", ".gpu/ut", ".gpu/hb29", ".gpu/modcache"]. Set hb29 (built here, see PERF-NOTES):
# NAME, c2-NAME, c4-NAME, g4-NAME, g4c2-NAME by this compiler (`scripts/build-gpu-artifacts.sh
# build DIR cluster28`, and the ragged and view configurations of set ftz27); o-NAME and
# oc2-NAME the same configurations by the previous compiler (0af6573). The new ECF sums the
# same values in the same order, so o-NAME and NAME must give the same loss, bit for bit.
# Results under $OUT. About 4 minutes; PART=time: the timing alone (first: it decides), PART=check:
# validation (with the bitwise comparison), the runtime's GPU unit tests, sanitizers.
export PATH=$PATH:/usr/local/cuda/bin
export SIGREG_GPU_BUILD=.gpu/rt
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
. scripts/gpu-calls/lib.sh
set=.gpu/hb29
time_all() {
  alternate $set 2 "blog-bf16 step-blog-bf16" "o- - oc2- c2- c4- g4- g4c2-"
  alternate $set 2 "n32-d1024-bf16 n16-d2048-bf16 phased-blog-bf16" "o- - c2-"
}
# validate_pairs: each new artifact against float64, and its loss beside the previous
# compiler's (same inputs and seed): "same" when the reported losses match in all 9 digits (an f32 round trip).
validate_pairs() { local d n a b; for d in $(ls -d $set/*/ | grep -Ev '/(o|oc2)-'); do
  n=$(basename $d)
  timeout 60 .gpu/rt/bin/sigreg-aot-run $d/fused --json=$OUT/$n.json > $OUT/$n.log 2>&1
  echo -n "$n $(grep -E 'PASS|FAIL|rror' $OUT/$n.log | tr '\n' ' ' | cut -c1-110)"
  if [ -d $set/o-$n ]; then
    timeout 60 .gpu/rt/bin/sigreg-aot-run $set/o-$n/fused --json=$OUT/o-$n.json > /dev/null 2>&1
    a=$(grep -o '"loss": [^,]*' $OUT/$n.json); b=$(grep -o '"loss": [^,]*' $OUT/o-$n.json)
    [ -n "$a" ] && [ "$a" = "$b" ] && echo " | same loss as o-" || echo " | o- $b, new $a"
  else echo; fi
done; }
check() {
  echo "== validate $(date +%T)"
  validate_pairs
  echo "== unit tests $(date +%T)"
  timeout 90 bash scripts/gpu-calls/call-check27.sh
  echo "== sanitize $(date +%T)"
  sanitize $set/blog-bf16
  sanitize $set/c2-blog-bf16
}
case "${PART:-all}" in
  time) time_all ;;
  check) check ;;
  *)
    echo "== time $(date +%T)"
    time_all
    check ;;
esac
echo "== done $(date +%T)"
