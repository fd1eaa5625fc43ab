// RUN: sigreg-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// The backward ops parse, verify and print back (the first split); every
// other split is a verifier error.

// CHECK-LABEL: func.func @roundtrip
// CHECK: sigreg.loss_grad %{{.*}} seed(%{{.*}}) grad(%{{.*}} : tensor<f32>) slices = 8 : tensor<?x16xbf16> -> tensor<?x16xf32>
// CHECK: sigreg.loss_grad %{{.*}} projection(%{{.*}} : tensor<16x8xf32>) grad(%{{.*}} : tensor<2x8xf32>) slices = 8 points = 5 clip = zero_below(5.000000e-01) reduction = none : tensor<2x4x16xf32> -> tensor<2x4x16xf32>
// CHECK: sigreg.ecf_cotangent %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} clip = clamp_min(1.000000e+00) reduction = sum : tensor<2x8x5xf32>, tensor<f32>
// CHECK: sigreg.ecf_grad %{{.*}}, %{{.*}}, %{{.*}} t_max = 2.000000e+00 : tensor<2x?x8xf32>, tensor<2x8x5xf32>
// CHECK: sigreg.project_transpose %{{.*}}, %{{.*}} : tensor<2x?x8xf32>, tensor<16x8xbf16> -> tensor<2x?x16xf32>
func.func @roundtrip(%x: tensor<?x16xbf16>, %seed: i64, %g: tensor<f32>,
                     %x3: tensor<2x4x16xf32>, %a: tensor<16x8xf32>, %gs: tensor<2x8xf32>,
                     %c: tensor<2x8x5xf32>, %s: tensor<2x8x5xf32>, %n: index,
                     %y: tensor<2x?x8xf32>, %ab: tensor<16x8xbf16>) {
  %0 = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<f32>) slices = 8 : tensor<?x16xbf16> -> tensor<?x16xf32>
  %1 = sigreg.loss_grad %x3 projection(%a : tensor<16x8xf32>) grad(%gs : tensor<2x8xf32>) slices = 8 points = 5 clip = zero_below(0.5) reduction = none : tensor<2x4x16xf32> -> tensor<2x4x16xf32>
  %dc, %ds = sigreg.ecf_cotangent %c, %s, %n, %g clip = clamp_min(1.0) reduction = sum : tensor<2x8x5xf32>, tensor<f32>
  %2 = sigreg.ecf_grad %y, %dc, %ds t_max = 2.0 : tensor<2x?x8xf32>, tensor<2x8x5xf32>
  %3 = sigreg.project_transpose %2, %ab : tensor<2x?x8xf32>, tensor<16x8xbf16> -> tensor<2x?x16xf32>
  return
}

// -----

func.func @grad_shape(%x: tensor<4x16xf32>, %seed: i64, %g: tensor<f32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'sigreg.loss_grad' op expects a result of the input's shape [4, 16], got [4, 8]}}
  %0 = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<f32>) slices = 8 : tensor<4x16xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @grad_cotangent_none(%x: tensor<3x4x16xf32>, %seed: i64, %g: tensor<8xf32>) -> tensor<3x4x16xf32> {
  // expected-error @+1 {{'sigreg.loss_grad' op reduction 'none' expects a grad of shape [3, 8] ([V, S]), got 'tensor<8xf32>'}}
  %0 = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<8xf32>) slices = 8 reduction = none : tensor<3x4x16xf32> -> tensor<3x4x16xf32>
  return %0 : tensor<3x4x16xf32>
}

// -----

func.func @grad_cotangent_mean(%x: tensor<4x16xf32>, %seed: i64, %g: tensor<8xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'sigreg.loss_grad' op reduction 'mean' expects a 0-d grad tensor<f32>, got 'tensor<8xf32>'}}
  %0 = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<8xf32>) slices = 8 : tensor<4x16xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @grad_both(%x: tensor<4x16xf32>, %seed: i64, %a: tensor<16x8xf32>, %g: tensor<f32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'sigreg.loss_grad' op expects exactly one of 'seed' or 'projection'}}
  %0 = sigreg.loss_grad %x seed(%seed) projection(%a : tensor<16x8xf32>) grad(%g : tensor<f32>) slices = 8 : tensor<4x16xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @cotangent_none(%c: tensor<2x8x5xf32>, %n: index, %g: tensor<f32>) {
  // expected-error @+1 {{'sigreg.ecf_cotangent' op reduction 'none' expects grad of shape [V, S] = [2, 8], got 'tensor<f32>'}}
  %dc, %ds = sigreg.ecf_cotangent %c, %c, %n, %g reduction = none : tensor<2x8x5xf32>, tensor<f32>
  return
}

// -----

func.func @ecf_grad_slices(%y: tensor<2x4x8xf32>, %c: tensor<2x7x5xf32>) {
  // expected-error @+1 {{'sigreg.ecf_grad' op expects ECF cotangents of shape [V, S, P] with [V, S] = [2, 8], got [2, 7, 5]}}
  %0 = sigreg.ecf_grad %y, %c, %c : tensor<2x4x8xf32>, tensor<2x7x5xf32>
  return
}

// -----

func.func @project_transpose_slices(%dy: tensor<2x4x8xf32>, %a: tensor<16x9xf32>) {
  // expected-error @+1 {{'sigreg.project_transpose' op slice dimension mismatch: cotangent has S = 8 but projection has S = 9}}
  %0 = sigreg.project_transpose %dy, %a : tensor<2x4x8xf32>, tensor<16x9xf32> -> tensor<2x4x16xf32>
  return
}

// -----

func.func @project_transpose_result(%dy: tensor<2x4x8xf32>, %a: tensor<16x8xf32>) {
  // expected-error @+1 {{'sigreg.project_transpose' op expects result of shape [V, N, D] = [2, 4, 16], got [2, 5, 16]}}
  %0 = sigreg.project_transpose %dy, %a : tensor<2x4x8xf32>, tensor<16x8xf32> -> tensor<2x5x16xf32>
  return
}
