// RUN: sigreg-opt %s -split-input-file -verify-diagnostics

// Issue 11: sizes and knobs the verifiers accepted although they break a
// tool. Every product of V, N, D, S, P a tool forms (and its bytes) must fit
// in 64 bits (sigreg/Reference/Limits.h), P is bounded because the GPU
// kernels unroll it, and t_max is bounded so that t_max * |y| stays finite.

// V*N*D wrapped in the runner's host vectors (a glibc malloc assertion).
func.func @input_overflow(%x: tensor<4x4611686018427387904xf32>, %seed: i64) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op problem too large: V*N*D = 1*4*4611686018427387904 overflows 64 bits}}
  %l = sigreg.loss %x seed(%seed) slices = 8 : tensor<4x4611686018427387904xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// D*S with S = INT64_MAX.
func.func @slices_overflow(%x: tensor<?x16xf32>, %seed: i64) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op problem too large: D*S = 16*9223372036854775807 overflows 64 bits}}
  %l = sigreg.loss %x seed(%seed) slices = 9223372036854775807 : tensor<?x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// The naive path's [V, N, S, P] workspace.
func.func @workspace_overflow(%x: tensor<2x1099511627776x16xbf16>, %seed: i64) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op problem too large: V*N*S*P = 2*1099511627776*1048576*17 overflows 64 bits}}
  %l = sigreg.loss %x seed(%seed) slices = 1048576 : tensor<2x1099511627776x16xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Bytes, not only elements: 2^61 f32 elements are 2^63 bytes.
func.func @projection_bytes(%seed: i64) -> tensor<2x1152921504606846976xf32> {
  // expected-error @+1 {{'sigreg.projection' op problem too large: projection bytes D*S*4 = 2305843009213693952*4 overflows 64 bits}}
  %a = sigreg.projection seed(%seed) : tensor<2x1152921504606846976xf32>
  return %a : tensor<2x1152921504606846976xf32>
}

// -----

func.func @fused_ecf_overflow(%x: tensor<1x8x16xf32>, %a: tensor<16x4611686018427387904xf32>) -> tensor<1x4611686018427387904x17xf32> {
  // expected-error @+1 {{'sigreg.fused_ecf' op problem too large: D*S = 16*4611686018427387904 overflows 64 bits}}
  %c, %s = sigreg.fused_ecf %x, %a : tensor<1x8x16xf32>, tensor<16x4611686018427387904xf32> -> tensor<1x4611686018427387904x17xf32>
  return %c : tensor<1x4611686018427387904x17xf32>
}

// -----

func.func @epilogue_overflow(%c: tensor<4x4611686018427387904x17xf32>, %s: tensor<4x4611686018427387904x17xf32>) -> tensor<f32> {
  %n = arith.constant 8 : index
  // expected-error @+1 {{'sigreg.fused_epilogue' op problem too large: V*S*P = 4*4611686018427387904*17 overflows 64 bits}}
  %r = sigreg.fused_epilogue %c, %s, %n : tensor<4x4611686018427387904x17xf32> -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// Large but representable sizes are the runner's memory budget's business,
// not the verifier's.
func.func @large_ok(%x: tensor<?x16xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1099511627776 : tensor<?x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// P is unrolled by the GPU kernels: at most 65 points.
func.func @points_bound(%x: tensor<4x16xf32>, %seed: i64) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op number of integration points must be <= 65 (the GPU kernels unroll them: 2P accumulators per thread), got 67}}
  %l = sigreg.loss %x seed(%seed) slices = 8 points = 67 : tensor<4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @points_huge(%y: tensor<1x4x8xf32>) -> tensor<1x8x1000001xf32> {
  // expected-error @+1 {{'sigreg.ecf' op number of integration points must be <= 65}}
  %c:2 = sigreg.ecf %y : tensor<1x4x8xf32> -> tensor<1x8x1000001xf32>
  return %c#0 : tensor<1x8x1000001xf32>
}

// -----

func.func @points_max_ok(%x: tensor<4x16xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 8 points = 65 : tensor<4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// t_max = 1e308 gave a NaN loss (t * y overflows f32).
func.func @t_max_huge(%x: tensor<4x16xf32>, %seed: i64) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op t_max must be <= 1.000000e+06 (the Gaussian weight is 0 past t = 40, and t_max * |y| must stay finite in f32), got 1.000000e+308}}
  %l = sigreg.loss %x seed(%seed) slices = 8 t_max = 1.0e308 : tensor<4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @t_max_epilogue(%c: tensor<1x8x5xf32>, %s: tensor<1x8x5xf32>) -> tensor<f32> {
  %n = arith.constant 8 : index
  // expected-error @+1 {{'sigreg.fused_epilogue' op t_max must be <= 1.000000e+06}}
  %r = sigreg.fused_epilogue %c, %s, %n t_max = 2.0e6 : tensor<1x8x5xf32> -> tensor<f32>
  return %r : tensor<f32>
}
