// RUN: sigreg-opt %s | sigreg-opt | FileCheck %s
// RUN: sigreg-opt %s -mlir-print-op-generic | sigreg-opt | FileCheck %s
// RUN: sigreg-opt %s -mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Round trip of every sigreg op with every knob, through the custom and the
// generic form. Default-valued attributes (points = 17, t_max = 3.0,
// clip = none, reduction = mean, world_size = 1) are elided by the custom
// printer and materialized in the generic form (enums as i32: clip none = 0,
// zero_below = 1, clamp_min = 2; reduction mean = 0, sum = 1, none = 2).

//===----------------------------------------------------------------------===//
// sigreg.loss
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @loss_seed_defaults(
// CHECK-SAME:    %[[X:.*]]: tensor<32x2048xbf16>, %[[SEED:.*]]: i64)
// CHECK:         %[[L:.*]] = sigreg.loss %[[X]] seed(%[[SEED]]) slices = 1024 : tensor<32x2048xbf16> -> tensor<f32>
// CHECK-NEXT:    return %[[L]]
// GENERIC-LABEL: "func.func"() <{function_type = (tensor<32x2048xbf16>, i64) -> tensor<f32>, sym_name = "loss_seed_defaults"}>
// GENERIC:       "sigreg.loss"(%{{.*}}, %{{.*}}) <{
// GENERIC-SAME:    clip = 0 : i32, clip_value = 0.000000e+00 : f64, num_points = 17 : i64, num_slices = 1024 : i64
// GENERIC-SAME:    operandSegmentSizes = array<i32: 1, 1, 0>, reduction = 0 : i32, t_max = 3.000000e+00 : f64
// GENERIC-SAME:    }> : (tensor<32x2048xbf16>, i64) -> tensor<f32>
func.func @loss_seed_defaults(%x: tensor<32x2048xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1024 : tensor<32x2048xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// Explicitly written defaults are elided.
// CHECK-LABEL: func.func @loss_explicit_defaults
// CHECK:         sigreg.loss %{{.*}} seed(%{{.*}}) slices = 8 : tensor<4x16xf32> -> tensor<f32>
// GENERIC-LABEL: sym_name = "loss_explicit_defaults"
// GENERIC:       "sigreg.loss"
// GENERIC-SAME:    clip = 0 : i32
func.func @loss_explicit_defaults(%x: tensor<4x16xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 8 points = 17 t_max = 3.0 clip = none(0.0) reduction = mean : tensor<4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK-LABEL: func.func @loss_projection_rank3(
// CHECK-SAME:    %[[X:.*]]: tensor<3x37x129xf16>, %[[A:.*]]: tensor<129x77xf16>)
// CHECK:         sigreg.loss %[[X]] projection(%[[A]] : tensor<129x77xf16>) slices = 77 points = 9 t_max = 2.500000e+00 reduction = sum : tensor<3x37x129xf16> -> tensor<f32>
// GENERIC-LABEL: sym_name = "loss_projection_rank3"
// GENERIC:       "sigreg.loss"(%{{.*}}, %{{.*}}) <{
// GENERIC-SAME:    num_points = 9 : i64
// GENERIC-SAME:    operandSegmentSizes = array<i32: 1, 0, 1>
// GENERIC-SAME:    reduction = 1 : i32
// GENERIC-SAME:    t_max = 2.500000e+00 : f64
// GENERIC-SAME:    }> : (tensor<3x37x129xf16>, tensor<129x77xf16>) -> tensor<f32>
func.func @loss_projection_rank3(%x: tensor<3x37x129xf16>, %a: tensor<129x77xf16>) -> tensor<f32> {
  %l = sigreg.loss %x projection(%a : tensor<129x77xf16>) slices = 77 points = 9 t_max = 2.5 reduction = sum : tensor<3x37x129xf16> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK-LABEL: func.func @loss_dynamic_batch_clamp_min(
// CHECK:         sigreg.loss %{{.*}} seed(%{{.*}}) slices = 1024 clip = clamp_min(5.000000e-01) : tensor<?x2048xbf16> -> tensor<f32>
// GENERIC-LABEL: sym_name = "loss_dynamic_batch_clamp_min"
// GENERIC:       "sigreg.loss"
// GENERIC-SAME:    clip = 2 : i32
// GENERIC-SAME:    clip_value = 5.000000e-01 : f64
func.func @loss_dynamic_batch_clamp_min(%x: tensor<?x2048xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 clip = clamp_min(5.000000e-01) : tensor<?x2048xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// CHECK-LABEL: func.func @loss_rank3_dynamic_zero_below_none(
// CHECK:         sigreg.loss %{{.*}} seed(%{{.*}}) slices = 256 points = 33 t_max = 4.000000e+00 clip = zero_below(1.250000e+00) reduction = none : tensor<4x?x16xf32> -> tensor<4x256xf32>
// GENERIC-LABEL: sym_name = "loss_rank3_dynamic_zero_below_none"
// GENERIC:       "sigreg.loss"
// GENERIC-SAME:    clip = 1 : i32
// GENERIC-SAME:    clip_value = 1.250000e+00 : f64
// GENERIC-SAME:    reduction = 2 : i32
func.func @loss_rank3_dynamic_zero_below_none(%x: tensor<4x?x16xf32>, %seed: i64) -> tensor<4x256xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 256 points = 33 t_max = 4.0 clip = zero_below(1.25) reduction = none : tensor<4x?x16xf32> -> tensor<4x256xf32>
  return %l : tensor<4x256xf32>
}

// CHECK-LABEL: func.func @loss_rank2_none_points3(
// CHECK:         sigreg.loss %{{.*}} projection(%{{.*}} : tensor<5x7xf32>) slices = 7 points = 3 clip = clamp_min(0.000000e+00) reduction = none : tensor<?x5xf32> -> tensor<7xf32>
func.func @loss_rank2_none_points3(%x: tensor<?x5xf32>, %a: tensor<5x7xf32>) -> tensor<7xf32> {
  %l = sigreg.loss %x projection(%a : tensor<5x7xf32>) slices = 7 points = 3 clip = clamp_min(0.0) reduction = none : tensor<?x5xf32> -> tensor<7xf32>
  return %l : tensor<7xf32>
}

// A negative clip value is legal (only non-finite values are rejected).
// CHECK-LABEL: func.func @loss_negative_clip(
// CHECK:         clip = zero_below(-1.000000e+00)
func.func @loss_negative_clip(%x: tensor<8x4xf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 2 clip = zero_below(-1.0) : tensor<8x4xf16> -> tensor<f32>
  return %l : tensor<f32>
}

//===----------------------------------------------------------------------===//
// Mid-level ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @mid_level(
// CHECK-SAME:    %[[X:.*]]: tensor<2x?x16xbf16>, %[[SEED:.*]]: i64, %[[N:.*]]: index)
// CHECK:         %[[A:.*]] = sigreg.projection seed(%[[SEED]]) : tensor<16x8xf32>
// CHECK:         %[[Y:.*]] = sigreg.project %[[X]], %[[A]] : tensor<2x?x16xbf16>, tensor<16x8xf32> -> tensor<2x?x8xf32>
// CHECK:         %[[C:.*]], %[[S:.*]] = sigreg.ecf %[[Y]] t_max = 2.000000e+00 : tensor<2x?x8xf32> -> tensor<2x8x5xf32>
// CHECK:         %[[C2:.*]], %{{.*}} = sigreg.ecf %[[Y]] : tensor<2x?x8xf32> -> tensor<2x8x17xf32>
// CHECK:         %[[RC:.*]], %[[RS:.*]], %[[RN:.*]] = sigreg.all_reduce_mean %[[C]], %[[S]], %[[N]] world_size = 8 : tensor<2x8x5xf32>
// CHECK:         %[[RC1:.*]], %[[RS1:.*]], %[[RN1:.*]] = sigreg.all_reduce_mean %[[C]], %[[S]], %[[N]] : tensor<2x8x5xf32>
// CHECK:         %[[T:.*]] = sigreg.epps_pulley %[[RC]], %[[RS]], %[[RN]] t_max = 2.000000e+00 clip = zero_below(1.000000e-01) : tensor<2x8x5xf32> -> tensor<2x8xf32>
// CHECK:         %[[T1:.*]] = sigreg.epps_pulley %[[RC1]], %[[RS1]], %[[RN1]] : tensor<2x8x5xf32> -> tensor<2x8xf32>
// CHECK:         %[[T2:.*]] = sigreg.epps_pulley %[[RC1]], %[[RS1]], %[[RN1]] clip = clamp_min(3.000000e+00) : tensor<2x8x5xf32> -> tensor<2x8xf32>
// CHECK:         sigreg.reduce %[[T]] : tensor<2x8xf32> -> tensor<f32>
// CHECK:         sigreg.reduce %[[T1]] reduction = sum : tensor<2x8xf32> -> tensor<f32>
// CHECK:         %[[RN2:.*]] = sigreg.reduce %[[T2]] reduction = none : tensor<2x8xf32> -> tensor<2x8xf32>
// CHECK:         return %{{.*}}, %{{.*}}, %[[RN2]], %[[C2]]
// GENERIC-LABEL: sym_name = "mid_level"
// GENERIC:       "sigreg.projection"(%{{.*}}) : (i64) -> tensor<16x8xf32>
// GENERIC:       "sigreg.project"(%{{.*}}, %{{.*}}) : (tensor<2x?x16xbf16>, tensor<16x8xf32>) -> tensor<2x?x8xf32>
// GENERIC:       "sigreg.ecf"(%{{.*}}) <{t_max = 2.000000e+00 : f64}> : (tensor<2x?x8xf32>) -> (tensor<2x8x5xf32>, tensor<2x8x5xf32>)
// GENERIC:       "sigreg.all_reduce_mean"(%{{.*}}, %{{.*}}, %{{.*}}) <{world_size = 8 : i64}> : (tensor<2x8x5xf32>, tensor<2x8x5xf32>, index) -> (tensor<2x8x5xf32>, tensor<2x8x5xf32>, index)
// GENERIC:       "sigreg.epps_pulley"(%{{.*}}, %{{.*}}, %{{.*}}) <{clip = 1 : i32, clip_value = 1.000000e-01 : f64, t_max = 2.000000e+00 : f64}>
// GENERIC:       "sigreg.reduce"(%{{.*}}) <{reduction = 2 : i32}> : (tensor<2x8xf32>) -> tensor<2x8xf32>
func.func @mid_level(%x: tensor<2x?x16xbf16>, %seed: i64, %n: index)
    -> (tensor<f32>, tensor<f32>, tensor<2x8xf32>, tensor<2x8x17xf32>) {
  %a = sigreg.projection seed(%seed) : tensor<16x8xf32>
  %y = sigreg.project %x, %a : tensor<2x?x16xbf16>, tensor<16x8xf32> -> tensor<2x?x8xf32>
  %c:2 = sigreg.ecf %y t_max = 2.0 : tensor<2x?x8xf32> -> tensor<2x8x5xf32>
  %c2:2 = sigreg.ecf %y t_max = 3.0 : tensor<2x?x8xf32> -> tensor<2x8x17xf32>
  %r:3 = sigreg.all_reduce_mean %c#0, %c#1, %n world_size = 8 : tensor<2x8x5xf32>
  %r1:3 = sigreg.all_reduce_mean %c#0, %c#1, %n world_size = 1 : tensor<2x8x5xf32>
  %t = sigreg.epps_pulley %r#0, %r#1, %r#2 t_max = 2.0 clip = zero_below(0.1) : tensor<2x8x5xf32> -> tensor<2x8xf32>
  %t1 = sigreg.epps_pulley %r1#0, %r1#1, %r1#2 : tensor<2x8x5xf32> -> tensor<2x8xf32>
  %t2 = sigreg.epps_pulley %r1#0, %r1#1, %r1#2 clip = clamp_min(3.0) : tensor<2x8x5xf32> -> tensor<2x8xf32>
  %m = sigreg.reduce %t : tensor<2x8xf32> -> tensor<f32>
  %s = sigreg.reduce %t1 reduction = sum : tensor<2x8xf32> -> tensor<f32>
  %n2 = sigreg.reduce %t2 reduction = none : tensor<2x8xf32> -> tensor<2x8xf32>
  return %m, %s, %n2, %c2#0 : tensor<f32>, tensor<f32>, tensor<2x8xf32>, tensor<2x8x17xf32>
}

//===----------------------------------------------------------------------===//
// sigreg.advance_step
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @advance_step(
// CHECK-SAME:    %[[STEP:[^:]*]]: memref<i64>
// CHECK:         %[[SEED:.*]] = sigreg.advance_step %[[STEP]] : memref<i64>
// CHECK:         sigreg.loss %{{.*}} seed(%[[SEED]])
// GENERIC-LABEL: sym_name = "advance_step"
// GENERIC:       "sigreg.advance_step"(%{{.*}}) : (memref<i64>) -> i64
func.func @advance_step(%x: tensor<8x16xf32>, %step: memref<i64>) -> tensor<f32> {
  %seed = sigreg.advance_step %step : memref<i64>
  %l = sigreg.loss %x seed(%seed) slices = 4 : tensor<8x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}
