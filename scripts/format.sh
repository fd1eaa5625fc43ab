#!/usr/bin/env bash
# Applies the formatters (one command, before a commit): clang-format on every tracked C++ file,
# ruff's import sorting and safe fixes on python/ and kernels-ref/. scripts/lint.sh checks.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
git ls-files '*.cpp' '*.h' | xargs clang-format -i
python3 -m ruff check --fix --quiet python kernels-ref || true
git status --short
