#!/usr/bin/env bash
# A/B comparison of two builds of the same problems on the GPU machine (no MLIR there):
# ARTDIR holds artifacts NAME (A, usually the rule) and PREFIXNAME (B, the variant under test),
# as scripts/build-gpu-artifacts.sh writes them (its tpersistent set: NAME-bf16 beside
# tp-NAME-bf16). In one device call it
#   1. validates every artifact of ARTDIR with sigreg-aot-run: PASS/FAIL against float64, and
#      its "repeat ... bitwise identical; graph replay ..." line;
#   2. runs compute-sanitizer (memcheck, racecheck, synccheck) on the artifacts --sanitize names;
#   3. times each pair with sigreg-aot-run --bench --no-validate, A then B, --rounds times
#      (full_forward, full_forward_graph and the region rows, ms);
#   4. with --same-process NAMES, times those pairs with python -m sigreg.bench in the same
#      process as PyTorch (torch.compile and the cuBLAS GEMM once, then B, A, B in three
#      processes), the figure issue 7's targets are stated in.
# Usage: scripts/gpu-ab.sh ARTDIR [--prefix tp-] [--rounds 2] [--sanitize "N1 N2"]
#          [--pairs "N1 N2"] [--same-process "large-bf16 wide-bf16"] [--skip-validate]
#          [--skip-bench] [--out DIR] [--dry-run]
# --pairs times only those pairs (NAME of each; default every pair).
# All of it takes more than one 10-minute device call for the tpersistent set: split it with
# --skip-validate / --skip-bench. --dry-run prints the commands instead of running them (for a
# machine without a GPU).
set -uo pipefail
art=${1:?artifact dir}; shift
prefix=tp-; rounds=2; sanitize=""; same=""; only=""; validate=1; bench=1; dry=0
out=${OUT:-/tmp/sigreg-gpu-ab}
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix=$2; shift ;;
    --rounds) rounds=$2; shift ;;
    --sanitize) sanitize=$2; shift ;;
    --pairs) only=$2; shift ;;
    --same-process) same=$2; shift ;;
    --skip-validate) validate=0 ;;
    --skip-bench) bench=0 ;;
    --out) out=$2; shift ;;
    --dry-run) dry=1 ;;
    *) echo "gpu-ab.sh: unknown option $1" >&2; exit 2 ;;
  esac; shift
done
[ -d "$art" ] || { echo "gpu-ab.sh: no artifact directory $art" >&2; exit 2; }
case "$rounds" in ''|*[!0-9]*) echo "gpu-ab.sh: --rounds needs a number, got $rounds" >&2; exit 2 ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
art=$(cd "$art" && pwd)
mkdir -p "$out"
run() { if [ "$dry" = 1 ]; then echo "+ $*"; else "$@"; fi; }

# The runtime: SIGREG_GPU_BUILD's bin/sigreg-aot-run and lib/libsigreg_aot.so (scripts/gpu-pack.sh
# carries this machine's there), where they run here, else an MLIR-free build in /tmp.
bld=${SIGREG_GPU_BUILD:-/tmp/sigreg-build-nomlir}
aot="$bld/bin/sigreg-aot-run"
if [ "$dry" = 0 ] && [ -x "$aot" ] && ! "$aot" --help > /dev/null 2>&1; then
  echo "gpu-ab: $aot does not run here; building the runtime in /tmp"
  bld=/tmp/sigreg-build-nomlir; aot="$bld/bin/sigreg-aot-run"
fi
if [ "$dry" = 0 ] && [ ! -x "$aot" ]; then
  { cmake -S "$root" -B "$bld" -DSIGREG_ENABLE_MLIR=OFF -DCMAKE_BUILD_TYPE=Release &&
    cmake --build "$bld" -j"$(nproc)" --target sigreg-aot-run sigreg_aot; } \
    > "$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; exit 2; }
fi

# The pairs: every B artifact PREFIXNAME whose NAME is there too.
pairs=()
for d in "$art"/"$prefix"*; do
  [ -d "$d/fused" ] || continue
  b=$(basename "$d"); a=${b#"$prefix"}
  [ -d "$art/$a/fused" ] || continue
  [ -z "$only" ] || [[ " $only " == *" $a "* ]] || continue
  pairs+=("$a")
done
echo "gpu-ab: ${#pairs[@]} pairs in $art (B = ${prefix}NAME)"

fail=0
if [ "$validate" = 1 ]; then
  echo "== validation $(date +%T)"
  for d in "$art"/*; do
    n=$(basename "$d"); [ -d "$d/fused" ] || continue
    if [ "$dry" = 1 ]; then run "$aot" "$d/fused"; continue; fi
    timeout 120 "$aot" "$d/fused" > "$out/val-$n.txt" 2>&1; rc=$?
    verdict=$(grep -m1 -E 'PASS|FAIL' "$out/val-$n.txt")
    echo "$n rc=$rc $verdict | $(grep -m1 -i 'bitwise' "$out/val-$n.txt")"
    [ "$rc" = 0 ] && [[ "$verdict" == *PASS* ]] || fail=1
  done
fi

if [ -n "$sanitize" ]; then
  echo "== sanitizers $(date +%T)"
  export PATH=$PATH:/usr/local/cuda/bin
  for n in $sanitize; do
    [ -d "$art/$n/fused" ] || { echo "$n: no such artifact"; fail=1; continue; }
    for tool in memcheck racecheck synccheck; do
      if [ "$dry" = 1 ]; then run compute-sanitizer --tool "$tool" "$aot" "$art/$n/fused"; continue; fi
      timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 9 "$aot" "$art/$n/fused" \
        > "$out/san-$n-$tool.txt" 2>&1; rc=$?
      echo "$n $tool rc=$rc $(grep -m1 'ERROR SUMMARY' "$out/san-$n-$tool.txt")"
      [ "$rc" = 0 ] || fail=1
    done
  done
fi

rows='^(projection_generation|trig_reduction|epilogue|full_forward|full_forward_graph) '
[ "$bench" = 1 ] && echo "== sigreg-aot-run --bench $(date +%T) (ms; A = NAME, B = ${prefix}NAME)"
[ "$bench" = 1 ] && for r in $(seq 1 "$rounds"); do
  for n in "${pairs[@]}"; do
    for side in A B; do
      d="$art/$n"; [ "$side" = B ] && d="$art/$prefix$n"
      if [ "$dry" = 1 ]; then run "$aot" "$d/fused" --bench --no-validate; continue; fi
      echo "$n $side r$r $(timeout 120 "$aot" "$d/fused" --bench --no-validate 2>&1 |
        grep -E "$rows" | awk '{printf "%s %s  ", $1, $2}')"
    done
  done
done

if [ -n "$same" ]; then
  echo "== same process as PyTorch $(date +%T) (python -m sigreg.bench, ms)"
  export SIGREG_AOT_LIB="$bld/lib/libsigreg_aot.so" PYTHONPATH="$root/python"
  shapes=()
  for side in A B; do mkdir -p "$out/same-$side"; done
  for n in $same; do
    [ -f "$art/$n/source.mlir" ] && [ -d "$art/$prefix$n" ] || { echo "$n: no pair with a source.mlir"; continue; }
    # V, N, D from x's tensor type, S and P from the loss; the configuration is NAME less -bf16.
    t=$(grep -o 'tensor<[0-9x]*x\(bf16\|f16\|f32\)>' "$art/$n/source.mlir" | head -1)
    dims=$(echo "$t" | sed -E 's/tensor<(.*)x(bf16|f16|f32)>/\1/'); IFS=x read -r -a dd <<< "$dims"
    [ "${#dd[@]}" = 2 ] && dd=(1 "${dd[@]}")
    S=$(grep -o 'slices = [0-9]*' "$art/$n/source.mlir" | awk '{print $3}')
    P=$(grep -o 'points = [0-9]*' "$art/$n/source.mlir" | awk '{print $3}')
    cfg=${n%-bf16}
    [ "$cfg" = "$n" ] && { echo "$n: only -bf16 configurations"; continue; }
    shapes+=(--shape "$cfg=${dd[0]},${dd[1]},${dd[2]},$S,$P")
    ln -sfn "$art/$n" "$out/same-A/$n"; ln -sfn "$art/$prefix$n" "$out/same-B/$n"
  done
  if [ "${#shapes[@]}" -gt 0 ]; then
    first=compile,fused
    for side in B A B; do
      run timeout 300 python3 -m sigreg.bench --artifacts "$out/same-$side" --dtype bf16 --configs "" \
        "${shapes[@]}" --variants "$first" --quick > "$out/bench-$side.txt" 2>&1
      echo "-- $side: rc=$?"
      [ "$dry" = 1 ] || grep -E '^ +(compile|fused) +[0-9]|^[a-z0-9_]+ +[0-9]|cuBLAS|gemm' "$out/bench-$side.txt" | head -30
      first=fused
    done
  fi
fi
echo "gpu-ab: done ($( [ "$fail" = 0 ] && echo "every check passed" || echo "a check FAILED"))"
exit "$fail"
