#!/usr/bin/env bash
# End to end on the GPU machine (CUDA, Python 3.12, no LLVM/MLIR, no network),
# with the repository and the dist/ folder of scripts/build-static.sh:
#  1. installs the release tarball dist/sigreg-mlir-*.tar.xz (static tools) and
#     checks that ldd lists no LLVM/MLIR library and nothing missing;
#  2. runs sigreg-run --target=cuda (compile in process, run, validate against
#     the float64 reference, time) on the blog example with --bench and
#     --pipeline=both, other shapes and dtypes, every clip mode and reduction,
#     an explicit projection, the tensor-core and SIMT kernels, the anchors;
#  3. runs the lit suite (cuda-gpu feature on) with the installed tools, lit
#     from dist/lit.tar.xz and FileCheck/not/count from dist/test-tools.tar.xz.
# Keeps going after a failure and prints a summary table last. Logs go to
# $OUT (when set) or /tmp/sigreg-gpu-e2e. Exit status: 0 when all passed.
# Usage: scripts/gpu-e2e.sh [DIST_DIR] [--quick]
set -u -o pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dist=$root/dist
quick=0
for a in "$@"; do
  case "$a" in
    --quick) quick=1 ;;
    -*) echo "unknown option $a"; exit 2 ;;
    *) dist=$(cd "$a" && pwd) || { echo "no folder $a"; exit 2; } ;;
  esac
done
out=${OUT:-/tmp/sigreg-gpu-e2e}
mkdir -p "$out"
work=$(mktemp -d /tmp/sigreg-e2e.XXXXXX)
t0=$(date +%s)
summary=()  # "name|result|detail"
nfail=0
note() { summary+=("$1|$2|$3"); [ "$2" = PASS ] || nfail=$((nfail + 1)); }
elapsed() { echo $(( $(date +%s) - t0 )); }

echo "== device"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | tee "$out/device.txt"
(. /etc/os-release 2> /dev/null && echo "$PRETTY_NAME"; ldd --version | head -1) | tee -a "$out/device.txt"

# 1. Install the release.
echo "== install"
pkg=$(ls "$dist"/sigreg-mlir-*.tar.xz 2> /dev/null | head -1)
bin=""
if [ -z "$pkg" ]; then
  echo "no release tarball in $dist (run scripts/build-static.sh here first)"
  note install FAIL "no $dist/sigreg-mlir-*.tar.xz"
else
  # As README.md says: unpack into a prefix, run the installed example.
  mkdir -p "$work/install"
  if tar -xJf "$pkg" -C "$work/install" --strip-components=1; then
    bin=$work/install/bin
    ldd_log="$out/ldd.txt"; : > "$ldd_log"
    bad=0
    for t in sigreg-run sigreg-opt sigreg-aot-run; do
      { echo "$t:"; ldd "$bin/$t"; } >> "$ldd_log" 2>&1
      if ldd "$bin/$t" 2>&1 | grep -Eqi "llvm|mlir|not found"; then bad=1; fi
      [ -x "$bin/$t" ] || bad=1
    done
    if [ $bad = 0 ]; then
      note install PASS "$(basename "$pkg"), ldd: libc only"
    else
      note install FAIL "ldd lists LLVM/MLIR or a missing library ($ldd_log)"
      cat "$ldd_log"
    fi
  else
    note install FAIL "cannot unpack $pkg"
  fi
fi
run="$bin/sigreg-run"

# 2. sigreg-run --target=cuda.
src="$work/e2e.mlir"
cat > "$src" << 'MLIR'
func.func @blog_dynamic(%x: tensor<?x2048xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 t_max = 3.0 : tensor<?x2048xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @views_zero_below_mean(%x: tensor<3x37x129xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 77 points = 9 clip = zero_below(0.7) : tensor<3x37x129xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @views_clamp_min_none(%x: tensor<3x37x129xf32>, %seed: i64) -> tensor<3x77xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 77 points = 9 clip = clamp_min(0.7) reduction = none : tensor<3x37x129xf32> -> tensor<3x77xf32>
  return %l : tensor<3x77xf32>
}
func.func @clamp_min_sum(%x: tensor<1000x1000xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1000 points = 17 clip = clamp_min(1.0) reduction = sum : tensor<1000x1000xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @zero_below_none(%x: tensor<37x129xf16>, %seed: i64) -> tensor<77xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 77 points = 33 t_max = 4.0 clip = zero_below(1.0) reduction = none : tensor<37x129xf16> -> tensor<77xf32>
  return %l : tensor<77xf32>
}
func.func @explicit_mean(%x: tensor<2500x200xf16>, %a: tensor<200x333xf16>) -> tensor<f32> {
  %l = sigreg.loss %x projection(%a : tensor<200x333xf16>) slices = 333 points = 17 : tensor<2500x200xf16> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @explicit_none(%x: tensor<37x129xf32>, %a: tensor<129x77xf32>) -> tensor<77xf32> {
  %l = sigreg.loss %x projection(%a : tensor<129x77xf32>) slices = 77 points = 3 clip = clamp_min(0.5) reduction = none : tensor<37x129xf32> -> tensor<77xf32>
  return %l : tensor<77xf32>
}
func.func @mma_views_none(%x: tensor<4x700x129xbf16>, %seed: i64) -> tensor<4x333xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 333 points = 9 clip = clamp_min(1.0) reduction = none : tensor<4x700x129xbf16> -> tensor<4x333xf32>
  return %l : tensor<4x333xf32>
}
func.func @minimal(%x: tensor<4x256x16xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 256 points = 17 : tensor<4x256x16xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @mid(%x: tensor<1024x1024xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 : tensor<1024x1024xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @large(%x: tensor<8192x4096xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 4096 points = 17 : tensor<8192x4096xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
MLIR
cp "$src" "$out/e2e.mlir"
blog="$work/install/share/sigreg/examples/sigreg-blog.mlir"
[ -f "$blog" ] || blog="$root/examples/sigreg-blog.mlir"

# case NAME TIMEOUT_S FILE ARGS...: one sigreg-run --target=cuda run.
case_() {
  local name=$1 limit=$2 file=$3; shift 3
  local log="$out/run-$name.log" rc s
  s=$(date +%s)
  echo "$ sigreg-run $(basename "$file") --target=cuda $*" > "$log"
  if [ -x "$run" ]; then
    timeout "$limit" "$run" "$file" --target=cuda --json="$out/run-$name.json" "$@" >> "$log" 2>&1
    rc=$?
  else
    echo "no sigreg-run" >> "$log"; rc=127
  fi
  local secs=$(( $(date +%s) - s ))
  # Per pipeline: PASS/FAIL and full_forward time when benchmarked.
  local detail
  detail=$(awk '
    /^== .* pipeline ==/ { p = $2 }
    /^PASS/ { st[p] = "ok" } /^FAIL/ { st[p] = "FAIL" }
    /^(relative error|max relative error)/ { err[p] = $NF }
    /^full_forward / { ff[p] = $2 }
    /^full_forward_graph/ { fg[p] = $2 }
    END { for (q in st) { printf "%s:%s err=%s", q, st[q], err[q];
                          if (ff[q] != "") printf " %sms/graph %sms", ff[q], fg[q];
                          printf "; " } }' "$log")
  [ $rc = 124 ] && detail="timeout after ${limit}s; $detail"
  if [ $rc = 0 ]; then note "$name" PASS "${detail}${secs}s"
  else note "$name" "FAIL($rc)" "${detail}${secs}s, $log"; tail -5 "$log"; fi
  echo "[$(elapsed)s] $name: rc=$rc"
}

echo "== sigreg-run --target=cuda"
case_ blog-bench 120 "$blog" --bench
case_ blog-both 60 "$blog" --pipeline=both
case_ blog-f16 60 "$blog" --pipeline=both --dtype=f16
case_ blog-f32 60 "$blog" --pipeline=both --dtype=f32
case_ blog-shape-1000-f16 60 "$src" --entry=blog_dynamic --pipeline=both --shape=1000x2048 --dtype=f16
case_ blog-shape-4096-f32 90 "$src" --entry=blog_dynamic --pipeline=both --shape=4096x2048 --dtype=f32
case_ blog-shape-1 60 "$src" --entry=blog_dynamic --pipeline=both --shape=1x2048
case_ views-zero-below-mean 60 "$src" --entry=views_zero_below_mean --pipeline=both
case_ views-clamp-min-none 60 "$src" --entry=views_clamp_min_none --pipeline=both
case_ clamp-min-sum 60 "$src" --entry=clamp_min_sum --pipeline=both
case_ zero-below-none-f16 60 "$src" --entry=zero_below_none --pipeline=both
case_ explicit-mean-mma 60 "$src" --entry=explicit_mean --pipeline=both
case_ explicit-none-f32 60 "$src" --entry=explicit_none --pipeline=both
case_ explicit-mean-bf16 60 "$src" --entry=explicit_mean --pipeline=fused --dtype=bf16
case_ mma-views-none 60 "$src" --entry=mma_views_none --pipeline=both
case_ simt-views-none 60 "$src" --entry=mma_views_none --pipeline=fused --tensor-cores=false
case_ seed-7-input-3 60 "$src" --entry=views_zero_below_mean --pipeline=both --seed=7 --input-seed=3
if [ $quick = 0 ]; then
  case_ minimal-bench 90 "$src" --entry=minimal --bench
  case_ mid-bench 120 "$src" --entry=mid --bench
  case_ mid-f32-bench 120 "$src" --entry=mid --bench --dtype=f32
  case_ large-bench 240 "$src" --entry=large --bench --iters=50
fi
# The installed AOT runner on an artifact the installed compiler emits.
aot_log="$out/aot-run.log"
if "$run" "$blog" --target=cuda --compile-only --pipeline=both --emit-artifact="$work/art" > "$aot_log" 2>&1 \
   && timeout 60 "$bin/sigreg-aot-run" "$work/art/fused" >> "$aot_log" 2>&1 \
   && timeout 60 "$bin/sigreg-aot-run" "$work/art/naive" >> "$aot_log" 2>&1; then
  note sigreg-aot-run PASS "fused and naive artifacts of the blog example"
else
  note sigreg-aot-run FAIL "$aot_log"; tail -5 "$aot_log"
fi
sigreg_opt_ok=0
if [ -x "$bin/sigreg-opt" ] && "$bin/sigreg-opt" "$blog" --sigreg-gpu-pipeline > "$out/sigreg-opt-gpu.log" 2>&1 \
   && grep -q "gpu.binary" "$out/sigreg-opt-gpu.log"; then sigreg_opt_ok=1; fi
[ $sigreg_opt_ok = 1 ] && note sigreg-opt-gpu-pipeline PASS "gpu.binary emitted" \
  || note sigreg-opt-gpu-pipeline FAIL "$out/sigreg-opt-gpu.log"

# 3. The lit suite.
echo "== lit [$(elapsed)s]"
site=/tmp/sigreg-lit-site
lit_ok=1
if [ -f "$dist/lit.tar.xz" ] && mkdir -p "$site" && tar -C "$site" -xJf "$dist/lit.tar.xz"; then
  export PYTHONPATH=$site${PYTHONPATH:+:$PYTHONPATH}
elif ! python3 -c "import lit" 2> /dev/null; then
  lit_ok=0; note lit FAIL "no lit: neither $dist/lit.tar.xz nor an installed lit module"
fi
if [ $lit_ok = 1 ]; then
  mkdir -p "$work/test-tools"
  if ! tar -C "$work/test-tools" -xJf "$dist/test-tools.tar.xz" 2> "$out/test-tools.log"; then
    lit_ok=0; note lit FAIL "cannot unpack $dist/test-tools.tar.xz"
  elif ldd "$work/test-tools/bin/FileCheck" | grep -q "not found"; then
    ldd "$work/test-tools/bin/FileCheck" >> "$out/test-tools.log"
    lit_ok=0; note lit FAIL "FileCheck misses a library ($out/test-tools.log)"
  fi
fi
if [ $lit_ok = 1 ]; then
  timeout 300 python3 -c 'import sys, lit.main; sys.argv[0] = "lit"; lit.main.main()' \
    -sv --show-unsupported "$root/test" --param sigreg_tools_dir="$bin" \
    --param llvm_tools_dir="$work/test-tools/bin" --param sigreg_obj_root="$work/lit" \
    > "$out/lit.log" 2>&1
  rc=$?
  counts=$(grep -E "^ *(Passed|Failed|Unsupported|Expectedly Failed|Unresolved|Timed Out|Unexpectedly Passed) *:" "$out/lit.log" \
    | sed -E 's/^ *//; s/ *: */=/' | tr '\n' ' ')
  # The GPU tests, one by one: with -s, lit names only the tests that did not
  # pass (failed, unsupported, unresolved, timed out).
  gpu_tests=$(cd "$root/test" && grep -l "REQUIRES:.*cuda-gpu" -r . --include=*.mlir | sed 's|^\./||' | sort)
  ngpu=$(echo "$gpu_tests" | grep -c . || true)
  nfailgpu=0
  for t in $gpu_tests; do
    grep -Eq "SIGREG :: $t( |\$)" "$out/lit.log" \
      && { nfailgpu=$((nfailgpu + 1)); echo "GPU test not passed: $t"; }
  done
  if [ $rc = 0 ] && [ $nfailgpu = 0 ]; then
    note lit PASS "$counts; cuda-gpu tests: $ngpu, all passed"
  else
    note lit "FAIL($rc)" "$counts; cuda-gpu tests: $ngpu, $nfailgpu not passed ($out/lit.log)"
    grep -E "^(FAIL|UNRESOLVED|TIMEOUT):" "$out/lit.log" | head -20
  fi
fi
rm -rf "$work"

echo
echo "== summary ($(elapsed) s, logs in $out)"
{
  printf '%-26s %-9s %s\n' case result detail
  for row in "${summary[@]}"; do
    IFS='|' read -r n r d <<< "$row"
    printf '%-26s %-9s %s\n' "$n" "$r" "$d"
  done
  echo "${#summary[@]} checks, $nfail failed"
} | tee "$out/summary.txt"
[ $nfail = 0 ]
