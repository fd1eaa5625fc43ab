// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --cse --sigreg-fuse-ecf-backward --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --sigreg-choose-schedule=hopper=true --sigreg-save-slices --convert-sigreg-to-gpu="hopper=true defer-cotangent=true" --canonicalize --cse --verify-diagnostics | FileCheck %s

// --convert-sigreg-to-gpu=defer-cotangent=true: a training step's loss
// cotangent (a scalar) scales the backward GEMM's output and enters nothing
// else; the kernels before it form the ECF cotangent with 1. The GEMM's
// launch carries sigreg.phase = "backward" (the artifact's backward phase,
// docs/AOT.md) and is not a programmatic dependent of the launch before it.

// The step at blog, dL/dx rounded to bf16 (--sigreg-fuse-ecf-backward
// folded the arith.truncf): the single launch takes no cotangent (compare
// single-launch-step.mlir: the loss's cotangent before G); the GEMM takes it
// after dL/dx, which it writes in bf16.
// CHECK-LABEL: func.func @blog(
// CHECK-SAME:    %{{.*}}: tensor<32x2048xbf16>, %[[SEED:.*]]: i64, %[[GRAD:.*]]: tensor<f32>) -> (tensor<f32>, tensor<32x2048xbf16>)
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_single_launch {{.*}}args(%[[SEED]] : i64, %{{.*}} : memref<1x32x2048xbf16>, %{{.*}} : memref<f32>, %{{.*}} : memref<1xi32>, %{{.*}} : memref<1xi64>, %{{.*}} : memref<1x1024x17xf32>, %{{.*}} : memref<1x1024x17xf32>, %{{.*}} : memref<32x1024xbf16>, %{{.*}} : memref<2048x1024xbf16>) {sigreg.region = "single_launch"}
// CHECK:         %[[SCALE:.*]] = bufferization.to_buffer %[[GRAD]] read_only : tensor<f32> to memref<f32>
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_project_transpose_wgmma {{.*}}args(%{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %{{.*}} : memref<32x2048xbf16>, %[[SCALE]] : memref<f32>) {sigreg.phase = "backward", sigreg.region = "backward_gemm"}
// CHECK-NOT:     sigreg.programmatic
// CHECK:         return
// The single launch's slice cotangents use 1: no load of a cotangent.
// CHECK:       gpu.func @sigreg_single_launch(
// CHECK-NOT:     gpu.func
// CHECK:         memref.atomic_rmw addi
// CHECK-NOT:     memref.load %{{.*}}[] : memref<f32>
// CHECK:         gpu.return
// The GEMM's epilogue: the cotangent loaded once, each element scaled and
// rounded to bf16.
// CHECK:       gpu.func @sigreg_project_transpose_wgmma(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %[[DX:.*]]: memref<32x2048xbf16>, %[[S:.*]]: memref<f32>)
// CHECK:         %[[C:.*]] = memref.load %[[S]][] : memref<f32>
// CHECK:         scf.for
// CHECK:           %[[V:.*]] = arith.mulf %{{.*}}, %[[C]] : f32
// CHECK:           %[[H:.*]] = arith.truncf %[[V]] : f32 to bf16
// CHECK:           memref.store %[[H]], %[[DX]][%{{.*}}, %{{.*}}] : memref<32x2048xbf16>
func.func @blog(%x: tensor<32x2048xbf16>, %seed: i64, %g: tensor<f32>) -> (tensor<f32>, tensor<32x2048xbf16>) {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 : tensor<32x2048xbf16> -> tensor<f32>
  %dx = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<f32>) slices = 1024 points = 17 : tensor<32x2048xbf16> -> tensor<32x2048xf32>
  %h = arith.truncf %dx : tensor<32x2048xf32> to tensor<32x2048xbf16>
  return %l, %h : tensor<f32>, tensor<32x2048xbf16>
}

// -----

// A batch over one tile (N = 300): the forward saves y's 16-bit phase,
// sigreg_ecf_grad_slices forms G with the cotangent folded in, as 1 (no
// cotangent argument), over the phases (one allocation viewed as i16, then
// as bf16 for the GEMM); the GEMM scales its f32 dL/dx.
// CHECK-LABEL: func.func @slices(
// CHECK-SAME:    %{{.*}}: tensor<300x1024xbf16>, %{{.*}}: i64, %[[GRAD:.*]]: tensor<f32>)
// CHECK:         %[[BYTES:.*]] = memref.alloc() : memref<614400xi8>
// CHECK:         %[[PHASE:.*]] = memref.view %[[BYTES]][%{{.*}}][] : memref<614400xi8> to memref<300x1024xi16>
// CHECK:         %[[G:.*]] = memref.view %[[BYTES]][%{{.*}}][] : memref<614400xi8> to memref<300x1024xbf16>
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_ecf_grad_slices {{.*}}args(%[[PHASE]] : memref<300x1024xi16>, %{{.*}} : memref<64x1024xf32>, %{{.*}} : memref<1x1024x17xf32>, %{{.*}} : memref<1x1024x17xf32>)
// CHECK:         memref.cast %[[G]] : memref<300x1024xbf16> to memref<*xbf16>
// CHECK:         %[[SCALE:.*]] = bufferization.to_buffer %[[GRAD]] read_only : tensor<f32> to memref<f32>
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_project_transpose_wgmma {{.*}}args(%{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %{{.*}} : memref<300x1024xf32>, %[[SCALE]] : memref<f32>) {sigreg.phase = "backward", sigreg.region = "backward_gemm"}
// CHECK:       gpu.func @sigreg_ecf_grad_slices(%{{.*}}: memref<300x1024xi16>, %{{.*}}: memref<64x1024xf32>, %{{.*}}: memref<1x1024x17xf32>, %{{.*}}: memref<1x1024x17xf32>)
// CHECK-NOT:     memref.load %{{.*}}[] : memref<f32>
// The decoded angle is in [-pi, pi]: its sincos needs no range reduction.
// CHECK:         arith.sitofp %{{.*}} : i16 to f32
// CHECK-NOT:     math.roundeven
// CHECK:         llvm.call_intrinsic "llvm.nvvm.sin.approx.f"
// CHECK-NOT:     math.roundeven
// CHECK:         arith.bitcast %{{.*}} : bf16 to i16
// CHECK:         gpu.return
func.func @slices(%x: tensor<300x1024xbf16>, %seed: i64, %g: tensor<f32>) -> (tensor<f32>, tensor<300x1024xf32>) {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 reduction = sum : tensor<300x1024xbf16> -> tensor<f32>
  %dx = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<f32>) slices = 1024 points = 17 reduction = sum : tensor<300x1024xbf16> -> tensor<300x1024xf32>
  return %l, %dx : tensor<f32>, tensor<300x1024xf32>
}

// -----

// Per-slice statistics: a cotangent per slice cannot wait for the GEMM.
func.func @per_slice(%x: tensor<32x2048xbf16>, %seed: i64, %g: tensor<1024xf32>) -> (tensor<1024xf32>, tensor<32x2048xf32>) {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 reduction = none : tensor<32x2048xbf16> -> tensor<1024xf32>
  // expected-error @+1 {{'sigreg.ecf_cotangent' op defer-cotangent needs a scalar loss (reduction = mean or sum): a per-slice cotangent cannot scale dL/dx after the GEMM}}
  %dx = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<1024xf32>) slices = 1024 points = 17 reduction = none : tensor<32x2048xbf16> -> tensor<32x2048xf32>
  return %l, %dx : tensor<1024xf32>, tensor<32x2048xf32>
}
