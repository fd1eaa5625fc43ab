// RUN: sigreg-opt %s --sigreg-fuse-ecf-backward | FileCheck %s
// RUN: sigreg-opt %s --sigreg-fuse-ecf-backward --sigreg-fuse-ecf | FileCheck %s --check-prefix=BOTH

// --sigreg-fuse-ecf-backward rewrites
// project_transpose(ecf_grad(project(x, A), dcos, dsin), A) into one
// sigreg.fused_ecf_backward(x, A, dcos, dsin) carrying ecf_grad's t_max:
// dL/dy disappears, and the project goes when nothing else reads it.

// The backward alone (the DDP split's second entry point).
// CHECK-LABEL: func.func @backward_entry(
// CHECK-SAME:      %[[X:.*]]: tensor<2x37x136xbf16>, %[[SEED:.*]]: i64, %[[DC:.*]]: tensor<2x72x9xf32>, %[[DS:.*]]: tensor<2x72x9xf32>)
// CHECK-NEXT:    %[[A:.*]] = sigreg.projection seed(%[[SEED]]) : tensor<136x72xf32>
// CHECK-NEXT:    %[[DX:.*]] = sigreg.fused_ecf_backward %[[X]], %[[A]], %[[DC]], %[[DS]] t_max = 2.500000e+00 : tensor<2x37x136xbf16>, tensor<136x72xf32>, tensor<2x72x9xf32> -> tensor<2x37x136xf32>
// CHECK-NEXT:    return %[[DX]]
func.func @backward_entry(%x: tensor<2x37x136xbf16>, %seed: i64, %dc: tensor<2x72x9xf32>, %ds: tensor<2x72x9xf32>) -> tensor<2x37x136xf32> {
  %a = sigreg.projection seed(%seed) : tensor<136x72xf32>
  %y = sigreg.project %x, %a : tensor<2x37x136xbf16>, tensor<136x72xf32> -> tensor<2x37x72xf32>
  %dy = sigreg.ecf_grad %y, %dc, %ds t_max = 2.5 : tensor<2x37x72xf32>, tensor<2x72x9xf32>
  %dx = sigreg.project_transpose %dy, %a : tensor<2x37x72xf32>, tensor<136x72xf32> -> tensor<2x37x136xf32>
  return %dx : tensor<2x37x136xf32>
}

// Forward and backward in one function (what --sigreg-decompose makes of
// sigreg.loss_grad): the project stays for the forward's ecf, which
// --sigreg-fuse-ecf can then fuse since the ecf is its one reader.
// CHECK-LABEL: func.func @forward_and_backward(
// CHECK:         %[[Y:.*]] = sigreg.project %[[X:.*]], %[[A:.*]] :
// CHECK-NEXT:    %[[C:.*]], %[[S:.*]] = sigreg.ecf %[[Y]]
// CHECK-NOT:     sigreg.ecf_grad
// CHECK:         sigreg.fused_ecf_backward %[[X]], %[[A]], %{{.*}}, %{{.*}} : tensor<1x64x32xf16>, tensor<32x16xf16>, tensor<1x16x5xf32> -> tensor<1x64x32xf32>
// CHECK-NOT:     sigreg.project_transpose
// BOTH-LABEL: func.func @forward_and_backward(
// BOTH-NOT:      sigreg.project
// BOTH:          sigreg.fused_ecf %{{.*}}, %{{.*}} : tensor<1x64x32xf16>, tensor<32x16xf16> -> tensor<1x16x5xf32>
// BOTH:          sigreg.fused_ecf_backward
func.func @forward_and_backward(%x: tensor<1x64x32xf16>, %a: tensor<32x16xf16>, %g: tensor<f32>) -> tensor<1x64x32xf32> {
  %y = sigreg.project %x, %a : tensor<1x64x32xf16>, tensor<32x16xf16> -> tensor<1x64x16xf32>
  %c, %s = sigreg.ecf %y : tensor<1x64x16xf32> -> tensor<1x16x5xf32>
  %n = arith.constant 64 : index
  %dc, %ds = sigreg.ecf_cotangent %c, %s, %n, %g : tensor<1x16x5xf32>, tensor<f32>
  %dy = sigreg.ecf_grad %y, %dc, %ds : tensor<1x64x16xf32>, tensor<1x16x5xf32>
  %dx = sigreg.project_transpose %dy, %a : tensor<1x64x16xf32>, tensor<32x16xf16> -> tensor<1x64x32xf32>
  return %dx : tensor<1x64x32xf32>
}

// dL/dy is also returned: it must exist, so nothing fuses.
// CHECK-LABEL: func.func @no_fuse_dy_returned(
// CHECK:         sigreg.ecf_grad
// CHECK:         sigreg.project_transpose
// CHECK-NOT:     sigreg.fused_ecf_backward
func.func @no_fuse_dy_returned(%x: tensor<1x8x16xbf16>, %a: tensor<16x8xbf16>, %dc: tensor<1x8x5xf32>) -> (tensor<1x8x16xf32>, tensor<1x8x8xf32>) {
  %y = sigreg.project %x, %a : tensor<1x8x16xbf16>, tensor<16x8xbf16> -> tensor<1x8x8xf32>
  %dy = sigreg.ecf_grad %y, %dc, %dc : tensor<1x8x8xf32>, tensor<1x8x5xf32>
  %dx = sigreg.project_transpose %dy, %a : tensor<1x8x8xf32>, tensor<16x8xbf16> -> tensor<1x8x16xf32>
  return %dx, %dy : tensor<1x8x16xf32>, tensor<1x8x8xf32>
}

// The transpose multiplies by another matrix than the one that made y: not
// the backward of project, so nothing fuses.
// CHECK-LABEL: func.func @no_fuse_other_matrix(
// CHECK:         sigreg.ecf_grad
// CHECK:         sigreg.project_transpose
// CHECK-NOT:     sigreg.fused_ecf_backward
func.func @no_fuse_other_matrix(%x: tensor<1x8x16xbf16>, %a: tensor<16x8xbf16>, %b: tensor<16x8xbf16>, %dc: tensor<1x8x5xf32>) -> tensor<1x8x16xf32> {
  %y = sigreg.project %x, %a : tensor<1x8x16xbf16>, tensor<16x8xbf16> -> tensor<1x8x8xf32>
  %dy = sigreg.ecf_grad %y, %dc, %dc : tensor<1x8x8xf32>, tensor<1x8x5xf32>
  %dx = sigreg.project_transpose %dy, %b : tensor<1x8x8xf32>, tensor<16x8xbf16> -> tensor<1x8x16xf32>
  return %dx : tensor<1x8x16xf32>
}

// dL/dx rounded to x's element type (a phased training step's form, after
// --sigreg-decompose: the transpose, the collapse of an [N, D] input, the
// truncation): the fused op produces the 16-bit result itself and the
// collapse follows it; no arith.truncf remains.
// CHECK-LABEL: func.func @rounded_dx(
// CHECK:         %[[DX:.*]] = sigreg.fused_ecf_backward %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<1x64x32xbf16>, tensor<32x16xf32>, tensor<1x16x5xf32> -> tensor<1x64x32xbf16>
// CHECK-NEXT:    %[[C:.*]] = tensor.collapse_shape %[[DX]] {{\[}}[0, 1], [2]] : tensor<1x64x32xbf16> into tensor<64x32xbf16>
// CHECK-NOT:     arith.truncf
// CHECK:         return %[[C]]
func.func @rounded_dx(%x: tensor<1x64x32xbf16>, %seed: i64, %dc: tensor<1x16x5xf32>, %ds: tensor<1x16x5xf32>) -> tensor<64x32xbf16> {
  %a = sigreg.projection seed(%seed) : tensor<32x16xf32>
  %y = sigreg.project %x, %a : tensor<1x64x32xbf16>, tensor<32x16xf32> -> tensor<1x64x16xf32>
  %dy = sigreg.ecf_grad %y, %dc, %ds : tensor<1x64x16xf32>, tensor<1x16x5xf32>
  %dx = sigreg.project_transpose %dy, %a : tensor<1x64x16xf32>, tensor<32x16xf32> -> tensor<1x64x32xf32>
  %c = tensor.collapse_shape %dx [[0, 1], [2]] : tensor<1x64x32xf32> into tensor<64x32xf32>
  %h = arith.truncf %c : tensor<64x32xf32> to tensor<64x32xbf16>
  return %h : tensor<64x32xbf16>
}

// A truncation to another type than x's (f16 of a bf16 input) stays apart.
// CHECK-LABEL: func.func @other_rounding(
// CHECK:         sigreg.fused_ecf_backward {{.*}} -> tensor<1x64x32xf32>
// CHECK:         arith.truncf %{{.*}} : tensor<1x64x32xf32> to tensor<1x64x32xf16>
func.func @other_rounding(%x: tensor<1x64x32xbf16>, %seed: i64, %dc: tensor<1x16x5xf32>, %ds: tensor<1x16x5xf32>) -> tensor<1x64x32xf16> {
  %a = sigreg.projection seed(%seed) : tensor<32x16xf32>
  %y = sigreg.project %x, %a : tensor<1x64x32xbf16>, tensor<32x16xf32> -> tensor<1x64x16xf32>
  %dy = sigreg.ecf_grad %y, %dc, %ds : tensor<1x64x16xf32>, tensor<1x16x5xf32>
  %dx = sigreg.project_transpose %dy, %a : tensor<1x64x16xf32>, tensor<32x16xf32> -> tensor<1x64x32xf32>
  %h = arith.truncf %dx : tensor<1x64x32xf32> to tensor<1x64x32xf16>
  return %h : tensor<1x64x32xf16>
}
