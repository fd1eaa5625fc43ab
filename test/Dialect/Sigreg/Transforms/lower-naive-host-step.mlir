// RUN: sigreg-opt %s --sigreg-lower-naive=host-step=false -verify-diagnostics
// RUN: not sigreg-opt %s --sigreg-naive-gpu-pipeline="format=none" 2>&1 | FileCheck %s

// --sigreg-lower-naive=host-step=false (the naive GPU pipeline's setting): a
// step counter lives in device memory, which the host code of that pipeline
// cannot read, so sigreg.advance_step is an error at the op (with the
// default, host-step=true, it is a load and a store: lower-naive.mlir).

// CHECK: error: 'sigreg.advance_step' op keeps its step counter in device memory, which the naive GPU pipeline's host code cannot read: compile it with --sigreg-gpu-pipeline
func.func @step(%x: tensor<1x8x16xf32>, %step: memref<i64>) -> tensor<16x4xf32> {
  // expected-error @+1 {{'sigreg.advance_step' op keeps its step counter in device memory, which the naive GPU pipeline's host code cannot read: compile it with --sigreg-gpu-pipeline}}
  %seed = sigreg.advance_step %step : memref<i64>
  %a = sigreg.projection seed(%seed) : tensor<16x4xf32>
  return %a : tensor<16x4xf32>
}
