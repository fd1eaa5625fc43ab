// Issue 11: a function returning a sigreg.projection result, alone or beside
// the loss, crashed --sigreg-gpu-pipeline (exit 139). It is now a diagnostic
// at the projection, exit 1; `not` fails the test on a crash.
// RUN: not sigreg-opt %s -split-input-file --sigreg-gpu-pipeline 2>&1 | FileCheck %s

// CHECK: gpu-pipeline-returned-values.mlir:[[@LINE+2]]:8: error: 'sigreg.projection' op result is used by 'func.return'
func.func @beside_loss(%x: tensor<1x64x16xf32>, %seed: i64) -> (tensor<f32>, tensor<16x8xf32>) {
  %a = sigreg.projection seed(%seed) : tensor<16x8xf32>
  %l = sigreg.loss %x projection(%a : tensor<16x8xf32>) slices = 8 : tensor<1x64x16xf32> -> tensor<f32>
  return %l, %a : tensor<f32>, tensor<16x8xf32>
}

// -----

// CHECK: gpu-pipeline-returned-values.mlir:[[@LINE+2]]:8: error: 'sigreg.projection' op result is used by 'func.return'
func.func @alone(%seed: i64) -> tensor<16x8xf32> {
  %a = sigreg.projection seed(%seed) : tensor<16x8xf32>
  return %a : tensor<16x8xf32>
}

// -----

// A loss returned twice crashed buffer-results-to-out-params (upstream: the
// hoisted allocation was named again for the second out-parameter). The
// second one is now a copy of the first.
// CHECK-LABEL: func.func @loss_twice(
// CHECK-SAME:      %[[OUT0:[^:]*]]: memref<f32>, %[[OUT1:[^:]*]]: memref<f32>) {
// CHECK:         gpu.launch_func {{.*}}, %[[OUT0]] : memref<f32>
// CHECK-NEXT:    memref.copy %[[OUT0]], %[[OUT1]] : memref<f32> to memref<f32>
// CHECK-NEXT:    return
func.func @loss_twice(%x: tensor<1x64x16xf32>, %seed: i64) -> (tensor<f32>, tensor<f32>) {
  %l = sigreg.loss %x seed(%seed) slices = 8 : tensor<1x64x16xf32> -> tensor<f32>
  return %l, %l : tensor<f32>, tensor<f32>
}
