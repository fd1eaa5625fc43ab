// RUN: sigreg-opt %s --sigreg-decompose | FileCheck %s
// RUN: sigreg-opt %s --sigreg-decompose | sigreg-opt --verify-each | FileCheck %s --check-prefix=NOLOSS

// --sigreg-decompose replaces every sigreg.loss by the mid-level region ops
// (projection, project, ecf, all_reduce_mean, epps_pulley, reduce) on
// [V, N, D] operands. The output must verify and re-parse.

// NOLOSS-NOT: sigreg.loss

// Rank 2, dynamic batch, seed: [N, D] gets a unit view dimension; t_max and
// the clip knobs go to ecf and epps_pulley; the batch size given to the
// all-reduce is the dynamic dimension of the expanded input.
// CHECK-LABEL: func.func @rank2_dynamic_seed(
// CHECK-SAME:      %[[X:.*]]: tensor<?x16xbf16>, %[[SEED:.*]]: i64) -> tensor<f32>
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[N:.*]] = tensor.dim %[[X]], %[[C0]] : tensor<?x16xbf16>
// CHECK-NEXT:    %[[X3:.*]] = tensor.expand_shape %[[X]] {{\[\[}}0, 1], [2]] output_shape [1, %[[N]], 16] : tensor<?x16xbf16> into tensor<1x?x16xbf16>
// CHECK-NEXT:    %[[A:.*]] = sigreg.projection seed(%[[SEED]]) : tensor<16x8xf32>
// CHECK-NEXT:    %[[Y:.*]] = sigreg.project %[[X3]], %[[A]] : tensor<1x?x16xbf16>, tensor<16x8xf32> -> tensor<1x?x8xf32>
// CHECK-NEXT:    %[[COS:.*]], %[[SIN:.*]] = sigreg.ecf %[[Y]] t_max = 2.500000e+00 : tensor<1x?x8xf32> -> tensor<1x8x5xf32>
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[NL:.*]] = tensor.dim %[[X3]], %[[C1]] : tensor<1x?x16xbf16>
// CHECK-NEXT:    %[[CG:.*]], %[[SG:.*]], %[[NG:.*]] = sigreg.all_reduce_mean %[[COS]], %[[SIN]], %[[NL]] : tensor<1x8x5xf32>
// CHECK-NEXT:    %[[T:.*]] = sigreg.epps_pulley %[[CG]], %[[SG]], %[[NG]] t_max = 2.500000e+00 clip = clamp_min(7.500000e-01) : tensor<1x8x5xf32> -> tensor<1x8xf32>
// CHECK-NEXT:    %[[R:.*]] = sigreg.reduce %[[T]] reduction = sum : tensor<1x8xf32> -> tensor<f32>
// CHECK-NEXT:    return %[[R]] : tensor<f32>
func.func @rank2_dynamic_seed(%x: tensor<?x16xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 8 points = 5 t_max = 2.5 clip = clamp_min(0.75) reduction = sum : tensor<?x16xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// Rank 2, static batch, explicit projection, reduction none: no
// sigreg.projection; the [1, S] statistics are collapsed back to [S].
// Defaults (P = 17, t_max = 3, no clip) stay elided.
// CHECK-LABEL: func.func @rank2_projection_none(
// CHECK-SAME:      %[[X:.*]]: tensor<37x16xf32>, %[[A:.*]]: tensor<16x8xf32>) -> tensor<8xf32>
// CHECK-NOT:     sigreg.projection
// CHECK:         %[[X3:.*]] = tensor.expand_shape %[[X]] {{\[\[}}0, 1], [2]] output_shape [1, 37, 16] : tensor<37x16xf32> into tensor<1x37x16xf32>
// CHECK-NEXT:    %[[Y:.*]] = sigreg.project %[[X3]], %[[A]] : tensor<1x37x16xf32>, tensor<16x8xf32> -> tensor<1x37x8xf32>
// CHECK-NEXT:    %[[COS:.*]], %[[SIN:.*]] = sigreg.ecf %[[Y]] : tensor<1x37x8xf32> -> tensor<1x8x17xf32>
// CHECK:         %[[NL:.*]] = tensor.dim %[[X3]], %{{.*}} : tensor<1x37x16xf32>
// CHECK-NEXT:    %[[CG:.*]], %[[SG:.*]], %[[NG:.*]] = sigreg.all_reduce_mean %[[COS]], %[[SIN]], %[[NL]] : tensor<1x8x17xf32>
// CHECK-NEXT:    %[[T:.*]] = sigreg.epps_pulley %[[CG]], %[[SG]], %[[NG]] : tensor<1x8x17xf32> -> tensor<1x8xf32>
// CHECK-NEXT:    %[[R:.*]] = sigreg.reduce %[[T]] reduction = none : tensor<1x8xf32> -> tensor<1x8xf32>
// CHECK-NEXT:    %[[RC:.*]] = tensor.collapse_shape %[[R]] {{\[\[}}0, 1]] : tensor<1x8xf32> into tensor<8xf32>
// CHECK-NEXT:    return %[[RC]] : tensor<8xf32>
func.func @rank2_projection_none(%x: tensor<37x16xf32>, %a: tensor<16x8xf32>) -> tensor<8xf32> {
  %l = sigreg.loss %x projection(%a : tensor<16x8xf32>) slices = 8 reduction = none : tensor<37x16xf32> -> tensor<8xf32>
  return %l : tensor<8xf32>
}

// Rank 3 (views), dynamic batch, seed, zero_below, reduction none: no
// reshapes at all, [V, S] statistics are returned as they are.
// CHECK-LABEL: func.func @rank3_seed_none(
// CHECK-SAME:      %[[X:.*]]: tensor<3x?x129xf16>, %[[SEED:.*]]: i64) -> tensor<3x77xf32>
// CHECK-NOT:     tensor.expand_shape
// CHECK:         %[[A:.*]] = sigreg.projection seed(%[[SEED]]) : tensor<129x77xf32>
// CHECK-NEXT:    %[[Y:.*]] = sigreg.project %[[X]], %[[A]] : tensor<3x?x129xf16>, tensor<129x77xf32> -> tensor<3x?x77xf32>
// CHECK-NEXT:    %[[COS:.*]], %[[SIN:.*]] = sigreg.ecf %[[Y]] : tensor<3x?x77xf32> -> tensor<3x77x9xf32>
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[NL:.*]] = tensor.dim %[[X]], %[[C1]] : tensor<3x?x129xf16>
// CHECK-NEXT:    %[[CG:.*]], %[[SG:.*]], %[[NG:.*]] = sigreg.all_reduce_mean %[[COS]], %[[SIN]], %[[NL]] : tensor<3x77x9xf32>
// CHECK-NEXT:    %[[T:.*]] = sigreg.epps_pulley %[[CG]], %[[SG]], %[[NG]] clip = zero_below(1.500000e+00) : tensor<3x77x9xf32> -> tensor<3x77xf32>
// CHECK-NEXT:    %[[R:.*]] = sigreg.reduce %[[T]] reduction = none : tensor<3x77xf32> -> tensor<3x77xf32>
// CHECK-NOT:     tensor.collapse_shape
// CHECK:         return %[[R]] : tensor<3x77xf32>
func.func @rank3_seed_none(%x: tensor<3x?x129xf16>, %seed: i64) -> tensor<3x77xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 77 points = 9 clip = zero_below(1.5) reduction = none : tensor<3x?x129xf16> -> tensor<3x77xf32>
  return %l : tensor<3x77xf32>
}

// Rank 3, explicit bf16 projection, mean: the projection is used as given
// (no conversion to f32 at this level); mean is the default reduction.
// CHECK-LABEL: func.func @rank3_projection_mean(
// CHECK-SAME:      %[[X:.*]]: tensor<2x5x4xbf16>, %[[A:.*]]: tensor<4x3xbf16>) -> tensor<f32>
// CHECK:         %[[Y:.*]] = sigreg.project %[[X]], %[[A]] : tensor<2x5x4xbf16>, tensor<4x3xbf16> -> tensor<2x5x3xf32>
// CHECK-NEXT:    sigreg.ecf %[[Y]] t_max = 1.000000e+00 : tensor<2x5x3xf32> -> tensor<2x3x33xf32>
// CHECK:         sigreg.all_reduce_mean {{.*}} : tensor<2x3x33xf32>
// CHECK-NEXT:    %[[T:.*]] = sigreg.epps_pulley {{.*}} t_max = 1.000000e+00 : tensor<2x3x33xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    %[[R:.*]] = sigreg.reduce %[[T]] : tensor<2x3xf32> -> tensor<f32>
// CHECK-NEXT:    return %[[R]] : tensor<f32>
func.func @rank3_projection_mean(%x: tensor<2x5x4xbf16>, %a: tensor<4x3xbf16>) -> tensor<f32> {
  %l = sigreg.loss %x projection(%a : tensor<4x3xbf16>) slices = 3 points = 33 t_max = 1.0 : tensor<2x5x4xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// Every loss of a function is decomposed, including one nested in a region.
// CHECK-LABEL: func.func @several(
// CHECK-COUNT-2: sigreg.projection seed
// CHECK:         scf.execute_region
// CHECK:           sigreg.projection seed(%{{.*}}) : tensor<16x2xf32>
// CHECK:           sigreg.reduce %{{.*}} : tensor<1x2xf32> -> tensor<f32>
func.func @several(%x: tensor<4x16xf32>, %seed: i64) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %a = sigreg.loss %x seed(%seed) slices = 8 : tensor<4x16xf32> -> tensor<f32>
  %b = sigreg.loss %x seed(%seed) slices = 4 : tensor<4x16xf32> -> tensor<f32>
  %c = scf.execute_region -> tensor<f32> {
    %l = sigreg.loss %x seed(%seed) slices = 2 : tensor<4x16xf32> -> tensor<f32>
    scf.yield %l : tensor<f32>
  }
  return %a, %b, %c : tensor<f32>, tensor<f32>, tensor<f32>
}

// Mid-level ops already present are left alone.
// CHECK-LABEL: func.func @mid_level_untouched(
// CHECK-NEXT:    %[[A:.*]] = sigreg.projection seed(%{{.*}}) : tensor<16x8xf32>
// CHECK-NEXT:    return %[[A]]
func.func @mid_level_untouched(%seed: i64) -> tensor<16x8xf32> {
  %a = sigreg.projection seed(%seed) : tensor<16x8xf32>
  return %a : tensor<16x8xf32>
}
