// Command-line and entry errors of sigreg-run: a clear message on stderr,
// exit code 2, nothing run. (Exit codes: 0 pass, 1 validation failed,
// 2 bad input or compile error, 3 requested target unavailable.)
// `not` fails the test if sigreg-run crashes; the `echo "exit=$?"` lines pin
// the exact code (a crash would print 134/139).

// Missing input file.
// RUN: not sigreg-run --target=cpu %t.does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: sigreg-run: error: cannot open input file '{{.*}}does-not-exist.mlir': No such file or directory
// RUN: (sigreg-run --target=cpu %t.does-not-exist.mlir > /dev/null 2>&1; echo "exit=$?") | FileCheck %s --check-prefix=EXIT2

// EXIT2: exit=2

// Several functions hold a sigreg.loss and no --entry is given.
// RUN: not sigreg-run --target=cpu %s 2>&1 | FileCheck %s --check-prefix=SEVERAL
// SEVERAL: error: several functions hold a sigreg.loss or sigreg.loss_grad ('static_views', 'dynamic'...): choose one with --entry
// RUN: (sigreg-run --target=cpu %s > /dev/null 2>&1; echo "exit=$?") | FileCheck %s --check-prefix=EXIT2

// --entry naming nothing.
// RUN: not sigreg-run --target=cpu --entry=nope %s 2>&1 | FileCheck %s --check-prefix=NOENTRY
// NOENTRY: error: no function named 'nope'
// RUN: (sigreg-run --target=cpu --entry=nope %s > /dev/null 2>&1; echo "exit=$?") | FileCheck %s --check-prefix=EXIT2

// Dynamic N without --shape.
// RUN: not sigreg-run --target=cpu --entry=dynamic %s 2>&1 | FileCheck %s --check-prefix=NOSHAPE
// NOSHAPE: errors.mlir:[[@LINE+52]]:1: error: the batch dimension is dynamic: give --shape
// RUN: (sigreg-run --target=cpu --entry=dynamic %s > /dev/null 2>&1; echo "exit=$?") | FileCheck %s --check-prefix=EXIT2

// --shape of the wrong rank (NxD expected for a rank-2 entry, VxNxD for rank 3).
// RUN: not sigreg-run --target=cpu --entry=dynamic --shape=2x7x16 %s 2>&1 | FileCheck %s --check-prefix=RANK2
// RANK2: error: --shape='2x7x16' must be NxD with positive sizes for this entry
// RUN: not sigreg-run --target=cpu --entry=static_views --shape=7x16 %s 2>&1 | FileCheck %s --check-prefix=RANK3
// RANK3: error: --shape='7x16' must be VxNxD with positive sizes for this entry
// Malformed or non-positive sizes.
// RUN: not sigreg-run --target=cpu --entry=dynamic --shape=sevenx16 %s 2>&1 | FileCheck %s --check-prefix=TEXT
// TEXT: error: --shape='sevenx16' must be NxD with positive sizes for this entry
// RUN: not sigreg-run --target=cpu --entry=dynamic --shape=0x16 %s 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: error: --shape='0x16' must be NxD with positive sizes for this entry
// RUN: (sigreg-run --target=cpu --entry=dynamic --shape=0x16 %s > /dev/null 2>&1; echo "exit=$?") | FileCheck %s --check-prefix=EXIT2

// --shape disagreeing with static dimensions: D, V, and a static N.
// RUN: not sigreg-run --target=cpu --entry=dynamic --shape=7x15 %s 2>&1 | FileCheck %s --check-prefix=BADD
// BADD: error: --shape='7x15' disagrees with the static dimensions of the input (V=1, D=16)
// RUN: not sigreg-run --target=cpu --entry=static_views --shape=3x5x16 %s 2>&1 | FileCheck %s --check-prefix=BADV
// BADV: error: --shape='3x5x16' disagrees with the static dimensions of the input (V=2, D=16)
// RUN: not sigreg-run --target=cpu --entry=static_views --shape=2x6x16 %s 2>&1 | FileCheck %s --check-prefix=BADN
// BADN: error: --shape batch size 6 disagrees with the static batch dimension 5 of 'tensor<2x5x16xf32>'
// RUN: (sigreg-run --target=cpu --entry=static_views --shape=2x6x16 %s > /dev/null 2>&1; echo "exit=$?") | FileCheck %s --check-prefix=EXIT2
// A --shape that agrees with a static shape is accepted.
// RUN: sigreg-run --target=cpu --entry=static_views --shape=2x5x16 %s | FileCheck %s --check-prefix=AGREE
// AGREE: PASS

// Unsupported --dtype.
// RUN: not sigreg-run --target=cpu --entry=static_views --dtype=f64 %s 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: error: unsupported dtype 'f64' (expected bf16, f16 or f32)
// RUN: not sigreg-run --target=cpu --entry=static_views --dtype=i32 %s 2>&1 | FileCheck %s --check-prefix=DTYPE-I32
// DTYPE-I32: error: unsupported dtype 'i32' (expected bf16, f16 or f32)
// RUN: (sigreg-run --target=cpu --entry=static_views --dtype=f64 %s > /dev/null 2>&1; echo "exit=$?") | FileCheck %s --check-prefix=EXIT2

// --iters and --warmup ranges.
// RUN: not sigreg-run --target=cpu --entry=static_views --iters=0 %s 2>&1 | FileCheck %s --check-prefix=ITERS
// RUN: not sigreg-run --target=cpu --entry=static_views --warmup=-1 %s 2>&1 | FileCheck %s --check-prefix=ITERS
// ITERS: sigreg-run: error: --iters must be >= 1 and --warmup >= 0
// RUN: (sigreg-run --target=cpu --entry=static_views --iters=0 %s > /dev/null 2>&1; echo "exit=$?") | FileCheck %s --check-prefix=EXIT2

// Nothing is printed on stdout for a rejected input (no header, no PASS).
// RUN: not sigreg-run --target=cpu --entry=dynamic %s 2>/dev/null | count 0

// An unknown --target value is a command-line error (LLVM's cl parser).
// RUN: not sigreg-run --target=tpu %s 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: for the --target option: Cannot find option named 'tpu'!

func.func @static_views(%x: tensor<2x5x16xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 4 : tensor<2x5x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

func.func @dynamic(%x: tensor<?x16xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 4 : tensor<?x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}
