#!/usr/bin/env bash
# Builds the self-contained tools (cmake -DSIGREG_STATIC_TOOLS=ON: sigreg-run,
# sigreg-opt and sigreg-aot-run linked against the static MLIR/LLVM, zlib,
# zstd, libstdc++ and libgcc) into ${STATIC_BUILD_DIR:-build-static}, and packs
# what travels to the GPU machine into ${DIST_DIR:-dist} (ignored by git):
#   dist/sigreg-mlir-<version>-linux-x86_64.tar.xz  the release (CPack, stripped)
#   dist/test-tools.tar.xz  FileCheck, not, count for the lit suite
#   dist/lit.tar.xz         lit's Python sources (LLVM 22's, as in CI)
#   dist/SIZES.txt          raw / stripped / xz size of each binary, ldd output
# Then on the GPU machine: scripts/gpu-e2e.sh (docs/RELEASE.md).
# Usage: scripts/build-static.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${STATIC_BUILD_DIR:-$root/build-static}
dist=${DIST_DIR:-$root/dist}

# Static zlib/zstd come from the -dev packages; patchelf edits the test tools.
need=()
for pkg in zlib1g-dev libzstd-dev patchelf xz-utils; do
  dpkg-query -W -f='${Status}' "$pkg" 2> /dev/null | grep -q "install ok installed" || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "build-static: installing ${need[*]}"
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" > /dev/null
fi

launcher=()
if command -v ccache > /dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
if [ ! -f "$build/build.ninja" ]; then
  mkdir -p "$build"
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir -DSIGREG_STATIC_TOOLS=ON \
    -DSIGREG_ENABLE_TESTS=OFF "${launcher[@]}" > "$build/cmake.log" 2>&1 \
    || { cat "$build/cmake.log"; exit 1; }
fi
tools=(sigreg-run sigreg-opt sigreg-aot-run)
start=$(date +%s)
nice cmake --build "$build" --target "${tools[@]}" -j"$(nproc)"
echo "build-static: built in $(( $(date +%s) - start )) s"

# No LLVM/MLIR (or any non-libc) library may be needed at run time.
for t in "${tools[@]}"; do
  if ldd "$build/bin/$t" | grep -Ev 'linux-vdso|libc\.so|libm\.so|ld-linux|libdl\.so|libpthread\.so|librt\.so' | grep -q .; then
    echo "build-static: $t needs more than the C library:"; ldd "$build/bin/$t"; exit 1
  fi
done

rm -rf "$dist"; mkdir -p "$dist"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
{
  echo "# sigreg static tools, $(date -u +%Y-%m-%d), $(git -C "$root" rev-parse --short HEAD)"
  printf '%-16s %12s %12s %12s\n' binary raw stripped xz
  for t in "${tools[@]}"; do
    strip -o "$tmp/$t" "$build/bin/$t"
    xz -6 -T"$(nproc)" -k -c "$tmp/$t" > "$tmp/$t.xz"
    printf '%-16s %12d %12d %12d\n' "$t" "$(stat -c %s "$build/bin/$t")" \
      "$(stat -c %s "$tmp/$t")" "$(stat -c %s "$tmp/$t.xz")"
  done
  for t in "${tools[@]}"; do echo "ldd $t:"; ldd "$build/bin/$t" | sed 's/ (0x.*//'; done
} > "$dist/SIZES.txt"

# The release tarball (stripped by CPack), also what the GPU machine installs.
rm -rf "$build/package"
(cd "$build" && cpack -G TXZ > "$build/cpack.log" 2>&1) || { cat "$build/cpack.log"; exit 1; }
cp "$build"/package/sigreg-mlir-*.tar.xz "$dist/"

# lit's RUN lines need FileCheck, not and count. Debian's copies link LLVM
# statically already; their one needless dependency is libz3 (no z3 symbol
# is referenced), which the GPU machine lacks: drop it.
mkdir -p "$tmp/test-tools/bin"
for t in FileCheck not count; do
  cp /usr/lib/llvm-22/bin/$t "$tmp/test-tools/bin/"
  patchelf --remove-needed libz3.so.4 "$tmp/test-tools/bin/$t"
  strip "$tmp/test-tools/bin/$t"
  if ldd "$tmp/test-tools/bin/$t" | grep -q "not found"; then
    echo "build-static: $t still misses a library:"; ldd "$tmp/test-tools/bin/$t"; exit 1
  fi
done
tar -C "$tmp/test-tools" -cJf "$dist/test-tools.tar.xz" bin
{ echo "test tools (from /usr/lib/llvm-22/bin, libz3 dropped):";
  for t in FileCheck not count; do
    echo "  $t: $(readelf -d "$tmp/test-tools/bin/$t" | awk '/NEEDED/ {printf "%s ", $NF}')"
  done; } >> "$dist/SIZES.txt"

# lit: the LLVM 22 copy CI uses (pure Python), not the PyPI wheel: lit 23's
# ShTest refuses the external shell that test/lit.cfg.py selects.
tar -C /usr/lib/llvm-22/utils/lit --exclude=__pycache__ --exclude=ExampleTests.ObjDir \
  -cJf "$dist/lit.tar.xz" lit
echo "lit: $(/usr/lib/llvm-22/bin/lit --version 2>&1) (dist/lit.tar.xz)" >> "$dist/SIZES.txt"
echo "dist/ (carry it to the GPU machine):"
(cd "$dist" && ls -l --block-size=K | grep -v '^total')
du -sh "$dist"
cat "$dist/SIZES.txt"
