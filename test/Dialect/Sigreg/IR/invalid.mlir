// RUN: sigreg-opt %s -split-input-file -verify-diagnostics

// One case per diagnostic of lib/Dialect/Sigreg/IR/SigregOps.cpp, plus the
// element types rejected by the ODS type constraints of SigregOps.td.

// Rank.
func.func @loss_rank1(%x: tensor<16xf32>, %seed: i64) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op expects input of rank 2 ([N, D]) or 3 ([V, N, D]), got 'tensor<16xf32>'}}
  %l = sigreg.loss %x seed(%seed) slices = 8 : tensor<16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @loss_rank4(%x: tensor<1x2x4x16xf32>, %seed: i64) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op expects input of rank 2 ([N, D]) or 3 ([V, N, D]), got 'tensor<1x2x4x16xf32>'}}
  %l = sigreg.loss %x seed(%seed) slices = 8 : tensor<1x2x4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Dynamic feature dimension.
func.func @loss_dynamic_d(%x: tensor<4x?xf32>, %seed: i64) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op expects input dimension 1 to be static ([N, D]), got shape [4, ?]}}
  %l = sigreg.loss %x seed(%seed) slices = 8 : tensor<4x?xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @loss_dynamic_d_rank3(%x: tensor<2x4x?xf32>, %seed: i64) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op expects input dimension 2 to be static ([V, N, D]), got shape [2, 4, ?]}}
  %l = sigreg.loss %x seed(%seed) slices = 8 : tensor<2x4x?xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Dynamic view dimension.
func.func @loss_dynamic_v(%x: tensor<?x4x16xf32>, %seed: i64) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op expects input dimension 0 to be static ([V, N, D]), got shape [?, 4, 16]}}
  %l = sigreg.loss %x seed(%seed) slices = 8 : tensor<?x4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Non-positive dimensions.
func.func @loss_zero_batch(%x: tensor<0x16xf32>, %seed: i64) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op expects input dimensions to be positive, got shape [0, 16]}}
  %l = sigreg.loss %x seed(%seed) slices = 8 : tensor<0x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @loss_zero_views(%x: tensor<0x4x16xf32>, %seed: i64) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op expects input dimensions to be positive, got shape [0, 4, 16]}}
  %l = sigreg.loss %x seed(%seed) slices = 8 : tensor<0x4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Neither seed nor projection.
func.func @loss_no_projection(%x: tensor<4x16xf32>) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op expects exactly one of 'seed' or 'projection'}}
  %l = sigreg.loss %x slices = 8 : tensor<4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Both seed and projection.
func.func @loss_seed_and_projection(%x: tensor<4x16xf32>, %seed: i64, %a: tensor<16x8xf32>) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op expects exactly one of 'seed' or 'projection'}}
  %l = sigreg.loss %x seed(%seed) projection(%a : tensor<16x8xf32>) slices = 8 : tensor<4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @loss_zero_slices(%x: tensor<4x16xf32>, %seed: i64) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op num_slices must be positive, got 0}}
  %l = sigreg.loss %x seed(%seed) slices = 0 : tensor<4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @loss_negative_slices(%x: tensor<4x16xf32>, %seed: i64) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op num_slices must be positive, got -3}}
  %l = sigreg.loss %x seed(%seed) slices = -3 : tensor<4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Even number of points.
func.func @loss_even_points(%x: tensor<4x16xf32>, %seed: i64) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op number of integration points must be odd and >= 3, got 16}}
  %l = sigreg.loss %x seed(%seed) slices = 8 points = 16 : tensor<4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// P < 3 (odd).
func.func @loss_one_point(%x: tensor<4x16xf32>, %seed: i64) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op number of integration points must be odd and >= 3, got 1}}
  %l = sigreg.loss %x seed(%seed) slices = 8 points = 1 : tensor<4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @loss_negative_points(%x: tensor<4x16xf32>, %seed: i64) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op number of integration points must be odd and >= 3, got -5}}
  %l = sigreg.loss %x seed(%seed) slices = 8 points = -5 : tensor<4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// t_max <= 0.
func.func @loss_zero_tmax(%x: tensor<4x16xf32>, %seed: i64) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op t_max must be positive and finite, got 0.000000e+00}}
  %l = sigreg.loss %x seed(%seed) slices = 8 t_max = 0.0 : tensor<4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @loss_negative_tmax(%x: tensor<4x16xf32>, %seed: i64) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op t_max must be positive and finite, got -3.000000e+00}}
  %l = sigreg.loss %x seed(%seed) slices = 8 t_max = -3.0 : tensor<4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Non-finite t_max (+inf and NaN as hexadecimal f64 bit patterns).
func.func @loss_inf_tmax(%x: tensor<4x16xf32>, %seed: i64) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op t_max must be positive and finite, got INF}}
  %l = sigreg.loss %x seed(%seed) slices = 8 t_max = 0x7FF0000000000000 : tensor<4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @loss_nan_tmax(%x: tensor<4x16xf32>, %seed: i64) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op t_max must be positive and finite, got nan}}
  %l = sigreg.loss %x seed(%seed) slices = 8 t_max = 0x7FF8000000000000 : tensor<4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Non-finite clip value.
func.func @loss_nan_clip(%x: tensor<4x16xf32>, %seed: i64) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op clip_value must be finite, got nan}}
  %l = sigreg.loss %x seed(%seed) slices = 8 clip = clamp_min(0x7FF8000000000000) : tensor<4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @loss_inf_clip(%x: tensor<4x16xf32>, %seed: i64) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op clip_value must be finite, got -INF}}
  %l = sigreg.loss %x seed(%seed) slices = 8 clip = zero_below(0xFFF0000000000000) : tensor<4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A clip value with clip mode none.
func.func @loss_clip_value_without_mode(%x: tensor<4x16xf32>, %seed: i64) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op clip_value 5.000000e-01 is set but the clip mode is 'none'}}
  %l = sigreg.loss %x seed(%seed) slices = 8 clip = none(0.5) : tensor<4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Projection shape mismatches.
func.func @loss_projection_wrong_s(%x: tensor<4x16xf32>, %a: tensor<16x4xf32>) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op expects projection of shape [D, S] = [16, 8], got [16, 4]}}
  %l = sigreg.loss %x projection(%a : tensor<16x4xf32>) slices = 8 : tensor<4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @loss_projection_wrong_d(%x: tensor<3x4x16xf32>, %a: tensor<15x8xf32>) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op expects projection of shape [D, S] = [16, 8], got [15, 8]}}
  %l = sigreg.loss %x projection(%a : tensor<15x8xf32>) slices = 8 : tensor<3x4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @loss_projection_dynamic(%x: tensor<4x16xf32>, %a: tensor<16x?xf32>) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op expects projection of shape [D, S] = [16, 8], got [16, ?]}}
  %l = sigreg.loss %x projection(%a : tensor<16x?xf32>) slices = 8 : tensor<4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @loss_projection_rank3(%x: tensor<4x16xf32>, %a: tensor<1x16x8xf32>) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op expects projection of shape [D, S] = [16, 8], got [1, 16, 8]}}
  %l = sigreg.loss %x projection(%a : tensor<1x16x8xf32>) slices = 8 : tensor<4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Projection element type differs from the input's.
func.func @loss_projection_dtype(%x: tensor<4x16xbf16>, %a: tensor<16x8xf32>) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op projection element type 'f32' must match the input element type 'bf16'}}
  %l = sigreg.loss %x projection(%a : tensor<16x8xf32>) slices = 8 : tensor<4x16xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Result shapes.
func.func @loss_none_rank2_wrong(%x: tensor<4x16xf32>, %seed: i64) -> tensor<4xf32> {
  // expected-error @+1 {{'sigreg.loss' op reduction 'none' expects a result of shape [8] ([S]), got 'tensor<4xf32>'}}
  %l = sigreg.loss %x seed(%seed) slices = 8 reduction = none : tensor<4x16xf32> -> tensor<4xf32>
  return %l : tensor<4xf32>
}

// -----

func.func @loss_none_rank2_scalar(%x: tensor<4x16xf32>, %seed: i64) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op reduction 'none' expects a result of shape [8] ([S]), got 'tensor<f32>'}}
  %l = sigreg.loss %x seed(%seed) slices = 8 reduction = none : tensor<4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @loss_none_rank3_wrong(%x: tensor<3x4x16xf32>, %seed: i64) -> tensor<8xf32> {
  // expected-error @+1 {{'sigreg.loss' op reduction 'none' expects a result of shape [3, 8] ([V, S]), got 'tensor<8xf32>'}}
  %l = sigreg.loss %x seed(%seed) slices = 8 reduction = none : tensor<3x4x16xf32> -> tensor<8xf32>
  return %l : tensor<8xf32>
}

// -----

func.func @loss_none_dynamic_result(%x: tensor<3x4x16xf32>, %seed: i64) -> tensor<3x?xf32> {
  // expected-error @+1 {{'sigreg.loss' op reduction 'none' expects a result of shape [3, 8] ([V, S]), got 'tensor<3x?xf32>'}}
  %l = sigreg.loss %x seed(%seed) slices = 8 reduction = none : tensor<3x4x16xf32> -> tensor<3x?xf32>
  return %l : tensor<3x?xf32>
}

// -----

func.func @loss_mean_not_scalar(%x: tensor<4x16xf32>, %seed: i64) -> tensor<8xf32> {
  // expected-error @+1 {{'sigreg.loss' op reduction 'mean' expects a 0-d result tensor<f32>, got 'tensor<8xf32>'}}
  %l = sigreg.loss %x seed(%seed) slices = 8 : tensor<4x16xf32> -> tensor<8xf32>
  return %l : tensor<8xf32>
}

// -----

func.func @loss_sum_not_scalar(%x: tensor<3x4x16xf32>, %seed: i64) -> tensor<3x8xf32> {
  // expected-error @+1 {{'sigreg.loss' op reduction 'sum' expects a 0-d result tensor<f32>, got 'tensor<3x8xf32>'}}
  %l = sigreg.loss %x seed(%seed) slices = 8 reduction = sum : tensor<3x4x16xf32> -> tensor<3x8xf32>
  return %l : tensor<3x8xf32>
}

// -----

// Element types rejected by the ODS type constraints.
func.func @loss_f64_input(%x: tensor<4x16xf64>, %seed: i64) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op operand #0 must be ranked tensor of bfloat16 type or 16-bit float or 32-bit float values, but got 'tensor<4x16xf64>'}}
  %l = sigreg.loss %x seed(%seed) slices = 8 : tensor<4x16xf64> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @loss_i32_input(%x: tensor<4x16xi32>, %seed: i64) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op operand #0 must be ranked tensor of bfloat16 type or 16-bit float or 32-bit float values, but got 'tensor<4x16xi32>'}}
  %l = sigreg.loss %x seed(%seed) slices = 8 : tensor<4x16xi32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @loss_unranked_input(%x: tensor<*xf32>, %seed: i64) -> tensor<f32> {
  // expected-error @+1 {{custom op 'sigreg.loss' invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %l = sigreg.loss %x seed(%seed) slices = 8 : tensor<*xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @loss_f64_projection(%x: tensor<4x16xf32>, %a: tensor<16x8xf64>) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op operand #1 must be ranked tensor of bfloat16 type or 16-bit float or 32-bit float values, but got 'tensor<16x8xf64>'}}
  %l = sigreg.loss %x projection(%a : tensor<16x8xf64>) slices = 8 : tensor<4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @loss_i32_seed(%x: tensor<4x16xf32>, %seed: i32) -> tensor<f32> {
  // The custom form types the seed as i64; a wrong type needs the generic form.
  // expected-error @+1 {{'sigreg.loss' op operand #1 must be 64-bit signless integer, but got 'i32'}}
  %l = "sigreg.loss"(%x, %seed) <{num_slices = 8 : i64, operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<4x16xf32>, i32) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @loss_f16_result(%x: tensor<4x16xf32>, %seed: i64) -> tensor<f16> {
  // expected-error @+1 {{'sigreg.loss' op result #0 must be ranked tensor of 32-bit float values, but got 'tensor<f16>'}}
  %l = sigreg.loss %x seed(%seed) slices = 8 : tensor<4x16xf32> -> tensor<f16>
  return %l : tensor<f16>
}

// -----

// sigreg.projection
func.func @projection_rank1(%seed: i64) -> tensor<16xf32> {
  // expected-error @+1 {{'sigreg.projection' op expects result of rank 2 ([D, S]), got 'tensor<16xf32>'}}
  %a = sigreg.projection seed(%seed) : tensor<16xf32>
  return %a : tensor<16xf32>
}

// -----

func.func @projection_dynamic(%seed: i64) -> tensor<16x?xf32> {
  // expected-error @+1 {{'sigreg.projection' op expects result dimension 1 to be static ([D, S]), got shape [16, ?]}}
  %a = sigreg.projection seed(%seed) : tensor<16x?xf32>
  return %a : tensor<16x?xf32>
}

// -----

func.func @projection_zero(%seed: i64) -> tensor<0x8xf32> {
  // expected-error @+1 {{'sigreg.projection' op expects result dimensions to be positive, got shape [0, 8]}}
  %a = sigreg.projection seed(%seed) : tensor<0x8xf32>
  return %a : tensor<0x8xf32>
}

// -----

func.func @projection_bf16(%seed: i64) -> tensor<16x8xbf16> {
  // expected-error @+1 {{'sigreg.projection' op result #0 must be ranked tensor of 32-bit float values, but got 'tensor<16x8xbf16>'}}
  %a = sigreg.projection seed(%seed) : tensor<16x8xbf16>
  return %a : tensor<16x8xbf16>
}

// -----

// sigreg.project
func.func @project_rank2_input(%x: tensor<4x16xf32>, %a: tensor<16x8xf32>) -> tensor<1x4x8xf32> {
  // expected-error @+1 {{'sigreg.project' op expects input of rank 3 ([V, N, D]), got 'tensor<4x16xf32>'}}
  %y = sigreg.project %x, %a : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}

// -----

func.func @project_dynamic_v(%x: tensor<?x4x16xf32>, %a: tensor<16x8xf32>) -> tensor<1x4x8xf32> {
  // expected-error @+1 {{'sigreg.project' op expects input dimension 0 to be static ([V, N, D]), got shape [?, 4, 16]}}
  %y = sigreg.project %x, %a : tensor<?x4x16xf32>, tensor<16x8xf32> -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}

// -----

func.func @project_dynamic_projection(%x: tensor<1x4x16xf32>, %a: tensor<?x8xf32>) -> tensor<1x4x8xf32> {
  // expected-error @+1 {{'sigreg.project' op expects projection dimension 0 to be static ([D, S]), got shape [?, 8]}}
  %y = sigreg.project %x, %a : tensor<1x4x16xf32>, tensor<?x8xf32> -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}

// -----

func.func @project_result_rank(%x: tensor<1x4x16xf32>, %a: tensor<16x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'sigreg.project' op expects result of rank 3 ([V, N, S]), got 'tensor<4x8xf32>'}}
  %y = sigreg.project %x, %a : tensor<1x4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @project_d_mismatch(%x: tensor<1x4x16xf32>, %a: tensor<12x8xf32>) -> tensor<1x4x8xf32> {
  // expected-error @+1 {{'sigreg.project' op feature dimension mismatch: input has D = 16 but projection has D = 12}}
  %y = sigreg.project %x, %a : tensor<1x4x16xf32>, tensor<12x8xf32> -> tensor<1x4x8xf32>
  return %y : tensor<1x4x8xf32>
}

// -----

func.func @project_wrong_s(%x: tensor<2x?x16xf32>, %a: tensor<16x8xf32>) -> tensor<2x?x4xf32> {
  // expected-error @+1 {{'sigreg.project' op expects result of shape [V, N, S] = [2, ?, 8], got [2, ?, 4]}}
  %y = sigreg.project %x, %a : tensor<2x?x16xf32>, tensor<16x8xf32> -> tensor<2x?x4xf32>
  return %y : tensor<2x?x4xf32>
}

// -----

func.func @project_wrong_v(%x: tensor<2x4x16xf32>, %a: tensor<16x8xf32>) -> tensor<3x4x8xf32> {
  // expected-error @+1 {{'sigreg.project' op expects result of shape [V, N, S] = [2, 4, 8], got [3, 4, 8]}}
  %y = sigreg.project %x, %a : tensor<2x4x16xf32>, tensor<16x8xf32> -> tensor<3x4x8xf32>
  return %y : tensor<3x4x8xf32>
}

// -----

func.func @project_wrong_n(%x: tensor<2x4x16xf32>, %a: tensor<16x8xf32>) -> tensor<2x5x8xf32> {
  // expected-error @+1 {{'sigreg.project' op expects result of shape [V, N, S] = [2, 4, 8], got [2, 5, 8]}}
  %y = sigreg.project %x, %a : tensor<2x4x16xf32>, tensor<16x8xf32> -> tensor<2x5x8xf32>
  return %y : tensor<2x5x8xf32>
}

// -----

func.func @project_f16_result(%x: tensor<2x4x16xf32>, %a: tensor<16x8xf32>) -> tensor<2x4x8xf16> {
  // expected-error @+1 {{'sigreg.project' op result #0 must be ranked tensor of 32-bit float values, but got 'tensor<2x4x8xf16>'}}
  %y = sigreg.project %x, %a : tensor<2x4x16xf32>, tensor<16x8xf32> -> tensor<2x4x8xf16>
  return %y : tensor<2x4x8xf16>
}

// -----

// sigreg.ecf
func.func @ecf_slices_rank(%y: tensor<4x8xf32>) -> tensor<1x8x5xf32> {
  // expected-error @+1 {{'sigreg.ecf' op expects slices of rank 3 ([V, N, S]), got 'tensor<4x8xf32>'}}
  %c:2 = sigreg.ecf %y : tensor<4x8xf32> -> tensor<1x8x5xf32>
  return %c#0 : tensor<1x8x5xf32>
}

// -----

func.func @ecf_slices_dynamic_s(%y: tensor<1x4x?xf32>) -> tensor<1x8x5xf32> {
  // expected-error @+1 {{'sigreg.ecf' op expects slices dimension 2 to be static ([V, N, S]), got shape [1, 4, ?]}}
  %c:2 = sigreg.ecf %y : tensor<1x4x?xf32> -> tensor<1x8x5xf32>
  return %c#0 : tensor<1x8x5xf32>
}

// -----

func.func @ecf_result_dynamic_p(%y: tensor<1x4x8xf32>) -> tensor<1x8x?xf32> {
  // expected-error @+1 {{'sigreg.ecf' op expects result dimension 2 to be static ([V, S, P]), got shape [1, 8, ?]}}
  %c:2 = sigreg.ecf %y : tensor<1x4x8xf32> -> tensor<1x8x?xf32>
  return %c#0 : tensor<1x8x?xf32>
}

// -----

func.func @ecf_result_shape(%y: tensor<2x?x8xf32>) -> tensor<2x4x5xf32> {
  // expected-error @+1 {{'sigreg.ecf' op expects result of shape [V, S, P] with [V, S] = [2, 8], got [2, 4, 5]}}
  %c:2 = sigreg.ecf %y : tensor<2x?x8xf32> -> tensor<2x4x5xf32>
  return %c#0 : tensor<2x4x5xf32>
}

// -----

func.func @ecf_result_views(%y: tensor<2x?x8xf32>) -> tensor<1x8x5xf32> {
  // expected-error @+1 {{'sigreg.ecf' op expects result of shape [V, S, P] with [V, S] = [2, 8], got [1, 8, 5]}}
  %c:2 = sigreg.ecf %y : tensor<2x?x8xf32> -> tensor<1x8x5xf32>
  return %c#0 : tensor<1x8x5xf32>
}

// -----

func.func @ecf_even_points(%y: tensor<1x4x8xf32>) -> tensor<1x8x4xf32> {
  // expected-error @+1 {{'sigreg.ecf' op number of integration points must be odd and >= 3, got 4}}
  %c:2 = sigreg.ecf %y : tensor<1x4x8xf32> -> tensor<1x8x4xf32>
  return %c#0 : tensor<1x8x4xf32>
}

// -----

func.func @ecf_one_point(%y: tensor<1x4x8xf32>) -> tensor<1x8x1xf32> {
  // expected-error @+1 {{'sigreg.ecf' op number of integration points must be odd and >= 3, got 1}}
  %c:2 = sigreg.ecf %y : tensor<1x4x8xf32> -> tensor<1x8x1xf32>
  return %c#0 : tensor<1x8x1xf32>
}

// -----

func.func @ecf_negative_tmax(%y: tensor<1x4x8xf32>) -> tensor<1x8x5xf32> {
  // expected-error @+1 {{'sigreg.ecf' op t_max must be positive and finite, got -1.000000e+00}}
  %c:2 = sigreg.ecf %y t_max = -1.0 : tensor<1x4x8xf32> -> tensor<1x8x5xf32>
  return %c#0 : tensor<1x8x5xf32>
}

// -----

func.func @ecf_cos_sin_differ(%y: tensor<1x4x8xf32>) -> tensor<1x8x5xf32> {
  // expected-error @+1 {{'sigreg.ecf' op failed to verify that all of {cos, sin} have same type}}
  %c:2 = "sigreg.ecf"(%y) : (tensor<1x4x8xf32>) -> (tensor<1x8x5xf32>, tensor<1x8x7xf32>)
  return %c#0 : tensor<1x8x5xf32>
}

// -----

// sigreg.all_reduce_mean
func.func @all_reduce_world_zero(%c: tensor<1x8x5xf32>, %n: index) -> tensor<1x8x5xf32> {
  // expected-error @+1 {{'sigreg.all_reduce_mean' op world_size must be >= 1, got 0}}
  %r:3 = sigreg.all_reduce_mean %c, %c, %n world_size = 0 : tensor<1x8x5xf32>
  return %r#0 : tensor<1x8x5xf32>
}

// -----

func.func @all_reduce_rank(%c: tensor<8x5xf32>, %n: index) -> tensor<8x5xf32> {
  // expected-error @+1 {{'sigreg.all_reduce_mean' op expects ECF operands of rank 3 ([V, S, P]), got 'tensor<8x5xf32>'}}
  %r:3 = sigreg.all_reduce_mean %c, %c, %n : tensor<8x5xf32>
  return %r#0 : tensor<8x5xf32>
}

// -----

func.func @all_reduce_dynamic(%c: tensor<1x?x5xf32>, %n: index) -> tensor<1x?x5xf32> {
  // expected-error @+1 {{'sigreg.all_reduce_mean' op expects ECF operands dimension 1 to be static ([V, S, P]), got shape [1, ?, 5]}}
  %r:3 = sigreg.all_reduce_mean %c, %c, %n : tensor<1x?x5xf32>
  return %r#0 : tensor<1x?x5xf32>
}

// -----

func.func @all_reduce_types_differ(%c: tensor<1x8x5xf32>, %s: tensor<1x8x7xf32>, %n: index) -> tensor<1x8x5xf32> {
  // expected-error @+1 {{'sigreg.all_reduce_mean' op failed to verify that all of {cos, sin, cos_global, sin_global} have same type}}
  %r:3 = "sigreg.all_reduce_mean"(%c, %s, %n) : (tensor<1x8x5xf32>, tensor<1x8x7xf32>, index) -> (tensor<1x8x5xf32>, tensor<1x8x7xf32>, index)
  return %r#0 : tensor<1x8x5xf32>
}

// -----

// sigreg.epps_pulley
func.func @epps_pulley_rank(%c: tensor<8x5xf32>, %n: index) -> tensor<8xf32> {
  // expected-error @+1 {{'sigreg.epps_pulley' op expects ECF operands of rank 3 ([V, S, P]), got 'tensor<8x5xf32>'}}
  %t = sigreg.epps_pulley %c, %c, %n : tensor<8x5xf32> -> tensor<8xf32>
  return %t : tensor<8xf32>
}

// -----

func.func @epps_pulley_even_points(%c: tensor<1x8x6xf32>, %n: index) -> tensor<1x8xf32> {
  // expected-error @+1 {{'sigreg.epps_pulley' op number of integration points must be odd and >= 3, got 6}}
  %t = sigreg.epps_pulley %c, %c, %n : tensor<1x8x6xf32> -> tensor<1x8xf32>
  return %t : tensor<1x8xf32>
}

// -----

func.func @epps_pulley_zero_tmax(%c: tensor<1x8x5xf32>, %n: index) -> tensor<1x8xf32> {
  // expected-error @+1 {{'sigreg.epps_pulley' op t_max must be positive and finite, got 0.000000e+00}}
  %t = sigreg.epps_pulley %c, %c, %n t_max = 0.0 : tensor<1x8x5xf32> -> tensor<1x8xf32>
  return %t : tensor<1x8xf32>
}

// -----

func.func @epps_pulley_clip_none(%c: tensor<1x8x5xf32>, %n: index) -> tensor<1x8xf32> {
  // expected-error @+1 {{'sigreg.epps_pulley' op clip_value 2.000000e+00 is set but the clip mode is 'none'}}
  %t = sigreg.epps_pulley %c, %c, %n clip = none(2.0) : tensor<1x8x5xf32> -> tensor<1x8xf32>
  return %t : tensor<1x8xf32>
}

// -----

func.func @epps_pulley_clip_nan(%c: tensor<1x8x5xf32>, %n: index) -> tensor<1x8xf32> {
  // expected-error @+1 {{'sigreg.epps_pulley' op clip_value must be finite, got nan}}
  %t = sigreg.epps_pulley %c, %c, %n clip = zero_below(0x7FF8000000000000) : tensor<1x8x5xf32> -> tensor<1x8xf32>
  return %t : tensor<1x8xf32>
}

// -----

func.func @epps_pulley_result(%c: tensor<2x8x5xf32>, %n: index) -> tensor<8xf32> {
  // expected-error @+1 {{'sigreg.epps_pulley' op expects result of shape [V, S] = [2, 8], got [8]}}
  %t = sigreg.epps_pulley %c, %c, %n : tensor<2x8x5xf32> -> tensor<8xf32>
  return %t : tensor<8xf32>
}

// -----

// sigreg.reduce
func.func @reduce_rank(%t: tensor<8xf32>) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.reduce' op expects statistics of rank 2 ([V, S]), got 'tensor<8xf32>'}}
  %r = sigreg.reduce %t : tensor<8xf32> -> tensor<f32>
  return %r : tensor<f32>
}

// -----

func.func @reduce_dynamic(%t: tensor<?x8xf32>) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.reduce' op expects statistics dimension 0 to be static ([V, S]), got shape [?, 8]}}
  %r = sigreg.reduce %t : tensor<?x8xf32> -> tensor<f32>
  return %r : tensor<f32>
}

// -----

func.func @reduce_none_type(%t: tensor<2x8xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'sigreg.reduce' op reduction 'none' expects the result type to equal the statistics type 'tensor<2x8xf32>', got 'tensor<16xf32>'}}
  %r = sigreg.reduce %t reduction = none : tensor<2x8xf32> -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

func.func @reduce_mean_shape(%t: tensor<2x8xf32>) -> tensor<1xf32> {
  // expected-error @+1 {{'sigreg.reduce' op reduction 'mean' expects a 0-d result tensor<f32>, got 'tensor<1xf32>'}}
  %r = sigreg.reduce %t : tensor<2x8xf32> -> tensor<1xf32>
  return %r : tensor<1xf32>
}

// -----

func.func @reduce_sum_shape(%t: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'sigreg.reduce' op reduction 'sum' expects a 0-d result tensor<f32>, got 'tensor<2x8xf32>'}}
  %r = sigreg.reduce %t reduction = sum : tensor<2x8xf32> -> tensor<2x8xf32>
  return %r : tensor<2x8xf32>
}

// -----

// Unknown enum cases are parse errors.
func.func @loss_bad_clip_mode(%x: tensor<4x16xf32>, %seed: i64) -> tensor<f32> {
  // expected-error @+1 {{custom op 'sigreg.loss' expected string or keyword containing one of the following enum values for attribute 'clip' [none, zero_below, clamp_min]}}
  %l = sigreg.loss %x seed(%seed) slices = 8 clip = clamp(1.0) : tensor<4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// The step counter is one i64.
func.func @advance_step_not_scalar(%step: memref<1xi64>) -> i64 {
  // expected-error @+1 {{'sigreg.advance_step' op operand #0 must be 0D memref of 64-bit signless integer values, but got 'memref<1xi64>'}}
  %seed = "sigreg.advance_step"(%step) : (memref<1xi64>) -> i64
  return %seed : i64
}
