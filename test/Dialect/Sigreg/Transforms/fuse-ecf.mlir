// RUN: sigreg-opt %s --sigreg-fuse-ecf | FileCheck %s
// RUN: sigreg-opt %s --sigreg-fuse-ecf | sigreg-opt --verify-each | FileCheck %s --check-prefix=REPARSE

// --sigreg-fuse-ecf rewrites sigreg.ecf(sigreg.project(x, A)) into one
// sigreg.fused_ecf carrying t_max: the slices y [V, N, S] disappear. The
// project is only fused when the ecf is its single use, and the pass never
// looks through sigreg.all_reduce_mean.

// REPARSE: sigreg.fused_ecf

// Seeded projection, rank 3, non-default t_max.
// CHECK-LABEL: func.func @fuse_seeded(
// CHECK-SAME:      %[[X:.*]]: tensor<3x37x129xf16>, %[[SEED:.*]]: i64)
// CHECK:         %[[A:.*]] = sigreg.projection seed(%[[SEED]]) : tensor<129x77xf32>
// CHECK-NOT:     sigreg.project
// CHECK-NEXT:    %[[C:.*]], %[[S:.*]] = sigreg.fused_ecf %[[X]], %[[A]] t_max = 2.500000e+00 : tensor<3x37x129xf16>, tensor<129x77xf32> -> tensor<3x77x9xf32>
// CHECK-NOT:     sigreg.ecf
// CHECK-NEXT:    return %[[C]], %[[S]]
func.func @fuse_seeded(%x: tensor<3x37x129xf16>, %seed: i64) -> (tensor<3x77x9xf32>, tensor<3x77x9xf32>) {
  %a = sigreg.projection seed(%seed) : tensor<129x77xf32>
  %y = sigreg.project %x, %a : tensor<3x37x129xf16>, tensor<129x77xf32> -> tensor<3x37x77xf32>
  %c, %s = sigreg.ecf %y t_max = 2.5 : tensor<3x37x77xf32> -> tensor<3x77x9xf32>
  return %c, %s : tensor<3x77x9xf32>, tensor<3x77x9xf32>
}

// Explicit bf16 projection, dynamic batch, default t_max (elided).
// CHECK-LABEL: func.func @fuse_explicit_dynamic(
// CHECK-SAME:      %[[X:.*]]: tensor<1x?x16xbf16>, %[[A:.*]]: tensor<16x8xbf16>)
// CHECK-NEXT:    %[[C:.*]], %[[S:.*]] = sigreg.fused_ecf %[[X]], %[[A]] : tensor<1x?x16xbf16>, tensor<16x8xbf16> -> tensor<1x8x17xf32>
// CHECK-NEXT:    return %[[C]], %[[S]]
func.func @fuse_explicit_dynamic(%x: tensor<1x?x16xbf16>, %a: tensor<16x8xbf16>) -> (tensor<1x8x17xf32>, tensor<1x8x17xf32>) {
  %y = sigreg.project %x, %a : tensor<1x?x16xbf16>, tensor<16x8xbf16> -> tensor<1x?x8xf32>
  %c, %s = sigreg.ecf %y : tensor<1x?x8xf32> -> tensor<1x8x17xf32>
  return %c, %s : tensor<1x8x17xf32>, tensor<1x8x17xf32>
}

// The slices have a second use (returned): y must exist, so nothing fuses.
// CHECK-LABEL: func.func @no_fuse_y_returned(
// CHECK:         %[[Y:.*]] = sigreg.project
// CHECK-NEXT:    %[[C:.*]], %{{.*}} = sigreg.ecf %[[Y]] t_max = 2.000000e+00
// CHECK-NOT:     sigreg.fused_ecf
// CHECK:         return %[[Y]], %[[C]]
func.func @no_fuse_y_returned(%x: tensor<1x5x4xf32>, %a: tensor<4x3xf32>) -> (tensor<1x5x3xf32>, tensor<1x3x5xf32>) {
  %y = sigreg.project %x, %a : tensor<1x5x4xf32>, tensor<4x3xf32> -> tensor<1x5x3xf32>
  %c, %s = sigreg.ecf %y t_max = 2.0 : tensor<1x5x3xf32> -> tensor<1x3x5xf32>
  return %y, %c : tensor<1x5x3xf32>, tensor<1x3x5xf32>
}

// Two ecfs of the same slices: neither may fuse (the project has two uses).
// CHECK-LABEL: func.func @no_fuse_two_ecfs(
// CHECK:         %[[Y:.*]] = sigreg.project
// CHECK-NEXT:    sigreg.ecf %[[Y]] : tensor<1x5x3xf32> -> tensor<1x3x5xf32>
// CHECK-NEXT:    sigreg.ecf %[[Y]] t_max = 1.000000e+00 : tensor<1x5x3xf32> -> tensor<1x3x7xf32>
// CHECK-NOT:     sigreg.fused_ecf
// CHECK:         return
func.func @no_fuse_two_ecfs(%x: tensor<1x5x4xf32>, %a: tensor<4x3xf32>) -> (tensor<1x3x5xf32>, tensor<1x3x7xf32>) {
  %y = sigreg.project %x, %a : tensor<1x5x4xf32>, tensor<4x3xf32> -> tensor<1x5x3xf32>
  %c, %s = sigreg.ecf %y : tensor<1x5x3xf32> -> tensor<1x3x5xf32>
  %c2, %s2 = sigreg.ecf %y t_max = 1.0 : tensor<1x5x3xf32> -> tensor<1x3x7xf32>
  return %c, %c2 : tensor<1x3x5xf32>, tensor<1x3x7xf32>
}

// An ecf of slices that are a function argument has no producer to fuse.
// CHECK-LABEL: func.func @no_fuse_no_producer(
// CHECK-NEXT:    sigreg.ecf %{{.*}} : tensor<1x5x3xf32> -> tensor<1x3x5xf32>
// CHECK-NOT:     sigreg.fused_ecf
func.func @no_fuse_no_producer(%y: tensor<1x5x3xf32>) -> tensor<1x3x5xf32> {
  %c, %s = sigreg.ecf %y : tensor<1x5x3xf32> -> tensor<1x3x5xf32>
  return %c : tensor<1x3x5xf32>
}

// The whole mid-level chain: only the pre-boundary part fuses; the
// all_reduce_mean (world_size = 4 kept), epps_pulley and reduce stay, in order.
// CHECK-LABEL: func.func @chain_world4(
// CHECK:         %[[C:.*]], %[[S:.*]] = sigreg.fused_ecf
// CHECK-NEXT:    %[[CG:.*]], %[[SG:.*]], %[[NG:.*]] = sigreg.all_reduce_mean %[[C]], %[[S]], %{{.*}} world_size = 4 : tensor<1x8x5xf32>
// CHECK-NEXT:    %[[T:.*]] = sigreg.epps_pulley %[[CG]], %[[SG]], %[[NG]]
// CHECK-NEXT:    sigreg.reduce %[[T]]
func.func @chain_world4(%x: tensor<1x37x16xf32>, %seed: i64, %n: index) -> tensor<f32> {
  %a = sigreg.projection seed(%seed) : tensor<16x8xf32>
  %y = sigreg.project %x, %a : tensor<1x37x16xf32>, tensor<16x8xf32> -> tensor<1x37x8xf32>
  %c, %s = sigreg.ecf %y : tensor<1x37x8xf32> -> tensor<1x8x5xf32>
  %cg, %sg, %ng = sigreg.all_reduce_mean %c, %s, %n world_size = 4 : tensor<1x8x5xf32>
  %t = sigreg.epps_pulley %cg, %sg, %ng : tensor<1x8x5xf32> -> tensor<1x8xf32>
  %r = sigreg.reduce %t : tensor<1x8xf32> -> tensor<f32>
  return %r : tensor<f32>
}
