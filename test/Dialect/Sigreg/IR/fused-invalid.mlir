// RUN: sigreg-opt %s -split-input-file -verify-diagnostics

// One case per diagnostic of the verifiers of sigreg.fused_ecf and
// sigreg.fused_epilogue (lib/Dialect/Sigreg/IR/SigregOps.cpp).

//===----------------------------------------------------------------------===//
// sigreg.fused_ecf
//===----------------------------------------------------------------------===//

func.func @ecf_input_rank2(%x: tensor<4x16xf32>, %a: tensor<16x8xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op expects input of rank 3 ([V, N, D]), got 'tensor<4x16xf32>'}}
  %c, %s = sigreg.fused_ecf %x, %a : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<1x8x17xf32>
  return
}

// -----

func.func @ecf_input_zero_dim(%x: tensor<1x0x16xf32>, %a: tensor<16x8xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op expects input dimensions to be positive, got shape [1, 0, 16]}}
  %c, %s = sigreg.fused_ecf %x, %a : tensor<1x0x16xf32>, tensor<16x8xf32> -> tensor<1x8x17xf32>
  return
}

// -----

func.func @ecf_input_dynamic_d(%x: tensor<1x4x?xf32>, %a: tensor<16x8xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op expects input dimension 2 to be static ([V, N, D]), got shape [1, 4, ?]}}
  %c, %s = sigreg.fused_ecf %x, %a : tensor<1x4x?xf32>, tensor<16x8xf32> -> tensor<1x8x17xf32>
  return
}

// -----

func.func @ecf_input_dynamic_v(%x: tensor<?x4x16xf32>, %a: tensor<16x8xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op expects input dimension 0 to be static ([V, N, D]), got shape [?, 4, 16]}}
  %c, %s = sigreg.fused_ecf %x, %a : tensor<?x4x16xf32>, tensor<16x8xf32> -> tensor<1x8x17xf32>
  return
}

// -----

func.func @ecf_projection_rank(%x: tensor<1x4x16xf32>, %a: tensor<16xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op expects projection of rank 2 ([D, S]), got 'tensor<16xf32>'}}
  %c, %s = sigreg.fused_ecf %x, %a : tensor<1x4x16xf32>, tensor<16xf32> -> tensor<1x8x17xf32>
  return
}

// -----

func.func @ecf_projection_dynamic(%x: tensor<1x4x16xf32>, %a: tensor<16x?xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op expects projection dimension 1 to be static ([D, S]), got shape [16, ?]}}
  %c, %s = sigreg.fused_ecf %x, %a : tensor<1x4x16xf32>, tensor<16x?xf32> -> tensor<1x8x17xf32>
  return
}

// -----

func.func @ecf_feature_mismatch(%x: tensor<1x4x16xf32>, %a: tensor<12x8xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op feature dimension mismatch: input has D = 16 but projection has D = 12}}
  %c, %s = sigreg.fused_ecf %x, %a : tensor<1x4x16xf32>, tensor<12x8xf32> -> tensor<1x8x17xf32>
  return
}

// -----

func.func @ecf_result_rank(%x: tensor<1x4x16xf32>, %a: tensor<16x8xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op expects result of rank 3 ([V, S, P]), got 'tensor<8x17xf32>'}}
  %c, %s = sigreg.fused_ecf %x, %a : tensor<1x4x16xf32>, tensor<16x8xf32> -> tensor<8x17xf32>
  return
}

// -----

func.func @ecf_result_dynamic(%x: tensor<1x4x16xf32>, %a: tensor<16x8xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op expects result dimension 2 to be static ([V, S, P]), got shape [1, 8, ?]}}
  %c, %s = sigreg.fused_ecf %x, %a : tensor<1x4x16xf32>, tensor<16x8xf32> -> tensor<1x8x?xf32>
  return
}

// -----

func.func @ecf_result_slices(%x: tensor<1x4x16xf32>, %a: tensor<16x8xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op expects result of shape [V, S, P] with [V, S] = [1, 8], got [1, 7, 17]}}
  %c, %s = sigreg.fused_ecf %x, %a : tensor<1x4x16xf32>, tensor<16x8xf32> -> tensor<1x7x17xf32>
  return
}

// -----

func.func @ecf_result_views(%x: tensor<2x4x16xf32>, %a: tensor<16x8xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op expects result of shape [V, S, P] with [V, S] = [2, 8], got [1, 8, 17]}}
  %c, %s = sigreg.fused_ecf %x, %a : tensor<2x4x16xf32>, tensor<16x8xf32> -> tensor<1x8x17xf32>
  return
}

// -----

func.func @ecf_even_points(%x: tensor<1x4x16xf32>, %a: tensor<16x8xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op number of integration points must be odd and >= 3, got 16}}
  %c, %s = sigreg.fused_ecf %x, %a : tensor<1x4x16xf32>, tensor<16x8xf32> -> tensor<1x8x16xf32>
  return
}

// -----

func.func @ecf_one_point(%x: tensor<1x4x16xf32>, %a: tensor<16x8xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op number of integration points must be odd and >= 3, got 1}}
  %c, %s = sigreg.fused_ecf %x, %a : tensor<1x4x16xf32>, tensor<16x8xf32> -> tensor<1x8x1xf32>
  return
}

// -----

func.func @ecf_t_max_zero(%x: tensor<1x4x16xf32>, %a: tensor<16x8xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op t_max must be positive and finite, got 0}}
  %c, %s = sigreg.fused_ecf %x, %a t_max = 0.0 : tensor<1x4x16xf32>, tensor<16x8xf32> -> tensor<1x8x17xf32>
  return
}

// -----

func.func @ecf_t_max_negative(%x: tensor<1x4x16xf32>, %a: tensor<16x8xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op t_max must be positive and finite, got -1}}
  %c, %s = sigreg.fused_ecf %x, %a t_max = -1.0 : tensor<1x4x16xf32>, tensor<16x8xf32> -> tensor<1x8x17xf32>
  return
}

// -----

// ODS constraints: element types and matching cos/sin types.
func.func @ecf_input_i32(%x: tensor<1x4x16xi32>, %a: tensor<16x8xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op operand #0 must be ranked tensor of bfloat16 type or 16-bit float or 32-bit float values, but got 'tensor<1x4x16xi32>'}}
  %c, %s = sigreg.fused_ecf %x, %a : tensor<1x4x16xi32>, tensor<16x8xf32> -> tensor<1x8x17xf32>
  return
}

// -----

func.func @ecf_result_f16(%x: tensor<1x4x16xf32>, %a: tensor<16x8xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op result #0 must be ranked tensor of 32-bit float values, but got 'tensor<1x8x17xf16>'}}
  %c, %s = sigreg.fused_ecf %x, %a : tensor<1x4x16xf32>, tensor<16x8xf32> -> tensor<1x8x17xf16>
  return
}

// -----

func.func @ecf_cos_sin_mismatch(%x: tensor<1x4x16xf32>, %a: tensor<16x8xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op failed to verify that all of {cos, sin} have same type}}
  %c, %s = "sigreg.fused_ecf"(%x, %a) : (tensor<1x4x16xf32>, tensor<16x8xf32>) -> (tensor<1x8x17xf32>, tensor<1x8x9xf32>)
  return
}

//===----------------------------------------------------------------------===//
// sigreg.fused_epilogue
//===----------------------------------------------------------------------===//

// -----

func.func @epi_rank2(%c: tensor<8x17xf32>, %s: tensor<8x17xf32>, %n: index) {
  // expected-error @+1 {{'sigreg.fused_epilogue' op expects ECF operands of rank 3 ([V, S, P]), got 'tensor<8x17xf32>'}}
  %r = sigreg.fused_epilogue %c, %s, %n : tensor<8x17xf32> -> tensor<f32>
  return
}

// -----

func.func @epi_dynamic(%c: tensor<1x?x17xf32>, %s: tensor<1x?x17xf32>, %n: index) {
  // expected-error @+1 {{'sigreg.fused_epilogue' op expects ECF operands dimension 1 to be static ([V, S, P]), got shape [1, ?, 17]}}
  %r = sigreg.fused_epilogue %c, %s, %n : tensor<1x?x17xf32> -> tensor<f32>
  return
}

// -----

func.func @epi_even_points(%c: tensor<1x8x4xf32>, %s: tensor<1x8x4xf32>, %n: index) {
  // expected-error @+1 {{'sigreg.fused_epilogue' op number of integration points must be odd and >= 3, got 4}}
  %r = sigreg.fused_epilogue %c, %s, %n : tensor<1x8x4xf32> -> tensor<f32>
  return
}

// -----

func.func @epi_t_max(%c: tensor<1x8x5xf32>, %s: tensor<1x8x5xf32>, %n: index) {
  // expected-error @+1 {{'sigreg.fused_epilogue' op t_max must be positive and finite, got -2}}
  %r = sigreg.fused_epilogue %c, %s, %n t_max = -2.0 : tensor<1x8x5xf32> -> tensor<f32>
  return
}

// -----

func.func @epi_clip_value_none(%c: tensor<1x8x5xf32>, %s: tensor<1x8x5xf32>, %n: index) {
  // expected-error @+1 {{'sigreg.fused_epilogue' op clip_value 5.000000e-01 is set but the clip mode is 'none'}}
  %r = sigreg.fused_epilogue %c, %s, %n clip = none(0.5) : tensor<1x8x5xf32> -> tensor<f32>
  return
}

// -----

func.func @epi_clip_value_inf(%c: tensor<1x8x5xf32>, %s: tensor<1x8x5xf32>, %n: index) {
  // expected-error @+1 {{'sigreg.fused_epilogue' op clip_value must be finite, got INF}}
  %r = "sigreg.fused_epilogue"(%c, %s, %n) <{clip = 2 : i32, clip_value = 0x7FF0000000000000 : f64}> : (tensor<1x8x5xf32>, tensor<1x8x5xf32>, index) -> tensor<f32>
  return
}

// -----

func.func @epi_none_shape(%c: tensor<1x8x5xf32>, %s: tensor<1x8x5xf32>, %n: index) {
  // expected-error @+1 {{'sigreg.fused_epilogue' op reduction 'none' expects the result type to equal the statistics type 'tensor<1x8xf32>', got 'tensor<8xf32>'}}
  %r = sigreg.fused_epilogue %c, %s, %n reduction = none : tensor<1x8x5xf32> -> tensor<8xf32>
  return
}

// -----

func.func @epi_mean_rank1(%c: tensor<1x8x5xf32>, %s: tensor<1x8x5xf32>, %n: index) {
  // expected-error @+1 {{'sigreg.fused_epilogue' op reduction 'mean' expects a 0-d result tensor<f32>, got 'tensor<1x8xf32>'}}
  %r = sigreg.fused_epilogue %c, %s, %n : tensor<1x8x5xf32> -> tensor<1x8xf32>
  return
}

// -----

func.func @epi_sum_rank1(%c: tensor<1x8x5xf32>, %s: tensor<1x8x5xf32>, %n: index) {
  // expected-error @+1 {{'sigreg.fused_epilogue' op reduction 'sum' expects a 0-d result tensor<f32>, got 'tensor<8xf32>'}}
  %r = sigreg.fused_epilogue %c, %s, %n reduction = sum : tensor<1x8x5xf32> -> tensor<8xf32>
  return
}

// -----

func.func @epi_cos_sin_mismatch(%c: tensor<1x8x5xf32>, %s: tensor<1x8x7xf32>, %n: index) {
  // expected-error @+1 {{'sigreg.fused_epilogue' op failed to verify that all of {cos, sin} have same type}}
  %r = "sigreg.fused_epilogue"(%c, %s, %n) : (tensor<1x8x5xf32>, tensor<1x8x7xf32>, index) -> tensor<f32>
  return
}

// -----

func.func @bwd_feature_mismatch(%x: tensor<1x8x16xbf16>, %a: tensor<32x8xbf16>, %c: tensor<1x8x5xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf_backward' op feature dimension mismatch: input has D = 16 but projection has D = 32}}
  %dx = sigreg.fused_ecf_backward %x, %a, %c, %c : tensor<1x8x16xbf16>, tensor<32x8xbf16>, tensor<1x8x5xf32> -> tensor<1x8x16xf32>
  return
}

// -----

func.func @bwd_cotangent_shape(%x: tensor<2x8x16xbf16>, %a: tensor<16x8xbf16>, %c: tensor<1x8x5xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf_backward' op expects ECF cotangents of shape [V, S, P] with [V, S] = [2, 8], got [1, 8, 5]}}
  %dx = sigreg.fused_ecf_backward %x, %a, %c, %c : tensor<2x8x16xbf16>, tensor<16x8xbf16>, tensor<1x8x5xf32> -> tensor<2x8x16xf32>
  return
}

// -----

func.func @bwd_result_shape(%x: tensor<1x8x16xbf16>, %a: tensor<16x8xbf16>, %c: tensor<1x8x5xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf_backward' op expects result of shape [V, N, D] = [1, 8, 16], got [1, 8, 8]}}
  %dx = sigreg.fused_ecf_backward %x, %a, %c, %c : tensor<1x8x16xbf16>, tensor<16x8xbf16>, tensor<1x8x5xf32> -> tensor<1x8x8xf32>
  return
}

// -----

// dL/dx rounded: to the input's element type only.
func.func @bwd_result_type(%x: tensor<1x8x16xbf16>, %a: tensor<16x8xbf16>, %c: tensor<1x8x5xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf_backward' op expects an f32 result or one in the input's element type 'bf16', got 'f16'}}
  %dx = sigreg.fused_ecf_backward %x, %a, %c, %c : tensor<1x8x16xbf16>, tensor<16x8xbf16>, tensor<1x8x5xf32> -> tensor<1x8x16xf16>
  return
}

// -----

func.func @bwd_even_points(%x: tensor<1x8x16xbf16>, %a: tensor<16x8xbf16>, %c: tensor<1x8x4xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf_backward' op}}
  %dx = sigreg.fused_ecf_backward %x, %a, %c, %c : tensor<1x8x16xbf16>, tensor<16x8xbf16>, tensor<1x8x4xf32> -> tensor<1x8x16xf32>
  return
}

// -----

func.func @slices_result_shape(%x: tensor<1x8x16xbf16>, %a: tensor<16x8xbf16>) -> tensor<1x8x16xf32> {
  // expected-error @+1 {{'sigreg.fused_ecf' op expects slices result of shape [V, N, S] = [1, 8, 8], got [1, 8, 16]}}
  %c, %s, %y = sigreg.fused_ecf %x, %a : tensor<1x8x16xbf16>, tensor<16x8xbf16> -> tensor<1x8x5xf32>, slices tensor<1x8x16xf32>
  return %y : tensor<1x8x16xf32>
}

// -----

func.func @slices_element(%x: tensor<1x8x16xbf16>, %a: tensor<16x8xbf16>) -> tensor<1x8x8xf16> {
  // expected-error @+1 {{'sigreg.fused_ecf' op result #2 must be ranked tensor of 32-bit float or 16-bit signless integer values, but got 'tensor<1x8x8xf16>'}}
  %c, %s, %y = sigreg.fused_ecf %x, %a : tensor<1x8x16xbf16>, tensor<16x8xbf16> -> tensor<1x8x5xf32>, slices tensor<1x8x8xf16>
  return %y : tensor<1x8x8xf16>
}

// -----

func.func @slices_operand_shape(%x: tensor<2x8x16xbf16>, %a: tensor<16x8xbf16>, %c: tensor<2x8x5xf32>, %y: tensor<1x8x8xf32>) -> tensor<2x8x16xf32> {
  // expected-error @+1 {{'sigreg.fused_ecf_backward' op expects slices operand of shape [V, N, S] = [2, 8, 8], got [1, 8, 8]}}
  %dx = sigreg.fused_ecf_backward %x, %a, %c, %c slices(%y : tensor<1x8x8xf32>) : tensor<2x8x16xbf16>, tensor<16x8xbf16>, tensor<2x8x5xf32> -> tensor<2x8x16xf32>
  return %dx : tensor<2x8x16xf32>
}
