#!/usr/bin/env bash
# Every test: set up, build, then the lit suite (FileCheck tests of the
# dialect, passes, pipelines and tools; GPU tests only where a GPU is
# present), the GoogleTest unit tests, the Python package's tests, and the
# linters (scripts/lint.sh: clang-format, clang-tidy, ruff).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
start=$(date +%s)
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh"
echo "== lit =="
/usr/lib/llvm-22/bin/lit -sv "$build/test"
echo "== unit tests =="
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
echo "== python =="
(cd "$root" && python3 -m pytest -q python/tests)
echo "== lint =="
BUILD_DIR="$build" bash "$root/scripts/lint.sh"
echo "all tests passed in $(( $(date +%s) - start )) s"
