#!/usr/bin/env bash
# Builds the torch operator library of the compiled artifacts (python/csrc/TorchOps.cpp,
# docs/TORCH.md "The ops path") into BUILD_DIR/lib/libsigreg_torch_ops.so, beside the
# libsigreg_aot.so it calls: g++ on that one file against the installed torch's headers and
# libraries (libtorch's C++ ABI only, so one build loads under any Python of that torch build)
# and the CUDA headers, linked to the runtime with RUNPATH $ORIGIN. No CMake. Without torch,
# the CUDA headers or the runtime it prints one line and exits 0; an up-to-date library is kept.
#   bash scripts/build-torch-ops.sh [BUILD_DIR]     (default: build; PYTHON, CUDA_HOME, CXX)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${BUILD_DIR:-$root/build}}
cuda=${CUDA_HOME:-/usr/local/cuda}
python=${PYTHON:-python3}
cxx=${CXX:-g++}
src=$root/python/csrc/TorchOps.cpp
lib=$build/lib
out=$lib/libsigreg_torch_ops.so
skip() { echo "build-torch-ops: skipped ($1)"; exit 0; }
[ -f "$lib/libsigreg_aot.so" ] || skip "no $lib/libsigreg_aot.so: build the runtime first"
[ -f "$cuda/include/cuda_runtime_api.h" ] || skip "no CUDA headers in $cuda/include"
# torch's include and library folders and its C++ ABI (cpp_extension warns on stderr when no
# CUDA runtime is found; the headers are all this build needs).
flags=$("$python" -c '
import torch
from torch.utils import cpp_extension as c
print(" ".join(["-isystem " + p for p in c.include_paths()]
               + ["-L" + p for p in c.library_paths()]
               + ["-D_GLIBCXX_USE_CXX11_ABI=%d" % int(torch._C._GLIBCXX_USE_CXX11_ABI)]))
' 2>/dev/null) || skip "no torch for $python"
# shellcheck disable=SC2206  # $flags: words on purpose
cmd=($cxx -std=c++17 -O2 -fPIC -shared -Wall -Wextra -Wno-unused-parameter $flags
     -I"$root/include" -isystem "$cuda/include" "$src" -o "$out.tmp"
     -L"$lib" -lsigreg_aot -lc10 -ltorch_cpu -lc10_cuda
     '-Wl,--enable-new-dtags,-rpath,$ORIGIN')
# Rebuilt when the source, the C ABI's header, the runtime or the command (torch, flags) changed.
stamp=$out.cmd
if [ -f "$out" ] && [ "$(cat "$stamp" 2>/dev/null)" = "${cmd[*]}" ] && [ "$out" -nt "$src" ] \
   && [ "$out" -nt "$root/include/sigreg/Runtime/CApi.h" ] && [ "$out" -nt "$lib/libsigreg_aot.so" ]; then
  echo "build-torch-ops: $out is up to date"
  exit 0
fi
"${cmd[@]}"
mv "$out.tmp" "$out"
echo "${cmd[*]}" > "$stamp"
echo "build-torch-ops: built $out"
