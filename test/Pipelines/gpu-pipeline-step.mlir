// RUN: sigreg-opt %s --sigreg-gpu-pipeline="format=none" | FileCheck %s

// A training step: the loss and its gradient in one function. They decompose
// into the same forward ops, which the pipeline's CSE after
// --sigreg-decompose keeps once: one forward whose means feed both the loss's
// epilogue and the backward.

// At N <= 256 (one batch tile) the single launch runs the whole forward and
// also writes what the backward GEMM reads: G = dL/dy / ||g_s|| and g rounded
// to bf16. Two launches in all; the GEMM is a programmatic dependent.
func.func @step(%x: tensor<32x2048xbf16>, %seed: i64, %g: tensor<f32>) -> (tensor<f32>, tensor<32x2048xf32>) {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 reduction = mean : tensor<32x2048xbf16> -> tensor<f32>
  %dx = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<f32>) slices = 1024 points = 17 reduction = mean : tensor<32x2048xbf16> -> tensor<32x2048xf32>
  return %l, %dx : tensor<f32>, tensor<32x2048xf32>
}

// CHECK-LABEL: func.func @step(
// CHECK-SAME:    %[[X:.*]]: memref<32x2048xbf16>, %[[SEED:.*]]: i64, %[[GRAD:.*]]: memref<f32>, %[[LOSS:.*]]: memref<f32>, %[[DX:.*]]: memref<32x2048xf32>)
// CHECK-NOT:     gpu.launch_func
// CHECK:         %[[G:.*]] = memref.alloc() : memref<32x1024xbf16>
// CHECK:         %[[W:.*]] = memref.alloc() : memref<2048x1024xbf16>
// CHECK-NOT:     gpu.launch_func
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_single_launch blocks in (%c128, %c1, %c1) {{.*}}args(%[[SEED]] : i64, %{{.*}} : memref<1x32x2048xbf16>, %[[LOSS]] : memref<f32>, %{{.*}} : memref<1xi32>, %{{.*}} : memref<1xi64>, %{{.*}} : memref<1x1024x17xf32>, %{{.*}} : memref<1x1024x17xf32>, %[[GRAD]] : memref<f32>, %[[G]] : memref<32x1024xbf16>, %[[W]] : memref<2048x1024xbf16>)
// CHECK-NOT:     gpu.launch_func
// CHECK:         memref.cast %[[G]]
// CHECK:         memref.cast %[[W]]
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_project_transpose_wgmma {{.*}}%[[DX]] : memref<32x2048xf32>) {sigreg.programmatic
// CHECK-NOT:     gpu.launch_func
// CHECK:         return

// Larger batches take the Hopper kernel, whose stored slices (y's 16-bit
// phase) the backward reads (--sigreg-save-slices) instead of a second GEMM
// and overwrites with dL/dy; its tail runs the loss's epilogue and writes the
// means. Four launches in all.
func.func @step_hopper(%x: tensor<300x2048xbf16>, %seed: i64, %g: tensor<f32>) -> (tensor<f32>, tensor<300x2048xf32>) {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 reduction = mean : tensor<300x2048xbf16> -> tensor<f32>
  %dx = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<f32>) slices = 1024 points = 17 reduction = mean : tensor<300x2048xbf16> -> tensor<300x2048xf32>
  return %l, %dx : tensor<f32>, tensor<300x2048xf32>
}

// CHECK-LABEL: func.func @step_hopper(
// CHECK-SAME:    %{{.*}}: memref<300x2048xbf16>, %{{.*}}: i64, %{{.*}}: memref<f32>, %[[LOSS:.*]]: memref<f32>, %[[DX:.*]]: memref<300x2048xf32>)
// CHECK-NOT:     gpu.launch_func
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_projection_rows
// CHECK-NOT:     gpu.launch_func
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_fused_ecf_wgmma {{.*}}%[[SLICES:.*]] : memref<300x1024xi16>, %[[MEANS:.*]] : memref<1x1024x17xf32>, %{{.*}} : memref<1x1024x17xf32>, {{.*}}%[[LOSS]] : memref<f32>
// CHECK-NOT:     gpu.launch_func
// The backward's two kernels are programmatic dependents of the launch
// before each (griddepcontrol.wait before they read its results).
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_ecf_grad_slices {{.*}}(%[[SLICES]] : memref<300x1024xi16>, {{.*}}%[[MEANS]] : memref<1x1024x17xf32>{{.*}}sigreg.programmatic
// CHECK-NOT:     gpu.launch_func
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_project_transpose_wgmma{{.*}}%[[DX]] : memref<300x2048xf32>) {sigreg.programmatic
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
