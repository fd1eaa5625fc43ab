#!/usr/bin/env bash
# Applies the formatters (one command, before a commit): clang-format on every C++ file git
# tracks or would track (untracked and not ignored: a new file is formatted before its commit),
# ruff's import sorting and safe fixes on python/ and kernels-ref/. scripts/lint.sh checks.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
git ls-files --cached --others --exclude-standard '*.cpp' '*.h' | xargs clang-format -i
python3 -m ruff check --fix --quiet python kernels-ref || true
git status --short
