// RUN: sigreg-opt %s --sigreg-gpu-pipeline="format=none" | FileCheck %s

// A training step: the loss and its gradient in one function. They decompose
// into the same forward ops, which the pipeline's CSE after
// --sigreg-decompose keeps once: one projection and one forward kernel,
// whose means feed both the loss's epilogue and the backward, and (on the
// Hopper kernel) whose stored slices the backward reads (--sigreg-save-slices)
// instead of a second GEMM. Alone, the loss would take the single launch and
// the gradient its own forward. Four launches in all.

func.func @step(%x: tensor<32x2048xbf16>, %seed: i64, %g: tensor<f32>) -> (tensor<f32>, tensor<32x2048xf32>) {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 reduction = mean : tensor<32x2048xbf16> -> tensor<f32>
  %dx = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<f32>) slices = 1024 points = 17 reduction = mean : tensor<32x2048xbf16> -> tensor<32x2048xf32>
  return %l, %dx : tensor<f32>, tensor<32x2048xf32>
}

// CHECK-LABEL: func.func @step(
// CHECK-SAME:    %{{.*}}: memref<32x2048xbf16>, %{{.*}}: i64, %{{.*}}: memref<f32>, %[[LOSS:.*]]: memref<f32>, %[[DX:.*]]: memref<32x2048xf32>)
// CHECK-NOT:     gpu.launch_func
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_projection_rows
// CHECK-NOT:     gpu.launch_func
// The forward kernel's tail runs the loss's epilogue (its last CTA) and
// writes the means, which the backward reads too: no epilogue launch.
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_fused_ecf_wgmma {{.*}}%[[MEANS:.*]] : memref<1x1024x17xf32>, %{{.*}} : memref<1x1024x17xf32>, %[[SLICES:.*]] : memref<32x1024xf32>, %{{.*}} : memref<1xi32>, %[[LOSS]] : memref<f32>, %{{.*}} : memref<1024xf32>)
// CHECK-NOT:     gpu.launch_func
// The backward's two kernels are programmatic dependents of the launch
// before each (griddepcontrol.wait before they read its results).
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_ecf_grad_slices {{.*}}(%[[SLICES]] : memref<32x1024xf32>, {{.*}}%[[MEANS]] : memref<1x1024x17xf32>{{.*}}sigreg.programmatic
// CHECK-NOT:     gpu.launch_func
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_project_transpose_wgmma {{.*}}%[[DX]] : memref<32x2048xf32>) {sigreg.programmatic
// CHECK-NOT:     gpu.launch_func
// CHECK:         return

