#!/usr/bin/env bash
# For the next session's first device call (docs/PERF-NOTES.md, twenty-seventh session): the
# runtime's GPU unit tests, GpuSmoke.MisalignedBindIsAnError among them, which were written
# after this session's device time ran out. Here: `mkdir -p .gpu/ut && cp
# build/unittests/SigregRuntimeTests .gpu/ut/`; there, with carry [".gpu/ut"]. The binary looks
# for its smoke artifact at the absolute path it was built with (this checkout's
# unittests/Runtime/gpu_smoke), so the script links that path to the copy it runs in.
set -u
smoke=$(strings .gpu/ut/SigregRuntimeTests | grep -m1 '/unittests/Runtime/gpu_smoke$')
root=${smoke%/unittests/Runtime/gpu_smoke}
if [ -n "$root" ] && [ ! -e "$root" ]; then
  mkdir -p "$(dirname "$root")" && ln -s "$(pwd)" "$root"
fi
.gpu/ut/SigregRuntimeTests --gtest_filter='GpuSmoke.*:CApi*:CudaDriver*' --gtest_brief=1 2>&1 | tail -20
