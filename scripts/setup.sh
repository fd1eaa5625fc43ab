#!/usr/bin/env bash
# Installs what the project needs on a fresh Debian 12 machine (idempotent):
# LLVM/MLIR 22, Ninja, CMake, GoogleTest, and the Python test dependencies (numpy, pytest,
# torch).
set -euo pipefail
need=()
for pkg in libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools ninja-build cmake g++ \
           libgtest-dev clang-format clang-tidy; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" > /dev/null
fi
if ! python3 -c "import numpy, pytest" 2> /dev/null; then
  echo "setup: installing numpy and pytest"
  python3 -m pip install -q numpy pytest
fi
if ! python3 -m ruff --version > /dev/null 2>&1; then
  echo "setup: installing ruff"
  python3 -m pip install -q ruff
fi
# PyTorch for the sigreg.torch module's tests (CPU, gloo): the version the GPU machine has.
if ! python3 -c "import torch" 2> /dev/null; then
  echo "setup: installing torch 2.11.0"
  python3 -m pip install -q torch==2.11.0
fi
