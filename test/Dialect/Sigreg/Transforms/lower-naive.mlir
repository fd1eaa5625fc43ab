// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-lower-naive | FileCheck %s
// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-lower-naive | FileCheck %s --check-prefix=NOSIGREG
// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-lower-naive --mlir-print-elementsattrs-with-hex-if-larger=1 | FileCheck %s --check-prefix=GRID

// --sigreg-lower-naive turns the mid-level ops into linalg on tensors with the
// intermediates of eager PyTorch: A[D, S] is generated (Philox4x32-10 +
// Box-Muller) and normalized, y[V, N, S] = x A, and args = y * t, cos(args),
// sin(args) are materialized as [V, N, S, P] tensors before the batch mean.

// No sigreg op survives.
// NOSIGREG-NOT: = sigreg.

// Rank 2, dynamic N, bf16, seed, S = 77, P = 9, zero_below, reduction none.
// CHECK-DAG:   #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[$COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG:   #[[$X:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG:   #[[$A:.*]] = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
// CHECK-DAG:   #[[$Y:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG:   #[[$T:.*]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-DAG:   #[[$ID4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG:   #[[$MEAN:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG:   #[[$ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG:   #[[$P:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG:   #[[$VS:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @rank2_dynamic_bf16(
// CHECK-SAME:      %[[XIN:.*]]: tensor<?x129xbf16>, %[[SEED:.*]]: i64) -> tensor<77xf32>
// CHECK:         %[[X3:.*]] = tensor.expand_shape %[[XIN]]
//
// Projection: g[d, s] from Philox4x32-10 keyed by the seed, counter (d, s).
// CHECK:         %[[G0:.*]] = tensor.empty() : tensor<129x77xf32>
// CHECK:         %[[G:.*]] = linalg.generic {indexing_maps = [#[[$ID2]]], iterator_types = ["parallel", "parallel"]} outs(%[[G0]] : tensor<129x77xf32>)
// CHECK-DAG:       linalg.index 0 : index
// CHECK-DAG:       linalg.index 1 : index
// CHECK-DAG:       arith.trunci %[[SEED]] : i64 to i32
// CHECK-DAG:       arith.constant 32 : i64
// Philox multipliers 0xD2511F53, 0xCD9E8D57 and Weyl increments 0x9E3779B9,
// 0xBB67AE85, as signed i32.
// CHECK-DAG:       %[[M0:.*]] = arith.constant -766435501 : i32
// CHECK-DAG:       %[[M1:.*]] = arith.constant -845247145 : i32
// CHECK-DAG:       arith.constant -1640531527 : i32
// CHECK-DAG:       arith.constant -1150833019 : i32
// Ten rounds, two 32x32->64 multiplies each (hi/lo of M0 * c0, M1 * c2).
// CHECK:           arith.mului_extended %[[M0]], %{{.*}} : i32
// CHECK:           arith.mului_extended %[[M1]], %{{.*}} : i32
// CHECK-COUNT-18:  arith.mului_extended %{{.*}}, %{{.*}} : i32
// CHECK-NOT:       arith.mului_extended
// Box-Muller: sqrt(-2 log u1) * cos(2 pi u2), evaluated with polynomials.
// CHECK:           math.fma
// CHECK:           math.sqrt
// CHECK:           arith.constant 1.57079637 : f32
// CHECK:           linalg.yield %{{.*}} : f32
// CHECK-NEXT:    } -> tensor<129x77xf32>
// Column norms: sum_d g^2 (d reduced), sqrt, divide.
// CHECK:         %[[SS:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$COL]]], iterator_types = ["reduction", "parallel"]} ins(%[[G]] : tensor<129x77xf32>) outs(%{{.*}} : tensor<77xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         %[[NORM:.*]] = linalg.generic {{.*}} ins(%[[SS]] : tensor<77xf32>)
// CHECK:           math.sqrt
// CHECK:         %[[AN:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$COL]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[G]], %[[NORM]] : tensor<129x77xf32>, tensor<77xf32>) outs(%{{.*}} : tensor<129x77xf32>)
// CHECK:           arith.divf
//
// Project: y = x A with the bf16 input extended to f32 inside the GEMM.
// CHECK:         %[[N:.*]] = tensor.dim %[[X3]], %{{.*}} : tensor<1x?x129xbf16>
// CHECK:         %[[Y0:.*]] = tensor.empty(%[[N]]) : tensor<1x?x77xf32>
// CHECK:         %[[YZ:.*]] = linalg.generic {{.*}} outs(%[[Y0]] : tensor<1x?x77xf32>) attrs = {sigreg.region = "projection_gemm"}
// CHECK-NEXT:    ^bb0(%{{.*}}: f32):
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      linalg.yield %[[ZERO]] : f32
// CHECK:         %[[Y:.*]] = linalg.generic {indexing_maps = [#[[$X]], #[[$A]], #[[$Y]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[X3]], %[[AN]] : tensor<1x?x129xbf16>, tensor<129x77xf32>) outs(%[[YZ]] : tensor<1x?x77xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: bf16, %[[IA:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT:      %[[E:.*]] = arith.extf %[[IN]] : bf16 to f32
// CHECK-NEXT:      %[[PR:.*]] = arith.mulf %[[E]], %[[IA]] : f32
// CHECK-NEXT:      %[[AC:.*]] = arith.addf %[[OUT]], %[[PR]] : f32
// CHECK-NEXT:      linalg.yield %[[AC]] : f32
//
// ECF: the [V, N, S, P] = [1, ?, 77, 9] tensors args, cos and sin.
// CHECK:         %[[TC:.*]] = arith.constant dense<[0.000000e+00, 3.750000e-01, 7.500000e-01, 1.125000e+00, 1.500000e+00, 1.875000e+00, 2.250000e+00, 2.625000e+00, 3.000000e+00]> : tensor<9xf32>
// CHECK:         %[[NY:.*]] = tensor.dim %[[Y]], %{{.*}} : tensor<1x?x77xf32>
// CHECK:         %[[ARGS0:.*]] = tensor.empty(%[[NY]]) : tensor<1x?x77x9xf32>
// CHECK:         %[[ARGS:.*]] = linalg.generic {indexing_maps = [#[[$Y]], #[[$T]], #[[$ID4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[Y]], %[[TC]] : tensor<1x?x77xf32>, tensor<9xf32>) outs(%[[ARGS0]] : tensor<1x?x77x9xf32>)
// CHECK:           arith.mulf
// CHECK:         %[[COS0:.*]] = tensor.empty(%[[NY]]) : tensor<1x?x77x9xf32>
// CHECK:         %[[COS:.*]] = linalg.generic {indexing_maps = [#[[$ID4]], #[[$ID4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[ARGS]] : tensor<1x?x77x9xf32>) outs(%[[COS0]] : tensor<1x?x77x9xf32>)
// CHECK-NEXT:    ^bb0(%[[CI:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[CV:.*]] = math.cos %[[CI]] : f32
// CHECK-NEXT:      linalg.yield %[[CV]] : f32
// CHECK:         %[[SIN0:.*]] = tensor.empty(%[[NY]]) : tensor<1x?x77x9xf32>
// CHECK:         %[[SIN:.*]] = linalg.generic {indexing_maps = [#[[$ID4]], #[[$ID4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[ARGS]] : tensor<1x?x77x9xf32>) outs(%[[SIN0]] : tensor<1x?x77x9xf32>)
// CHECK-NEXT:    ^bb0(%[[SI:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[SV:.*]] = math.sin %[[SI]] : f32
// CHECK-NEXT:      linalg.yield %[[SV]] : f32
// Batch mean: sum over n, divide by N (as f32).
// CHECK:         %[[NI:.*]] = arith.index_cast %[[NY]] : index to i64
// CHECK-NEXT:    %[[NF:.*]] = arith.sitofp %[[NI]] : i64 to f32
// CHECK:         %[[CSUM:.*]] = linalg.generic {indexing_maps = [#[[$ID4]], #[[$MEAN]]], iterator_types = ["parallel", "reduction", "parallel", "parallel"]} ins(%[[COS]] : tensor<1x?x77x9xf32>) outs(%{{.*}} : tensor<1x77x9xf32>)
// CHECK:         %[[CMEAN:.*]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$ID3]]], {{.*}} ins(%[[CSUM]] : tensor<1x77x9xf32>)
// CHECK:           arith.divf %{{.*}}, %[[NF]] : f32
// CHECK:         %[[SSUM:.*]] = linalg.generic {indexing_maps = [#[[$ID4]], #[[$MEAN]]], iterator_types = ["parallel", "reduction", "parallel", "parallel"]} ins(%[[SIN]] : tensor<1x?x77x9xf32>) outs(%{{.*}} : tensor<1x77x9xf32>)
// CHECK:         %[[SMEAN:.*]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$ID3]]], {{.*}} ins(%[[SSUM]] : tensor<1x77x9xf32>)
// CHECK:           arith.divf %{{.*}}, %[[NF]] : f32
//
// Epps-Pulley: ((c - phi)^2 + s^2) . w, times the global count, clipped.
// CHECK:         %[[NG:.*]] = tensor.dim %[[X3]], %{{.*}} : tensor<1x?x129xbf16>
// CHECK:         %[[PHI:.*]] = arith.constant dense<[1.000000e+00, 0.932102501, 0.754839599, 5.310960e-01, 0.324652463, 0.172421619, 0.0795595124, 0.0318947919, 0.0111089963]> : tensor<9xf32>
// CHECK:         %[[W:.*]] = arith.constant dense<[3.750000e-01, 0.699076891, 0.566129684, 3.983220e-01, 0.243489355, 0.129316211, 0.0596696325, 0.0239210948, 0.00416587386]> : tensor<9xf32>
// CHECK:         %[[ERR:.*]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$ID3]], #[[$P]], #[[$ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[CMEAN]], %[[SMEAN]], %[[PHI]] : tensor<1x77x9xf32>, tensor<1x77x9xf32>, tensor<9xf32>)
// CHECK-NEXT:    ^bb0(%[[EC:.*]]: f32, %[[ES:.*]]: f32, %[[EP:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[EC]], %[[EP]] : f32
// CHECK-NEXT:      %[[D2:.*]] = arith.mulf %[[D]], %[[D]] : f32
// CHECK-NEXT:      %[[S2:.*]] = arith.mulf %[[ES]], %[[ES]] : f32
// CHECK-NEXT:      %[[SQ:.*]] = arith.addf %[[D2]], %[[S2]] : f32
// CHECK-NEXT:      linalg.yield %[[SQ]] : f32
// CHECK:         %[[DOT:.*]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$P]], #[[$VS]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[ERR]], %[[W]] : tensor<1x77x9xf32>, tensor<9xf32>) outs(%{{.*}} : tensor<1x77xf32>)
// CHECK:         %[[NGI:.*]] = arith.index_cast %[[NG]] : index to i64
// CHECK-NEXT:    %[[NGF:.*]] = arith.sitofp %[[NGI]] : i64 to f32
// CHECK:         %[[STAT:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[DOT]] : tensor<1x77xf32>)
// CHECK-NEXT:    ^bb0(%[[TI:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[TS:.*]] = arith.mulf %[[TI]], %[[NGF]] : f32
// zero_below(1.5): T < 1.5 becomes 0.
// CHECK-DAG:       %[[CLIP:.*]] = arith.constant 1.500000e+00 : f32
// CHECK-DAG:       %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:           %[[BELOW:.*]] = arith.cmpf olt, %[[TS]], %[[CLIP]] : f32
// CHECK-NEXT:      %[[CL:.*]] = arith.select %[[BELOW]], %[[ZERO]], %[[TS]] : f32
// CHECK-NEXT:      linalg.yield %[[CL]] : f32
// Reduction none: the statistics themselves, collapsed to [S].
// CHECK:         %[[R:.*]] = tensor.collapse_shape %[[STAT]] {{\[\[}}0, 1]] : tensor<1x77xf32> into tensor<77xf32>
// CHECK-NEXT:    return %[[R]] : tensor<77xf32>
func.func @rank2_dynamic_bf16(%x: tensor<?x129xbf16>, %seed: i64) -> tensor<77xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 77 points = 9 clip = zero_below(1.5) reduction = none : tensor<?x129xbf16> -> tensor<77xf32>
  return %l : tensor<77xf32>
}

// -----

// Rank 3, static shape, f32: the [V, N, S, P] = [3, 37, 77, 9] tensors are
// static; clamp_min is a maximumf; mean divides the sum by V * S = 231.
// CHECK-LABEL: func.func @rank3_static_clamp_mean(
// CHECK-NOT:     arith.extf
// CHECK:         tensor.empty() : tensor<3x37x77xf32>
// CHECK-COUNT-3: tensor.empty() : tensor<3x37x77x9xf32>
// CHECK-NOT:     tensor.empty() : tensor<3x37x77x9xf32>
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(
// CHECK:           %[[TS:.*]] = arith.mulf
// CHECK-NEXT:      %[[C:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:      %[[M:.*]] = arith.maximumf %[[TS]], %[[C]] : f32
// CHECK-NEXT:      linalg.yield %[[M]] : f32
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%{{.*}} : tensor<3x77xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK:           arith.addf
// CHECK:         %[[MEAN:.*]] = linalg.generic {{.*}} iterator_types = []} ins(%[[SUM]] : tensor<f32>)
// CHECK:           %[[VS:.*]] = arith.constant 2.310000e+02 : f32
// CHECK-NEXT:      arith.divf %{{.*}}, %[[VS]] : f32
// CHECK:         return %[[MEAN]] : tensor<f32>
func.func @rank3_static_clamp_mean(%x: tensor<3x37x129xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 77 points = 9 clip = clamp_min(0.5) : tensor<3x37x129xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Explicit f16 projection, no clip, reduction sum: no generator, both GEMM
// operands are extended, no clipping ops, and the sum is not divided.
// CHECK-LABEL: func.func @projection_f16_sum(
// CHECK-SAME:      %[[X:.*]]: tensor<2x5x16xf16>, %[[A:.*]]: tensor<16x4xf16>)
// CHECK-NOT:     arith.mului_extended
// CHECK:         linalg.generic {{.*}} ins(%[[X]], %[[A]] : tensor<2x5x16xf16>, tensor<16x4xf16>) outs(%{{.*}} : tensor<2x5x4xf32>)
// CHECK-NEXT:    ^bb0(%[[I0:.*]]: f16, %[[I1:.*]]: f16, %{{.*}}: f32):
// CHECK-DAG:       arith.extf %[[I0]] : f16 to f32
// CHECK-DAG:       arith.extf %[[I1]] : f16 to f32
// CHECK-COUNT-3: tensor.empty() : tensor<2x5x4x5xf32>
// CHECK-NOT:     arith.maximumf
// CHECK-NOT:     arith.cmpf
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]} ins(%{{.*}} : tensor<2x4xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK-NOT:     arith.divf
// CHECK:         return %[[SUM]] : tensor<f32>
//
// Integration grid for P = 5, t_max = 3, checked bit for bit (little-endian
// f32) against values computed independently in Python:
//   dt = 0.75, t_p = p dt           = [0, 0.75, 1.5, 2.25, 3]
//   phi_p = exp(-t_p^2 / 2)         = [1, 0.7548396, 0.32465246, 0.07955951, 0.011108996]
//   w_p = (1 or 2) dt phi_p         = [0.75, 1.1322594, 0.4869787, 0.119339265, 0.008331748]
// GRID-LABEL: func.func @projection_f16_sum(
// GRID:         arith.constant dense<"0x000000000000403F0000C03F0000104000004040"> : tensor<5xf32>
// GRID:         arith.constant dense<"0x0000803F2B3D413FD938A63E19F0A23D8202363C"> : tensor<5xf32>
// GRID-NEXT:    arith.constant dense<"0x0000403FE0ED903F4655F93E2568F43DE281083C"> : tensor<5xf32>
func.func @projection_f16_sum(%x: tensor<2x5x16xf16>, %a: tensor<16x4xf16>) -> tensor<f32> {
  %l = sigreg.loss %x projection(%a : tensor<16x4xf16>) slices = 4 points = 5 reduction = sum : tensor<2x5x16xf16> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// P = 3, t_max = 2: dt = 1, t = [0, 1, 2], phi = [1, exp(-1/2), exp(-2)]
// = [1, 0.60653067, 0.13533528], w = [1, 2 exp(-1/2), exp(-2)]
// = [1, 1.2130613, 0.13533528] (f32, from Python).
// GRID-LABEL: func.func @three_points(
// GRID:         arith.constant dense<"0x000000000000803F00000040"> : tensor<3xf32>
// GRID:         arith.constant dense<"0x0000803F98451B3F55950A3E"> : tensor<3xf32>
// GRID-NEXT:    arith.constant dense<"0x0000803F98459B3F55950A3E"> : tensor<3xf32>
func.func @three_points(%x: tensor<4x2xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 3 points = 3 t_max = 2.0 : tensor<4x2xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Mid-level ops given directly (no sigreg.loss) are lowered too; the
// all-reduce with one rank is the identity: the global count is the local one.
// CHECK-LABEL: func.func @mid_level_world_size_1(
// CHECK-SAME:      %[[C:.*]]: tensor<1x2x3xf32>, %[[S:.*]]: tensor<1x2x3xf32>, %[[N:.*]]: index)
// CHECK:         linalg.generic {{.*}} ins(%[[C]], %[[S]], %{{.*}} : tensor<1x2x3xf32>, tensor<1x2x3xf32>, tensor<3xf32>)
// CHECK:         %[[NI:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK-NEXT:    %[[NF:.*]] = arith.sitofp %[[NI]] : i64 to f32
// CHECK:           arith.mulf %{{.*}}, %[[NF]] : f32
func.func @mid_level_world_size_1(%c: tensor<1x2x3xf32>, %s: tensor<1x2x3xf32>, %n: index) -> tensor<1x2xf32> {
  %r:3 = sigreg.all_reduce_mean %c, %s, %n : tensor<1x2x3xf32>
  %t = sigreg.epps_pulley %r#0, %r#1, %r#2 : tensor<1x2x3xf32> -> tensor<1x2xf32>
  return %t : tensor<1x2xf32>
}

// -----

// A step counter: read as the seed, then advanced by one (the counter is in
// the host's memory here; the GPU pipeline reads it in the kernels instead).
// CHECK-LABEL: func.func @advance_step(
// CHECK-SAME:    %{{.*}}: tensor<8x16xf32>, %[[STEP:.*]]: memref<i64>)
// CHECK:         %[[SEED:.*]] = memref.load %[[STEP]][] : memref<i64>
// CHECK:         %[[NEXT:.*]] = arith.addi %[[SEED]], %{{.*}} : i64
// CHECK:         memref.store %[[NEXT]], %[[STEP]][] : memref<i64>
// CHECK:         arith.trunci %[[SEED]]
func.func @advance_step(%x: tensor<8x16xf32>, %step: memref<i64>) -> tensor<f32> {
  %seed = sigreg.advance_step %step : memref<i64>
  %l = sigreg.loss %x seed(%seed) slices = 4 : tensor<8x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}
