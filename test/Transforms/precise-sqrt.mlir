// RUN: sigreg-opt %s --split-input-file --pass-pipeline="builtin.module(gpu.module(sigreg-precise-sqrt))" | FileCheck %s

// libdevice's f32 square root (sqrt.approx.f32 under the default
// reflection) becomes llvm.intr.sqrt (sqrt.rn.f32), and its declaration goes
// with its last call; other libdevice functions and the f64 square root are
// left alone.

// CHECK-LABEL: gpu.module @kernels
// CHECK-NOT:     @__nv_sqrtf
// CHECK:         llvm.func @__nv_sinf(f32) -> f32
// CHECK:         llvm.func @__nv_sqrt(f64) -> f64
// CHECK-LABEL:   llvm.func @k(
// CHECK-SAME:      %[[A:.*]]: f32, %[[B:.*]]: f64)
// CHECK:           %[[R:.*]] = llvm.intr.sqrt(%[[A]]) : (f32) -> f32
// CHECK:           %[[S:.*]] = llvm.call @__nv_sinf(%[[R]]) : (f32) -> f32
// CHECK:           %[[T:.*]] = llvm.intr.sqrt(%[[S]]) : (f32) -> f32
// CHECK:           llvm.call @__nv_sqrt(%[[B]]) : (f64) -> f64
// CHECK-NOT:       llvm.call @__nv_sqrtf
gpu.module @kernels {
  llvm.func @__nv_sqrtf(f32) -> f32
  llvm.func @__nv_sinf(f32) -> f32
  llvm.func @__nv_sqrt(f64) -> f64
  llvm.func @k(%a: f32, %b: f64) -> f32 {
    %r = llvm.call @__nv_sqrtf(%a) : (f32) -> f32
    %s = llvm.call @__nv_sinf(%r) : (f32) -> f32
    %t = llvm.call @__nv_sqrtf(%s) : (f32) -> f32
    %u = llvm.call @__nv_sqrt(%b) : (f64) -> f64
    llvm.return %t : f32
  }
}

// -----

// A module without the call is unchanged.
// CHECK-LABEL: gpu.module @none
// CHECK:         llvm.func @__nv_cosf(f32) -> f32
// CHECK:         llvm.call @__nv_cosf
gpu.module @none {
  llvm.func @__nv_cosf(f32) -> f32
  llvm.func @k(%a: f32) -> f32 {
    %c = llvm.call @__nv_cosf(%a) : (f32) -> f32
    llvm.return %c : f32
  }
}
