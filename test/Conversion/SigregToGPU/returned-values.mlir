// RUN: sigreg-opt %s --split-input-file --convert-sigreg-to-gpu=single-launch=0 --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s

// How results reach their out-parameters after --sigreg-gpu-bufferize
// (one-shot bufferization, then buffer-results-to-out-params hoisting the
// result allocations of --convert-sigreg-to-gpu): the last kernel writes a
// returned result in place, also when another kernel reads it too; a value
// returned again, or a returned input, is copied.

// The means are returned and read by the epilogue: the ECF kernel writes the
// cos out-parameter, the epilogue reads it there (no workspace, no copy).
// CHECK-LABEL: func.func @returned_and_read(
// CHECK-SAME:      %[[X:[^:]*]]: memref<1x64x16xf32>, %[[A:[^:]*]]: memref<16x8xf32>, %[[COS:[^:]*]]: memref<1x8x17xf32>, %[[OUT:[^:]*]]: memref<f32>) {
// CHECK:         %[[SIN:.*]] = memref.alloc() : memref<1x8x17xf32>
// CHECK-NEXT:    gpu.launch_func @sigreg_kernels::@sigreg_fused_ecf {{.*}} args(%[[X]] : {{.*}}, %[[A]] : {{.*}}, %[[COS]] : {{.*}}, %[[SIN]] : {{.*}})
// CHECK-NEXT:    gpu.launch_func @sigreg_kernels::@sigreg_epilogue {{.*}} args(%[[COS]] : {{.*}}, %[[SIN]] : {{.*}}, %[[OUT]] : memref<f32>)
// CHECK-NEXT:    return
func.func @returned_and_read(%x: tensor<1x64x16xf32>, %a: tensor<16x8xf32>) -> (tensor<1x8x17xf32>, tensor<f32>) {
  %n = arith.constant 64 : index
  %c, %s = sigreg.fused_ecf %x, %a : tensor<1x64x16xf32>, tensor<16x8xf32> -> tensor<1x8x17xf32>
  %r = sigreg.fused_epilogue %c, %s, %n : tensor<1x8x17xf32> -> tensor<f32>
  return %c, %r : tensor<1x8x17xf32>, tensor<f32>
}

// -----

// A loss returned twice: written into the first out-parameter, copied to
// the second.
// CHECK-LABEL: func.func @returned_twice(
// CHECK-SAME:      %[[OUT0:[^:]*]]: memref<f32>, %[[OUT1:[^:]*]]: memref<f32>) {
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_epilogue {{.*}}, %[[OUT0]] : memref<f32>)
// CHECK-NEXT:    memref.copy %[[OUT0]], %[[OUT1]] : memref<f32> to memref<f32>
// CHECK-NEXT:    return
func.func @returned_twice(%x: tensor<1x64x16xf32>, %a: tensor<16x8xf32>) -> (tensor<f32>, tensor<f32>) {
  %n = arith.constant 64 : index
  %c, %s = sigreg.fused_ecf %x, %a : tensor<1x64x16xf32>, tensor<16x8xf32> -> tensor<1x8x17xf32>
  %r = sigreg.fused_epilogue %c, %s, %n : tensor<1x8x17xf32> -> tensor<f32>
  return %r, %r : tensor<f32>, tensor<f32>
}

// -----

// A returned input is copied to its out-parameter.
// CHECK-LABEL: func.func @input_returned(
// CHECK-SAME:      %[[A:[^:]*]]: memref<16x8xf32>, %[[COS:[^:]*]]: memref<1x8x17xf32>, %[[OUTA:[^:]*]]: memref<16x8xf32>) {
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_fused_ecf {{.*}}, %[[COS]] : memref<1x8x17xf32>, %{{.*}} : memref<1x8x17xf32>)
// CHECK-NEXT:    memref.copy %[[A]], %[[OUTA]] : memref<16x8xf32> to memref<16x8xf32>
// CHECK-NEXT:    return
func.func @input_returned(%x: tensor<1x64x16xf32>, %a: tensor<16x8xf32>) -> (tensor<1x8x17xf32>, tensor<16x8xf32>) {
  %c, %s = sigreg.fused_ecf %x, %a : tensor<1x64x16xf32>, tensor<16x8xf32> -> tensor<1x8x17xf32>
  return %c, %a : tensor<1x8x17xf32>, tensor<16x8xf32>
}

// -----

// A per-slice result returned through a collapse: the epilogue writes the
// [S] out-parameter through its [1, S] expansion.
// CHECK-LABEL: func.func @collapsed(
// CHECK-SAME:      %[[OUT:[^:]*]]: memref<8xf32>) {
// CHECK:         %[[OUT2:.*]] = memref.expand_shape %[[OUT]] {{\[\[}}0, 1]] output_shape [1, 8] : memref<8xf32> into memref<1x8xf32>
// CHECK-NEXT:    gpu.launch_func @sigreg_kernels::@sigreg_epilogue {{.*}}, %[[OUT2]] : memref<1x8xf32>)
// CHECK-NEXT:    return
func.func @collapsed(%x: tensor<1x64x16xf32>, %a: tensor<16x8xf32>) -> tensor<8xf32> {
  %n = arith.constant 64 : index
  %c, %s = sigreg.fused_ecf %x, %a : tensor<1x64x16xf32>, tensor<16x8xf32> -> tensor<1x8x17xf32>
  %r = sigreg.fused_epilogue %c, %s, %n reduction = none : tensor<1x8x17xf32> -> tensor<1x8xf32>
  %o = tensor.collapse_shape %r [[0, 1]] : tensor<1x8xf32> into tensor<8xf32>
  return %o : tensor<8xf32>
}
