// RUN: sigreg-opt %s --split-input-file --sigreg-lower-naive -verify-diagnostics
// RUN: not sigreg-opt %s --split-input-file --sigreg-lower-naive 2>&1 | FileCheck %s
// RUN: not sigreg-opt %s --split-input-file --sigreg-lower-naive --mlir-print-ir-after-failure 2>&1 | FileCheck %s --check-prefix=UNTOUCHED

// Inputs --sigreg-lower-naive refuses. The pass fails (non-zero exit) with a
// diagnostic on the offending op and leaves the IR untouched.

// CHECK: error: 'sigreg.loss' op must be decomposed first (run --sigreg-decompose)
func.func @loss_not_decomposed(%x: tensor<4x16xf32>, %seed: i64) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op must be decomposed first (run --sigreg-decompose)}}
  %l = sigreg.loss %x seed(%seed) slices = 8 : tensor<4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// CHECK: error: 'sigreg.all_reduce_mean' op world_size = 2 needs a communicator; the single-process pipelines support world_size = 1 only
func.func @all_reduce_two_ranks(%y: tensor<1x4x8xf32>, %n: index) -> tensor<1x8xf32> {
  %c:2 = sigreg.ecf %y : tensor<1x4x8xf32> -> tensor<1x8x5xf32>
  // expected-error @+1 {{'sigreg.all_reduce_mean' op world_size = 2 needs a communicator; the single-process pipelines support world_size = 1 only}}
  %r:3 = sigreg.all_reduce_mean %c#0, %c#1, %n world_size = 2 : tensor<1x8x5xf32>
  %t = sigreg.epps_pulley %r#0, %r#1, %r#2 : tensor<1x8x5xf32> -> tensor<1x8xf32>
  return %t : tensor<1x8xf32>
}

// -----

// The check runs before any rewrite: the ecf before the bad all-reduce is not
// lowered either (the IR dumped after the failure is the input).
// UNTOUCHED:     IR Dump After SigregLowerNaive Failed
// UNTOUCHED-NOT: linalg.
// UNTOUCHED:     func.func @fails_before_rewriting
// UNTOUCHED-NEXT:  sigreg.ecf
// UNTOUCHED-NEXT:  sigreg.all_reduce_mean {{.*}} world_size = 16
// UNTOUCHED-NOT: linalg.
// CHECK: error: 'sigreg.all_reduce_mean' op world_size = 16 needs a communicator
func.func @fails_before_rewriting(%y: tensor<1x4x8xf32>, %n: index) -> tensor<1x8x5xf32> {
  %c:2 = sigreg.ecf %y : tensor<1x4x8xf32> -> tensor<1x8x5xf32>
  // expected-error @+1 {{world_size = 16 needs a communicator}}
  %r:3 = sigreg.all_reduce_mean %c#0, %c#1, %n world_size = 16 : tensor<1x8x5xf32>
  return %r#0 : tensor<1x8x5xf32>
}
