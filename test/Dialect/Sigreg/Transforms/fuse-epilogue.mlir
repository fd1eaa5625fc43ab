// RUN: sigreg-opt %s --sigreg-fuse-epilogue | FileCheck %s
// RUN: sigreg-opt %s --sigreg-fuse-ecf --sigreg-fuse-epilogue | FileCheck %s --check-prefix=BOTH
// RUN: sigreg-opt %s --sigreg-fuse-ecf --sigreg-fuse-epilogue | sigreg-opt --verify-each | FileCheck %s --check-prefix=REPARSE

// --sigreg-fuse-epilogue rewrites sigreg.reduce(sigreg.epps_pulley(...)) into
// one sigreg.fused_epilogue carrying t_max, clip, clip_value (from the
// statistic) and reduction (from the reduce). The statistics must have no
// other use. It starts at the all_reduce_mean outputs: the boundary stays.

// REPARSE: sigreg.fused_epilogue

// All knobs: t_max, clamp_min, sum.
// CHECK-LABEL: func.func @fuse_clamp_sum(
// CHECK-SAME:      %[[C:.*]]: tensor<1x8x5xf32>, %[[S:.*]]: tensor<1x8x5xf32>, %[[N:.*]]: index)
// CHECK-NEXT:    %[[R:.*]] = sigreg.fused_epilogue %[[C]], %[[S]], %[[N]] t_max = 2.500000e+00 clip = clamp_min(7.500000e-01) reduction = sum : tensor<1x8x5xf32> -> tensor<f32>
// CHECK-NEXT:    return %[[R]] : tensor<f32>
func.func @fuse_clamp_sum(%c: tensor<1x8x5xf32>, %s: tensor<1x8x5xf32>, %n: index) -> tensor<f32> {
  %t = sigreg.epps_pulley %c, %s, %n t_max = 2.5 clip = clamp_min(0.75) : tensor<1x8x5xf32> -> tensor<1x8xf32>
  %r = sigreg.reduce %t reduction = sum : tensor<1x8xf32> -> tensor<f32>
  return %r : tensor<f32>
}

// zero_below with reduction none: the result keeps the [V, S] shape.
// CHECK-LABEL: func.func @fuse_zero_below_none(
// CHECK-NEXT:    %[[R:.*]] = sigreg.fused_epilogue %{{.*}}, %{{.*}}, %{{.*}} clip = zero_below(1.500000e+00) reduction = none : tensor<3x77x9xf32> -> tensor<3x77xf32>
// CHECK-NEXT:    return %[[R]] : tensor<3x77xf32>
func.func @fuse_zero_below_none(%c: tensor<3x77x9xf32>, %s: tensor<3x77x9xf32>, %n: index) -> tensor<3x77xf32> {
  %t = sigreg.epps_pulley %c, %s, %n clip = zero_below(1.5) : tensor<3x77x9xf32> -> tensor<3x77xf32>
  %r = sigreg.reduce %t reduction = none : tensor<3x77xf32> -> tensor<3x77xf32>
  return %r : tensor<3x77xf32>
}

// Defaults (t_max 3, no clip, mean) stay elided.
// CHECK-LABEL: func.func @fuse_defaults(
// CHECK-NEXT:    sigreg.fused_epilogue %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x3x17xf32> -> tensor<f32>
func.func @fuse_defaults(%c: tensor<2x3x17xf32>, %s: tensor<2x3x17xf32>, %n: index) -> tensor<f32> {
  %t = sigreg.epps_pulley %c, %s, %n : tensor<2x3x17xf32> -> tensor<2x3xf32>
  %r = sigreg.reduce %t : tensor<2x3xf32> -> tensor<f32>
  return %r : tensor<f32>
}

// The statistics are also returned: no fusion.
// CHECK-LABEL: func.func @no_fuse_stats_returned(
// CHECK:         %[[T:.*]] = sigreg.epps_pulley
// CHECK-NEXT:    %[[R:.*]] = sigreg.reduce %[[T]] reduction = sum
// CHECK-NOT:     sigreg.fused_epilogue
// CHECK:         return %[[R]], %[[T]]
func.func @no_fuse_stats_returned(%c: tensor<1x8x5xf32>, %s: tensor<1x8x5xf32>, %n: index) -> (tensor<f32>, tensor<1x8xf32>) {
  %t = sigreg.epps_pulley %c, %s, %n : tensor<1x8x5xf32> -> tensor<1x8xf32>
  %r = sigreg.reduce %t reduction = sum : tensor<1x8xf32> -> tensor<f32>
  return %r, %t : tensor<f32>, tensor<1x8xf32>
}

// Two reductions of the same statistics: neither fuses.
// CHECK-LABEL: func.func @no_fuse_two_reduces(
// CHECK:         %[[T:.*]] = sigreg.epps_pulley
// CHECK-NEXT:    sigreg.reduce %[[T]] : tensor<1x8xf32> -> tensor<f32>
// CHECK-NEXT:    sigreg.reduce %[[T]] reduction = sum : tensor<1x8xf32> -> tensor<f32>
// CHECK-NOT:     sigreg.fused_epilogue
func.func @no_fuse_two_reduces(%c: tensor<1x8x5xf32>, %s: tensor<1x8x5xf32>, %n: index) -> (tensor<f32>, tensor<f32>) {
  %t = sigreg.epps_pulley %c, %s, %n : tensor<1x8x5xf32> -> tensor<1x8xf32>
  %r = sigreg.reduce %t : tensor<1x8xf32> -> tensor<f32>
  %r2 = sigreg.reduce %t reduction = sum : tensor<1x8xf32> -> tensor<f32>
  return %r, %r2 : tensor<f32>, tensor<f32>
}

// A hand-written mid-level function: all_reduce_mean (world_size = 4) sits
// between the ecf and the statistic. Both fusions happen on their own side
// and the boundary stays between the two fused ops, with its world size.
// CHECK-LABEL: func.func @boundary_world4(
// CHECK:         sigreg.project %
// CHECK-NEXT:    sigreg.ecf
// CHECK-NEXT:    sigreg.all_reduce_mean {{.*}} world_size = 4
// CHECK-NEXT:    sigreg.fused_epilogue
// BOTH-LABEL:  func.func @boundary_world4(
// BOTH-SAME:       %[[X:.*]]: tensor<1x37x16xf32>, %[[SEED:.*]]: i64, %[[N:.*]]: index)
// BOTH-NEXT:     %[[A:.*]] = sigreg.projection seed(%[[SEED]]) : tensor<16x8xf32>
// BOTH-NEXT:     %[[C:.*]], %[[S:.*]] = sigreg.fused_ecf %[[X]], %[[A]] t_max = 2.000000e+00 : tensor<1x37x16xf32>, tensor<16x8xf32> -> tensor<1x8x5xf32>
// BOTH-NEXT:     %[[CG:.*]], %[[SG:.*]], %[[NG:.*]] = sigreg.all_reduce_mean %[[C]], %[[S]], %[[N]] world_size = 4 : tensor<1x8x5xf32>
// BOTH-NEXT:     %[[R:.*]] = sigreg.fused_epilogue %[[CG]], %[[SG]], %[[NG]] t_max = 2.000000e+00 clip = zero_below(5.000000e-01) reduction = sum : tensor<1x8x5xf32> -> tensor<f32>
// BOTH-NEXT:     return %[[R]]
// BOTH-NOT:      sigreg.ecf
// BOTH-NOT:      sigreg.epps_pulley
func.func @boundary_world4(%x: tensor<1x37x16xf32>, %seed: i64, %n: index) -> tensor<f32> {
  %a = sigreg.projection seed(%seed) : tensor<16x8xf32>
  %y = sigreg.project %x, %a : tensor<1x37x16xf32>, tensor<16x8xf32> -> tensor<1x37x8xf32>
  %c, %s = sigreg.ecf %y t_max = 2.0 : tensor<1x37x8xf32> -> tensor<1x8x5xf32>
  %cg, %sg, %ng = sigreg.all_reduce_mean %c, %s, %n world_size = 4 : tensor<1x8x5xf32>
  %t = sigreg.epps_pulley %cg, %sg, %ng t_max = 2.0 clip = zero_below(0.5) : tensor<1x8x5xf32> -> tensor<1x8xf32>
  %r = sigreg.reduce %t reduction = sum : tensor<1x8xf32> -> tensor<f32>
  return %r : tensor<f32>
}

// world_size = 1 (the default, as --sigreg-decompose emits it): the boundary
// is still there between the fused ops.
// BOTH-LABEL:  func.func @boundary_world1(
// BOTH:          %[[C:.*]], %[[S:.*]] = sigreg.fused_ecf
// BOTH:          %[[CG:.*]], %[[SG:.*]], %[[NG:.*]] = sigreg.all_reduce_mean %[[C]], %[[S]], %{{.*}} : tensor<1x8x17xf32>
// BOTH-NEXT:     sigreg.fused_epilogue %[[CG]], %[[SG]], %[[NG]] : tensor<1x8x17xf32> -> tensor<f32>
func.func @boundary_world1(%x: tensor<1x37x16xf32>, %a: tensor<16x8xf32>, %n: index) -> tensor<f32> {
  %y = sigreg.project %x, %a : tensor<1x37x16xf32>, tensor<16x8xf32> -> tensor<1x37x8xf32>
  %c, %s = sigreg.ecf %y : tensor<1x37x8xf32> -> tensor<1x8x17xf32>
  %cg, %sg, %ng = sigreg.all_reduce_mean %c, %s, %n : tensor<1x8x17xf32>
  %t = sigreg.epps_pulley %cg, %sg, %ng : tensor<1x8x17xf32> -> tensor<1x8xf32>
  %r = sigreg.reduce %t : tensor<1x8xf32> -> tensor<f32>
  return %r : tensor<f32>
}
