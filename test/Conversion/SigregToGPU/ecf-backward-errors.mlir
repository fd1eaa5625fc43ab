// RUN: sigreg-opt %s -split-input-file -verify-diagnostics --convert-sigreg-to-gpu=hopper=1
// RUN: not sigreg-opt %s -split-input-file --convert-sigreg-to-gpu=hopper=0 2>&1 | FileCheck %s --check-prefix=NOHOPPER

// Every sigreg.fused_ecf_backward the verifier accepts either lowers or
// gets an error at the op saying why and what lowers it instead.

// NOHOPPER: error: 'sigreg.fused_ecf_backward' op has no fused GPU lowering for this problem: the fused backward runs on the Hopper kernels only (chip sm_90a with tensor cores); lower through --sigreg-naive-gpu-pipeline
func.func @f32_input(%x: tensor<1x64x32xf32>, %seed: i64, %dc: tensor<1x16x5xf32>) -> tensor<1x64x32xf32> {
  %a = sigreg.projection seed(%seed) : tensor<32x16xf32>
  // expected-error @+1 {{'sigreg.fused_ecf_backward' op has no fused GPU lowering for this problem: it needs bf16 or f16 input, got 'f32'; lower through --sigreg-naive-gpu-pipeline}}
  %dx = sigreg.fused_ecf_backward %x, %a, %dc, %dc : tensor<1x64x32xf32>, tensor<32x16xf32>, tensor<1x16x5xf32> -> tensor<1x64x32xf32>
  return %dx : tensor<1x64x32xf32>
}

// -----

func.func @ragged_features(%x: tensor<1x64x129xbf16>, %seed: i64, %dc: tensor<1x16x5xf32>) -> tensor<1x64x129xf32> {
  %a = sigreg.projection seed(%seed) : tensor<129x16xf32>
  // expected-error @+1 {{'sigreg.fused_ecf_backward' op has no fused GPU lowering for this problem: TMA needs D and S multiples of 8, got D = 129, S = 16; lower through --sigreg-naive-gpu-pipeline}}
  %dx = sigreg.fused_ecf_backward %x, %a, %dc, %dc : tensor<1x64x129xbf16>, tensor<129x16xf32>, tensor<1x16x5xf32> -> tensor<1x64x129xf32>
  return %dx : tensor<1x64x129xf32>
}

// -----

// N / D = 256: the 16-bit roundings of the seeded g would exceed the
// gradient tolerance (fusedBackwardError: 2^-8 (1 + 16 / 3) = 2.5e-2).
func.func @too_inaccurate(%x: tensor<1x16384x64xbf16>, %seed: i64, %dc: tensor<1x16x5xf32>) -> tensor<1x16384x64xf32> {
  %a = sigreg.projection seed(%seed) : tensor<64x16xf32>
  // expected-error @+1 {{'sigreg.fused_ecf_backward' op has no fused GPU lowering for this problem: its estimated error with 16-bit roundings (2.5e-02, N = 16384, D = 64) exceeds the 1.000000e-02 gradient tolerance; lower through --sigreg-naive-gpu-pipeline}}
  %dx = sigreg.fused_ecf_backward %x, %a, %dc, %dc : tensor<1x16384x64xbf16>, tensor<64x16xf32>, tensor<1x16x5xf32> -> tensor<1x16384x64xf32>
  return %dx : tensor<1x16384x64xf32>
}

// -----

// The same N / D with an explicit projection: A is exact in 16 bits, so it
// lowers.
func.func @explicit_is_exact(%x: tensor<1x16384x64xbf16>, %a: tensor<64x16xbf16>, %dc: tensor<1x16x5xf32>) -> tensor<1x16384x64xf32> {
  %dx = sigreg.fused_ecf_backward %x, %a, %dc, %dc : tensor<1x16384x64xbf16>, tensor<64x16xbf16>, tensor<1x16x5xf32> -> tensor<1x16384x64xf32>
  return %dx : tensor<1x16384x64xf32>
}

// -----

func.func @explicit_other_type(%x: tensor<1x64x32xbf16>, %a: tensor<32x16xf16>, %dc: tensor<1x16x5xf32>) -> tensor<1x64x32xf32> {
  // expected-error @+1 {{'sigreg.fused_ecf_backward' op has no fused GPU lowering for this problem: it needs an explicit projection of the input's type 'bf16'}}
  %dx = sigreg.fused_ecf_backward %x, %a, %dc, %dc : tensor<1x64x32xbf16>, tensor<32x16xf16>, tensor<1x16x5xf32> -> tensor<1x64x32xf32>
  return %dx : tensor<1x64x32xf32>
}

// -----

// The forward reads the seeded g on the SIMT kernel (its schedule, written
// by hand, says so): g is f32, which the backward's Hopper kernels cannot
// read.
func.func @layout_conflict(%x: tensor<1x64x32xbf16>, %seed: i64, %g: tensor<f32>) -> tensor<1x64x32xf32> {
  %a = sigreg.projection seed(%seed) : tensor<32x16xf32>
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = simt, tile = [32, 16], k_tile = 16, batch_tiles = 2, projection = f32>} : tensor<1x64x32xbf16>, tensor<32x16xf32> -> tensor<1x16x5xf32>
  %n = arith.constant 64 : index
  %dc, %ds = sigreg.ecf_cotangent %c, %s, %n, %g : tensor<1x16x5xf32>, tensor<f32>
  // expected-error @+1 {{'sigreg.fused_ecf_backward' op has no fused GPU lowering for this problem: its seeded projection is also read by a forward kernel that needs g in another layout than the row-major 16-bit one of the Hopper kernels}}
  %dx = sigreg.fused_ecf_backward %x, %a, %dc, %ds : tensor<1x64x32xbf16>, tensor<32x16xf32>, tensor<1x16x5xf32> -> tensor<1x64x32xf32>
  return %dx : tensor<1x64x32xf32>
}
