// RUN: sigreg-opt %s --split-input-file --sigreg-distinct-results | FileCheck %s
// RUN: sigreg-opt %s --split-input-file --sigreg-cpu-pipeline | FileCheck %s --check-prefix=CPU
// RUN: sigreg-opt %s --split-input-file --sigreg-naive-gpu-pipeline | FileCheck %s --check-prefix=NAIVE

// A loss returned twice: the second result is a copy, so that bufferization
// gives it a buffer of its own (upstream buffer-results-to-out-params crashed
// on one allocation returned twice, in both naive pipelines).

// CHECK-LABEL: func.func @twice(
// CHECK:         %[[L:.*]] = sigreg.loss
// CHECK-NEXT:    %[[C:.*]] = bufferization.alloc_tensor() copy(%[[L]]) : tensor<f32>
// CHECK-NEXT:    return %[[L]], %[[C]] : tensor<f32>, tensor<f32>
// CPU-LABEL:   llvm.func @twice(
// NAIVE-LABEL: func.func @twice(
// NAIVE-SAME:    %{{.*}}: memref<f32>, %{{.*}}: memref<f32>)
// NAIVE:         memref.copy
func.func @twice(%x: tensor<37x129xbf16>, %seed: i64) -> (tensor<f32>, tensor<f32>) {
  %l = sigreg.loss %x seed(%seed) slices = 77 points = 9 : tensor<37x129xbf16> -> tensor<f32>
  return %l, %l : tensor<f32>, tensor<f32>
}

// -----

// Three times, between distinct results, and an argument returned twice: one
// copy per repeat; distinct results are left alone.

// CHECK-LABEL: func.func @repeats(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<20x16xf32>
// CHECK:         %[[S:.*]] = sigreg.loss %[[X]]
// CHECK-NEXT:    %[[C1:.*]] = bufferization.alloc_tensor() copy(%[[S]]) : tensor<8xf32>
// CHECK-NEXT:    %[[C2:.*]] = bufferization.alloc_tensor() copy(%[[X]]) : tensor<20x16xf32>
// CHECK-NEXT:    %[[C3:.*]] = bufferization.alloc_tensor() copy(%[[S]]) : tensor<8xf32>
// CHECK-NEXT:    return %[[S]], %[[X]], %[[C1]], %[[C2]], %[[C3]]
// CPU-LABEL:   llvm.func @repeats(
// NAIVE-LABEL: func.func @repeats(
func.func @repeats(%x: tensor<20x16xf32>, %seed: i64) -> (tensor<8xf32>, tensor<20x16xf32>, tensor<8xf32>, tensor<20x16xf32>, tensor<8xf32>) {
  %s = sigreg.loss %x seed(%seed) slices = 8 points = 5 reduction = none : tensor<20x16xf32> -> tensor<8xf32>
  return %s, %x, %s, %x, %s : tensor<8xf32>, tensor<20x16xf32>, tensor<8xf32>, tensor<20x16xf32>, tensor<8xf32>
}
