// Issue 11: flags that would do nothing are rejected (exit 2) instead of
// being ignored, and output paths are checked before anything is compiled.

// CUDA-only flags with the CPU target.
// RUN: not sigreg-run --target=cpu --block-rows=32 %s 2>&1 | FileCheck %s --check-prefix=ROWS
// ROWS: sigreg-run: error: --block-rows applies to --target=cuda only, not to the CPU target
// RUN: not sigreg-run --target=cpu --chip=sm_80 --block-slices=16 --tensor-cores=false %s 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: sigreg-run: error: --chip, --block-slices, --tensor-cores apply to --target=cuda only, not to the CPU target
// RUN: (sigreg-run --target=cpu --chip=sm_80 %s > /dev/null 2>&1; echo "exit=$?") | FileCheck %s --check-prefix=EXIT2
// RUN: not sigreg-run --target=cpu --fast-normals=false %s 2>&1 | FileCheck %s --check-prefix=NORMALS
// NORMALS: sigreg-run: error: --fast-normals applies to --target=cuda only, not to the CPU target
// RUN: not sigreg-run --target=cpu --single-launch-warps=16 --promote-accumulators=4 --single-launch-fast-normals %s 2>&1 | FileCheck %s --check-prefix=KNOBS
// KNOBS: sigreg-run: error: --single-launch-warps, --promote-accumulators, --single-launch-fast-normals apply to --target=cuda only, not to the CPU target
// RUN: not sigreg-run --target=cuda --compile-only --single-launch-warps=12 %s 2>&1 | FileCheck %s --check-prefix=WARPS
// WARPS: single-launch-warps must be 0, 4, 8 or 16, got 12
// RUN: not sigreg-run --target=cuda --compile-only --promote-accumulators=-2 %s 2>&1 | FileCheck %s --check-prefix=PROMOTE
// PROMOTE: promote-accumulators must be -1 (by rule), 0 (never) or a number of k-tiles, got -2

// Benchmark knobs without --bench; --warmup on the CPU (no warm-up runs).
// RUN: not sigreg-run --target=cpu --iters=5 %s 2>&1 | FileCheck %s --check-prefix=ITERS
// ITERS: sigreg-run: error: --iters and --warmup apply to --bench only
// RUN: not sigreg-run --target=cpu --bench --warmup=3 %s 2>&1 | FileCheck %s --check-prefix=WARMUP
// WARMUP: sigreg-run: error: --warmup applies to --target=cuda only, not to the CPU target
// RUN: sigreg-run --target=cpu --bench --iters=2 %s | FileCheck %s --check-prefix=BENCH
// BENCH: time_ms {{.*}} (median of 2, CPU wall clock)

// Empty values.
// RUN: not sigreg-run --target=cpu --dtype= %s 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: sigreg-run: error: --dtype= needs a value
// RUN: not sigreg-run --target=cpu --shape= %s 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: sigreg-run: error: --shape= needs a value
// RUN: (sigreg-run --target=cpu --dtype= %s > /dev/null 2>&1; echo "exit=$?") | FileCheck %s --check-prefix=EXIT2

// --compile-only runs nothing: --json and --bench would be ignored.
// RUN: not sigreg-run --target=cuda --compile-only --json=%t.json %s 2>&1 | FileCheck %s --check-prefix=NOTHING
// RUN: not sigreg-run --target=cuda --compile-only --bench %s 2>&1 | FileCheck %s --check-prefix=NOTHING
// NOTHING: sigreg-run: error: --bench and --json need a run; --compile-only runs nothing

// An unwritable --json path is reported before the run (nothing on stdout).
// RUN: not sigreg-run --target=cpu --json=%t.missing-dir/out.json %s 2>&1 | FileCheck %s --check-prefix=JSON
// JSON: sigreg-run: error: --json='{{.*}}missing-dir/out.json': directory '{{.*}}missing-dir' does not exist or is not writable
// RUN: not sigreg-run --target=cpu --json=%t.missing-dir/out.json %s 2>/dev/null | count 0
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: not sigreg-run --target=cpu --json=%t.d %s 2>&1 | FileCheck %s --check-prefix=JSONDIR
// JSONDIR: sigreg-run: error: --json='{{.*}}.d' is not a file path
// A writable path works and is written.
// RUN: sigreg-run --target=cpu --json=%t.d/r.json %s > /dev/null
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t.d/r.json
// REPORT: "passed": true

// --emit-artifact below a regular file cannot be created: rejected before
// compiling.
// RUN: touch %t.file
// RUN: not sigreg-run --target=cuda --compile-only --emit-artifact=%t.file/art %s 2>&1 | FileCheck %s --check-prefix=ART
// ART: sigreg-run: error: --emit-artifact='{{.*}}.file/art': '{{.*}}.file' is not a writable directory
// RUN: not sigreg-run --target=cuda --compile-only --emit-artifact=%t.file/art %s 2>/dev/null | count 0

// EXIT2: exit=2

func.func @loss(%x: tensor<2x5x16xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 4 : tensor<2x5x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}
