#!/usr/bin/env bash
# The linters, as CI runs them (scripts/test.sh): clang-format (LLVM style, .clang-format) on
# every C++ file, clang-tidy (the LLVM checks of .clang-tidy, warnings are errors) on lib/ and
# tools/ with the build's compile_commands.json, ruff (ruff.toml) on python/ and kernels-ref/.
# scripts/format.sh applies the formatters.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
cd "$root"
echo "lint: clang-format"
git ls-files --cached --others --exclude-standard '*.cpp' '*.h' | xargs clang-format --dry-run -Werror
echo "lint: clang-tidy"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if ! git ls-files 'lib/*.cpp' 'tools/*.cpp' |
     xargs -P"$(nproc)" -n1 clang-tidy -p "$build" --quiet --warnings-as-errors='*' > "$out" 2>&1; then
  grep -v -e '^[0-9]* warnings\? generated' -e '^Suppressed ' -e '^Use -header-filter' "$out" || true
  echo "lint: clang-tidy found problems (above)"
  exit 1
fi
echo "lint: ruff"
python3 -m ruff check python kernels-ref
echo "lint: clean"
