// RUN: sigreg-opt %s --sigreg-decompose | FileCheck %s
// RUN: sigreg-opt %s --sigreg-decompose | sigreg-opt --verify-each | FileCheck %s --check-prefix=NOGRAD

// --sigreg-decompose replaces sigreg.loss_grad by the forward regions up to
// the global ECF, then the backward ones in reverse order: ecf_cotangent
// (epps_pulley + reduce), ecf_grad (ecf), project_transpose (project).

// NOGRAD-NOT: sigreg.loss_grad

// Rank 2, dynamic batch, explicit projection, reduction none: x and the [S]
// cotangent get a unit view dimension (the cotangent's first, so that it
// dominates the forward: a single-launch training step reads it there), the
// gradient loses it again; every knob reaches ecf_cotangent, t_max reaches
// both ECF ops.
// CHECK-LABEL: func.func @rank2_none(
// CHECK-SAME:      %[[X:.*]]: tensor<?x16xbf16>, %[[A:.*]]: tensor<16x8xbf16>, %[[G:.*]]: tensor<8xf32>) -> tensor<?x16xf32>
// CHECK-NEXT:    %[[G2:.*]] = tensor.expand_shape %[[G]] {{\[\[}}0, 1]] output_shape [1, 8] : tensor<8xf32> into tensor<1x8xf32>
// CHECK:         %[[X3:.*]] = tensor.expand_shape %[[X]] {{\[\[}}0, 1], [2]]
// CHECK-NEXT:    %[[Y:.*]] = sigreg.project %[[X3]], %[[A]] : tensor<1x?x16xbf16>, tensor<16x8xbf16> -> tensor<1x?x8xf32>
// CHECK-NEXT:    %[[COS:.*]], %[[SIN:.*]] = sigreg.ecf %[[Y]] t_max = 2.500000e+00
// CHECK:         %[[CG:.*]], %[[SG:.*]], %[[NG:.*]] = sigreg.all_reduce_mean %[[COS]], %[[SIN]]
// CHECK-NEXT:    %[[DC:.*]], %[[DS:.*]] = sigreg.ecf_cotangent %[[CG]], %[[SG]], %[[NG]], %[[G2]] t_max = 2.500000e+00 clip = clamp_min(5.000000e-01) reduction = none : tensor<1x8x5xf32>, tensor<1x8xf32>
// CHECK-NEXT:    %[[DY:.*]] = sigreg.ecf_grad %[[Y]], %[[DC]], %[[DS]] t_max = 2.500000e+00 : tensor<1x?x8xf32>, tensor<1x8x5xf32>
// CHECK-NEXT:    %[[DX:.*]] = sigreg.project_transpose %[[DY]], %[[A]] : tensor<1x?x8xf32>, tensor<16x8xbf16> -> tensor<1x?x16xf32>
// CHECK-NEXT:    %[[OUT:.*]] = tensor.collapse_shape %[[DX]] {{\[\[}}0, 1], [2]] : tensor<1x?x16xf32> into tensor<?x16xf32>
// CHECK-NEXT:    return %[[OUT]]
func.func @rank2_none(%x: tensor<?x16xbf16>, %a: tensor<16x8xbf16>, %g: tensor<8xf32>) -> tensor<?x16xf32> {
  %dx = sigreg.loss_grad %x projection(%a : tensor<16x8xbf16>) grad(%g : tensor<8xf32>) slices = 8 points = 5 t_max = 2.5 clip = clamp_min(0.5) reduction = none : tensor<?x16xbf16> -> tensor<?x16xf32>
  return %dx : tensor<?x16xf32>
}

// Rank 3, seed, mean: the generated projection feeds both GEMMs.
// CHECK-LABEL: func.func @views_seed(
// CHECK:         %[[P:.*]] = sigreg.projection seed(%{{.*}}) : tensor<16x8xf32>
// CHECK-NEXT:    sigreg.project %{{.*}}, %[[P]]
// CHECK:         sigreg.ecf_cotangent {{.*}} : tensor<3x8x17xf32>, tensor<f32>
// CHECK:         sigreg.project_transpose %{{.*}}, %[[P]] : tensor<3x4x8xf32>, tensor<16x8xf32> -> tensor<3x4x16xf32>
func.func @views_seed(%x: tensor<3x4x16xf32>, %seed: i64, %g: tensor<f32>) -> tensor<3x4x16xf32> {
  %dx = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<f32>) slices = 8 : tensor<3x4x16xf32> -> tensor<3x4x16xf32>
  return %dx : tensor<3x4x16xf32>
}
