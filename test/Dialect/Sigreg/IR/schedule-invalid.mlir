// RUN: sigreg-opt %s --split-input-file --verify-diagnostics

// The verifier of #sigreg.schedule on sigreg.fused_ecf (verifySchedule in
// EcfSchedule.cpp, the rules the choice follows) rejects schedules the
// kernels cannot run, one precise diagnostic per broken rule.

func.func @wgmma_f32_slices(%x: tensor<1x256x64xf32>, %a: tensor<64x252xf32>) -> (tensor<1x252x17xf32>, tensor<1x252x17xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = wgmma needs S a multiple of 8 (16-byte TMA row strides), got S = 252}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 256], k_tile = 16, batch_tiles = 2, projection = explicit>} : tensor<1x256x64xf32>, tensor<64x252xf32> -> tensor<1x252x17xf32>
  return %c, %s : tensor<1x252x17xf32>, tensor<1x252x17xf32>
}

// -----

func.func @wgmma_ragged(%x: tensor<1x256x66xbf16>, %a: tensor<66x256xbf16>) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = wgmma needs D and S multiples of 8 (16-byte TMA row strides), got D = 66, S = 256}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 256], k_tile = 16, batch_tiles = 2, projection = explicit>} : tensor<1x256x66xbf16>, tensor<66x256xbf16> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

func.func @wgmma_tile(%x: tensor<1x256x64xbf16>, %a: tensor<64x256xbf16>) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = wgmma needs tile = [128, 256], [128, 128], [128, 64] or [256, 128], got [128, 32]}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 32], k_tile = 16, batch_tiles = 2, projection = explicit>} : tensor<1x256x64xbf16>, tensor<64x256xbf16> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

func.func @wgmma_projection_type(%x: tensor<1x256x64xbf16>, %a: tensor<64x256xf32>) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = wgmma needs an explicit projection of the input's type bf16, got f32}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 256], k_tile = 16, batch_tiles = 2, projection = explicit>} : tensor<1x256x64xbf16>, tensor<64x256xf32> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

func.func @wgmma_split(%x: tensor<1x256x64xbf16>, %seed: i64) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  %a = sigreg.projection seed(%seed) : tensor<64x256xf32>
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = wgmma with projection = rounded: this op needs the hi + lo split (per-slice statistics, or a rounding error above the budget); use projection = split}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 256], k_tile = 16, batch_tiles = 2, projection = rounded>} : tensor<1x256x64xbf16>, tensor<64x256xf32> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

func.func @wgmma_f32_per_slice(%x: tensor<1x256x64xf32>, %a: tensor<64x256xf32>) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = wgmma multiplies bf16 hi + lo parts of an f32 input (about 2^-16 relative), which meets the f32 tolerance only for a loss reduced over the slices; per-slice statistics need the f32 GEMM}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 256], k_tile = 16, batch_tiles = 2, projection = explicit>} : tensor<1x256x64xf32>, tensor<64x256xf32> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

func.func @wgmma_f32_large_batch(%x: tensor<1x20000x64xf32>, %a: tensor<64x256xf32>) -> (tensor<1x256x17xf32> {sigreg.reduced}, tensor<1x256x17xf32> {sigreg.reduced}) {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = wgmma multiplies bf16 hi + lo parts of an f32 input; its estimated error 6.7e-05 exceeds the budget 5.0e-05 (half the f32 tolerance)}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 256], k_tile = 16, batch_tiles = 157, projection = explicit>} : tensor<1x20000x64xf32>, tensor<64x256xf32> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

func.func @wgmma_f32_projection_mode(%x: tensor<1x256x64xf32>, %seed: i64) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  %a = sigreg.projection seed(%seed) : tensor<64x256xf32>
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = wgmma reads a seeded projection as projection = split, got projection = rounded}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 256], k_tile = 16, batch_tiles = 2, projection = rounded>} : tensor<1x256x64xf32>, tensor<64x256xf32> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

// The transposed tile [256, 128] of kernel = wgmma: P <= 23, batch tiles
// inside their view, no slices result.

func.func @transposed_points(%x: tensor<1x512x64xbf16>, %a: tensor<64x256xbf16>) -> (tensor<1x256x25xf32>, tensor<1x256x25xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = wgmma with tile = [256, 128] needs P <= 23 (the ECF sums in registers beside the accumulators), got P = 25}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma, tile = [256, 128], k_tile = 16, batch_tiles = 2, projection = explicit>} : tensor<1x512x64xbf16>, tensor<64x256xbf16> -> tensor<1x256x25xf32>
  return %c, %s : tensor<1x256x25xf32>, tensor<1x256x25xf32>
}

// -----

func.func @transposed_views(%x: tensor<2x384x64xbf16>, %a: tensor<64x256xbf16>) -> (tensor<2x256x17xf32>, tensor<2x256x17xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = wgmma with tile = [256, 128] needs N a multiple of 256 with several views (a batch tile past N would read the next view's rows), got V = 2, N = 384}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma, tile = [256, 128], k_tile = 16, batch_tiles = 2, projection = explicit>} : tensor<2x384x64xbf16>, tensor<64x256xbf16> -> tensor<2x256x17xf32>
  return %c, %s : tensor<2x256x17xf32>, tensor<2x256x17xf32>
}

// -----

func.func @transposed_batch_tiles(%x: tensor<1x512x64xbf16>, %a: tensor<64x256xbf16>) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule batch_tiles = 4 does not match ceil(N / rows) = 2 (N = 512, rows = 256)}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma, tile = [256, 128], k_tile = 16, batch_tiles = 4, projection = explicit>} : tensor<1x512x64xbf16>, tensor<64x256xbf16> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

// The transposed tile made persistent (kernel = wgmma_persistent, tile =
// [256, 128]): the transposed tile's limits, at most 132 slice tiles (one
// CTA per slice tile in each group), no clusters.

func.func @persistent_transposed_points(%x: tensor<1x512x64xbf16>, %a: tensor<64x256xbf16>) -> (tensor<1x256x25xf32>, tensor<1x256x25xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = wgmma_persistent with tile = [256, 128] needs P <= 23 (the ECF sums in registers beside the accumulators), got P = 25}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma_persistent, tile = [256, 128], k_tile = 16, batch_tiles = 2, projection = explicit>} : tensor<1x512x64xbf16>, tensor<64x256xbf16> -> tensor<1x256x25xf32>
  return %c, %s : tensor<1x256x25xf32>, tensor<1x256x25xf32>
}

// -----

func.func @persistent_transposed_slice_tiles(%x: tensor<1x512x64xbf16>, %a: tensor<64x17024xbf16>) -> (tensor<1x17024x17xf32>, tensor<1x17024x17xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = wgmma_persistent with tile = [256, 128] needs at most 132 slice tiles (a CTA per slice tile and multiprocessor), got S = 17024}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma_persistent, tile = [256, 128], k_tile = 16, batch_tiles = 2, projection = explicit>} : tensor<1x512x64xbf16>, tensor<64x17024xbf16> -> tensor<1x17024x17xf32>
  return %c, %s : tensor<1x17024x17xf32>, tensor<1x17024x17xf32>
}

// -----

func.func @persistent_transposed_cluster(%x: tensor<1x512x64xbf16>, %a: tensor<64x256xbf16>) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = wgmma_persistent with tile = [256, 128] runs no clusters (its CTAs keep one slice tile each), got cluster = 2}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma_persistent, tile = [256, 128], k_tile = 16, batch_tiles = 2, projection = explicit, cluster = 2>} : tensor<1x512x64xbf16>, tensor<64x256xbf16> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

func.func @persistent_points(%x: tensor<1x256x64xbf16>, %a: tensor<64x256xbf16>) -> (tensor<1x256x27xf32>, tensor<1x256x27xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = wgmma_persistent needs P <= 25 (the ECF sums in registers beside the accumulators), got P = 27}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma_persistent, tile = [128, 128], k_tile = 16, batch_tiles = 2, projection = explicit>} : tensor<1x256x64xbf16>, tensor<64x256xbf16> -> tensor<1x256x27xf32>
  return %c, %s : tensor<1x256x27xf32>, tensor<1x256x27xf32>
}

// -----

func.func @persistent_tile(%x: tensor<1x256x64xbf16>, %a: tensor<64x256xbf16>) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = wgmma_persistent needs tile = [128, 128] (the ping-pong kernel) or [256, 128] (the transposed kernel), got [128, 256]}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma_persistent, tile = [128, 256], k_tile = 16, batch_tiles = 2, projection = explicit>} : tensor<1x256x64xbf16>, tensor<64x256xbf16> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

// The ping-pong kernel's batch tiles must not cross views.
func.func @persistent_views(%x: tensor<2x200x64xbf16>, %a: tensor<64x256xbf16>) -> (tensor<2x256x17xf32>, tensor<2x256x17xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = wgmma_persistent needs N a multiple of 128 with several views (a batch tile past N would read the next view's rows), got V = 2, N = 200}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma_persistent, tile = [128, 128], k_tile = 16, batch_tiles = 2, projection = explicit>} : tensor<2x200x64xbf16>, tensor<64x256xbf16> -> tensor<2x256x17xf32>
  return %c, %s : tensor<2x256x17xf32>, tensor<2x256x17xf32>
}

// -----

func.func @mma_f32(%x: tensor<1x256x64xf32>, %a: tensor<64x256xf32>) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = mma needs a bf16 or f16 input, got f32}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = mma, tile = [64, 128], k_tile = 16, batch_tiles = 4, projection = explicit>} : tensor<1x256x64xf32>, tensor<64x256xf32> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

func.func @mma_tile(%x: tensor<1x256x64xf16>, %a: tensor<64x256xf16>) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = mma needs tile = [64, 128], got [64, 64]}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = mma, tile = [64, 64], k_tile = 16, batch_tiles = 4, projection = explicit>} : tensor<1x256x64xf16>, tensor<64x256xf16> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

func.func @mma_k_tile(%x: tensor<1x256x64xf16>, %a: tensor<64x256xf16>) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = mma needs k_tile = 16 (deeper k tiles are for kernel = simt), got 32}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = mma, tile = [64, 128], k_tile = 32, batch_tiles = 4, projection = explicit>} : tensor<1x256x64xf16>, tensor<64x256xf16> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

func.func @mma_rounded_per_slice(%x: tensor<1x256x64xbf16>, %seed: i64) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  %a = sigreg.projection seed(%seed) : tensor<64x256xf32>
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = mma with projection = rounded: this op needs the hi + lo split (per-slice statistics, or a rounding error above the budget); use projection = split}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = mma, tile = [64, 128], k_tile = 16, batch_tiles = 4, projection = rounded>} : tensor<1x256x64xbf16>, tensor<64x256xf32> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

func.func @mma_f32_mode(%x: tensor<1x256x64xbf16>, %seed: i64) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  %a = sigreg.projection seed(%seed) : tensor<64x256xf32>
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = mma reads a seeded projection as projection = split or rounded, got projection = f32}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = mma, tile = [64, 128], k_tile = 16, batch_tiles = 4, projection = f32>} : tensor<1x256x64xbf16>, tensor<64x256xf32> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

func.func @simt_tile(%x: tensor<1x256x64xf32>, %a: tensor<64x256xf32>) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = simt needs tile rows and slices of 16, 32 or 64, got [16, 48]}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = simt, tile = [16, 48], k_tile = 16, batch_tiles = 16, projection = explicit>} : tensor<1x256x64xf32>, tensor<64x256xf32> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

func.func @simt_k_tile(%x: tensor<1x256x64xf32>, %a: tensor<64x256xf32>) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = simt needs k_tile = 16, 32, 64 or 128, got 24}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = simt, tile = [16, 16], k_tile = 24, batch_tiles = 16, projection = explicit>} : tensor<1x256x64xf32>, tensor<64x256xf32> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

func.func @simt_shared(%x: tensor<1x256x64xf32>, %a: tensor<64x256xf32>) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = simt with k_tile = 128 needs 74496 bytes of shared memory, above 40 KB}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = simt, tile = [64, 64], k_tile = 128, batch_tiles = 4, projection = explicit>} : tensor<1x256x64xf32>, tensor<64x256xf32> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

func.func @simt_split(%x: tensor<1x256x64xbf16>, %seed: i64) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  %a = sigreg.projection seed(%seed) : tensor<64x256xf32>
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = simt reads a seeded projection as projection = f32, got projection = split}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = simt, tile = [64, 64], k_tile = 16, batch_tiles = 4, projection = split>} : tensor<1x256x64xbf16>, tensor<64x256xf32> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

func.func @explicit_not_seeded(%x: tensor<1x256x64xf32>, %a: tensor<64x256xf32>) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule projection = f32 needs a seeded sigreg.projection operand; an explicit projection has projection = explicit}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = simt, tile = [64, 64], k_tile = 16, batch_tiles = 4, projection = f32>} : tensor<1x256x64xf32>, tensor<64x256xf32> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

func.func @seeded_explicit(%x: tensor<1x256x64xf32>, %seed: i64) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  %a = sigreg.projection seed(%seed) : tensor<64x256xf32>
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule projection = explicit, but the projection operand is a seeded sigreg.projection (f32, split or rounded)}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = simt, tile = [64, 64], k_tile = 16, batch_tiles = 4, projection = explicit>} : tensor<1x256x64xf32>, tensor<64x256xf32> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

func.func @batch_tiles(%x: tensor<1x256x64xf32>, %a: tensor<64x256xf32>) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule batch_tiles = 3 does not match ceil(N / rows) = 4 (N = 256, rows = 64)}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = simt, tile = [64, 64], k_tile = 16, batch_tiles = 3, projection = explicit>} : tensor<1x256x64xf32>, tensor<64x256xf32> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

func.func @single_launch_no_chain(%x: tensor<1x32x64xf32>, %a: tensor<64x256xf32>) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = single_launch needs cos and sin read only by one sigreg.all_reduce_mean of world_size 1 whose results are read only by one sigreg.fused_epilogue}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = single_launch, tile = [32, 8], k_tile = 16, batch_tiles = 1, projection = explicit>} : tensor<1x32x64xf32>, tensor<64x256xf32> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

func.func @single_launch_tile(%x: tensor<1x32x64xf32>, %a: tensor<64x256xf32>) -> tensor<f32> {
  %n = arith.constant 32 : index
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = single_launch needs tile rows a power of two in [8, 256], slices a power of two in [1, 16] and rows * slices <= 1024, got [512, 2]}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = single_launch, tile = [512, 2], k_tile = 16, batch_tiles = 1, projection = explicit>} : tensor<1x32x64xf32>, tensor<64x256xf32> -> tensor<1x256x17xf32>
  %cg, %sg, %ng = sigreg.all_reduce_mean %c, %s, %n : tensor<1x256x17xf32>
  %l = sigreg.fused_epilogue %cg, %sg, %ng : tensor<1x256x17xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @single_launch_points(%x: tensor<1x32x64xf32>, %a: tensor<64x256xf32>) -> tensor<f32> {
  %n = arith.constant 32 : index
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = single_launch needs P <= 64, got P = 65}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = single_launch, tile = [32, 8], k_tile = 16, batch_tiles = 1, projection = explicit>} : tensor<1x32x64xf32>, tensor<64x256xf32> -> tensor<1x256x65xf32>
  %cg, %sg, %ng = sigreg.all_reduce_mean %c, %s, %n : tensor<1x256x65xf32>
  %l = sigreg.fused_epilogue %cg, %sg, %ng : tensor<1x256x65xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @single_launch_shared(%x: tensor<1x32x2048xf32>, %a: tensor<2048x256xf32>) -> tensor<f32> {
  %n = arith.constant 32 : index
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = single_launch with 8 slices per block needs D * slices <= 8192 and 16 * slices * P <= 8192 (32 KB of shared memory), got D = 2048, P = 17}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = single_launch, tile = [32, 8], k_tile = 16, batch_tiles = 1, projection = explicit>} : tensor<1x32x2048xf32>, tensor<2048x256xf32> -> tensor<1x256x17xf32>
  %cg, %sg, %ng = sigreg.all_reduce_mean %c, %s, %n : tensor<1x256x17xf32>
  %l = sigreg.fused_epilogue %cg, %sg, %ng : tensor<1x256x17xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @single_launch_rounded_f32(%x: tensor<1x32x64xf32>, %seed: i64) -> tensor<f32> {
  %n = arith.constant 32 : index
  %a = sigreg.projection seed(%seed) : tensor<64x256xf32>
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = single_launch reads a seeded projection as projection = f32 (rounded and split need a bf16 or f16 input), got projection = rounded}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = single_launch, tile = [32, 8], k_tile = 16, batch_tiles = 1, projection = rounded>} : tensor<1x32x64xf32>, tensor<64x256xf32> -> tensor<1x256x17xf32>
  %cg, %sg, %ng = sigreg.all_reduce_mean %c, %s, %n : tensor<1x256x17xf32>
  %l = sigreg.fused_epilogue %cg, %sg, %ng : tensor<1x256x17xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @single_launch_mma_tile(%x: tensor<1x32x64xbf16>, %seed: i64) -> tensor<f32> {
  %n = arith.constant 32 : index
  %a = sigreg.projection seed(%seed) : tensor<64x256xf32>
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = single_launch with projection = rounded (tensor cores) needs tile rows a power of two in [16, 256], slices 8 or 16 and rows * slices <= 2048, got [32, 4]}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = single_launch, tile = [32, 4], k_tile = 16, batch_tiles = 1, projection = rounded>} : tensor<1x32x64xbf16>, tensor<64x256xf32> -> tensor<1x256x17xf32>
  %cg, %sg, %ng = sigreg.all_reduce_mean %c, %s, %n : tensor<1x256x17xf32>
  %l = sigreg.fused_epilogue %cg, %sg, %ng : tensor<1x256x17xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @single_launch_mma_rounded_none(%x: tensor<1x32x64xbf16>, %seed: i64) -> tensor<1x256xf32> {
  %n = arith.constant 32 : index
  %a = sigreg.projection seed(%seed) : tensor<64x256xf32>
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = single_launch with projection = rounded: this op needs the hi + lo split (per-slice statistics, or a rounding error above the budget); use projection = split}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = single_launch, tile = [32, 8], k_tile = 16, batch_tiles = 1, projection = rounded>} : tensor<1x32x64xbf16>, tensor<64x256xf32> -> tensor<1x256x17xf32>
  %cg, %sg, %ng = sigreg.all_reduce_mean %c, %s, %n : tensor<1x256x17xf32>
  %l = sigreg.fused_epilogue %cg, %sg, %ng reduction = none : tensor<1x256x17xf32> -> tensor<1x256xf32>
  return %l : tensor<1x256xf32>
}

// -----

func.func @unknown_kernel(%x: tensor<1x32x64xf32>, %a: tensor<64x256xf32>) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  // expected-error @+2 {{expected ::mlir::sigreg::KernelKind to be one of: simt, mma, wgmma, wgmma_persistent, single_launch}}
  // expected-error @+1 {{failed to parse Sigreg_ScheduleAttr parameter 'kernel'}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = tensor, tile = [32, 8], k_tile = 16, batch_tiles = 1, projection = explicit>} : tensor<1x32x64xf32>, tensor<64x256xf32> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

func.func @slices_transposed(%x: tensor<1x512x64xbf16>, %a: tensor<64x256xbf16>) -> tensor<1x512x256xf32> {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = wgmma with tile = [256, 128] does not store the slices result (tile = [128, 256] does)}}
  %c, %s, %y = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma, tile = [256, 128], k_tile = 16, batch_tiles = 2, projection = explicit>} : tensor<1x512x64xbf16>, tensor<64x256xbf16> -> tensor<1x256x17xf32>, slices tensor<1x512x256xf32>
  return %y : tensor<1x512x256xf32>
}

// -----

func.func @slices_not_wgmma(%x: tensor<1x256x64xbf16>, %a: tensor<64x256xbf16>) -> tensor<1x256x256xf32> {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = mma does not store the slices result (only kernel = wgmma does)}}
  %c, %s, %y = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = mma, tile = [64, 128], k_tile = 16, batch_tiles = 4, projection = explicit>} : tensor<1x256x64xbf16>, tensor<64x256xbf16> -> tensor<1x256x17xf32>, slices tensor<1x256x256xf32>
  return %y : tensor<1x256x256xf32>
}

// -----

// A training step's single launch (singleLaunchStep): every block needs its
// slices' global means, so the batch must be one tile.
func.func @single_launch_step_batch_tiles(%x: tensor<1x64x64xbf16>, %seed: i64, %grad: tensor<f32>) -> (tensor<f32>, tensor<1x64x64xf32>) {
  %n = arith.constant 64 : index
  %a = sigreg.projection seed(%seed) : tensor<64x256xf32>
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = single_launch as a training step needs the batch in one tile (rows >= N = 64), got rows = 32}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = single_launch, tile = [32, 8], k_tile = 16, batch_tiles = 2, projection = rounded>} : tensor<1x64x64xbf16>, tensor<64x256xf32> -> tensor<1x256x17xf32>
  %cg, %sg, %ng = sigreg.all_reduce_mean %c, %s, %n : tensor<1x256x17xf32>
  %l = sigreg.fused_epilogue %cg, %sg, %ng : tensor<1x256x17xf32> -> tensor<f32>
  %cg2, %sg2, %ng2 = sigreg.all_reduce_mean %c, %s, %n : tensor<1x256x17xf32>
  %dc, %ds = sigreg.ecf_cotangent %cg2, %sg2, %ng2, %grad : tensor<1x256x17xf32>, tensor<f32>
  %dx = sigreg.fused_ecf_backward %x, %a, %dc, %ds : tensor<1x64x64xbf16>, tensor<64x256xf32>, tensor<1x256x17xf32> -> tensor<1x64x64xf32>
  return %l, %dx : tensor<f32>, tensor<1x64x64xf32>
}

// -----

// ... and the tensor cores' g (the backward GEMM reads the g it writes).
func.func @single_launch_step_f32_projection(%x: tensor<1x64x64xbf16>, %seed: i64, %grad: tensor<f32>) -> (tensor<f32>, tensor<1x64x64xf32>) {
  %n = arith.constant 64 : index
  %a = sigreg.projection seed(%seed) : tensor<64x256xf32>
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = single_launch as a training step needs the tensor cores' projection = rounded or split (the backward GEMM reads the g it writes), got projection = f32}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = single_launch, tile = [64, 4], k_tile = 16, batch_tiles = 1, projection = f32>} : tensor<1x64x64xbf16>, tensor<64x256xf32> -> tensor<1x256x17xf32>
  %cg, %sg, %ng = sigreg.all_reduce_mean %c, %s, %n : tensor<1x256x17xf32>
  %l = sigreg.fused_epilogue %cg, %sg, %ng : tensor<1x256x17xf32> -> tensor<f32>
  %cg2, %sg2, %ng2 = sigreg.all_reduce_mean %c, %s, %n : tensor<1x256x17xf32>
  %dc, %ds = sigreg.ecf_cotangent %cg2, %sg2, %ng2, %grad : tensor<1x256x17xf32>, tensor<f32>
  %dx = sigreg.fused_ecf_backward %x, %a, %dc, %ds : tensor<1x64x64xbf16>, tensor<64x256xf32>, tensor<1x256x17xf32> -> tensor<1x64x64xf32>
  return %l, %dx : tensor<f32>, tensor<1x64x64xf32>
}

// -----

// Clusters (CTAs sharing the g tile by multicast) are the Hopper kernels':
// not the other kernels', ...
func.func @cluster_kernel(%x: tensor<1x512x64xbf16>, %a: tensor<64x256xbf16>) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = mma does not run clusters (only kernel = wgmma and wgmma_persistent do), got cluster = 2}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = mma, tile = [64, 128], k_tile = 16, batch_tiles = 8, projection = explicit, cluster = 2>} : tensor<1x512x64xbf16>, tensor<64x256xbf16> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

// ... the ping-pong kernel runs pairs only ...
func.func @pingpong_cluster4(%x: tensor<1x512x64xbf16>, %a: tensor<64x256xbf16>) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = wgmma_persistent runs pairs of CTAs only (clusters of 4 measured slower), got cluster = 4}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma_persistent, tile = [128, 128], k_tile = 16, batch_tiles = 4, projection = explicit, cluster = 4>} : tensor<1x512x64xbf16>, tensor<64x256xbf16> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

// ... of batch tiles that pair up ...
func.func @pingpong_odd(%x: tensor<1x384x64xbf16>, %a: tensor<64x256xbf16>) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = wgmma_persistent needs an even number of batch tiles for a pair (the pair's CTAs share the g tile of two batch tiles), got batch_tiles = 3}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma_persistent, tile = [128, 128], k_tile = 16, batch_tiles = 3, projection = explicit, cluster = 2>} : tensor<1x384x64xbf16>, tensor<64x256xbf16> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

// ... of 2 or 4 CTAs, ...
func.func @cluster_size(%x: tensor<1x512x64xbf16>, %a: tensor<64x256xbf16>) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = wgmma needs cluster = 1, 2 or 4, got 3}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 256], k_tile = 16, batch_tiles = 4, projection = explicit, cluster = 3>} : tensor<1x512x64xbf16>, tensor<64x256xbf16> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

// ... each loading an equal share of the g tile's 64-slice boxes ...
func.func @cluster_boxes(%x: tensor<1x512x64xbf16>, %a: tensor<64x256xbf16>) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = wgmma needs tile slices a multiple of 64 x cluster for a cluster of 4 (each CTA loads an equal share of the g tile's 64-slice boxes), got 128}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 128], k_tile = 16, batch_tiles = 4, projection = explicit, cluster = 4>} : tensor<1x512x64xbf16>, tensor<64x256xbf16> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

// ... with clusters that tile the batch tiles.
func.func @cluster_batch_tiles(%x: tensor<1x384x64xbf16>, %a: tensor<64x256xbf16>) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = wgmma needs batch_tiles a multiple of the cluster 2 (clusters of CTAs along the batch tiles), got 3}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 256], k_tile = 16, batch_tiles = 3, projection = explicit, cluster = 2>} : tensor<1x384x64xbf16>, tensor<64x256xbf16> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

// projection = generated: the 64-slice Hopper tile generating its own g tile
// (split among a cluster of the slice tile's batch-tile CTAs).

func.func @generated_tile(%x: tensor<1x1024x256xbf16>, %seed: i64) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  %g = sigreg.projection seed(%seed) : tensor<256x256xf32>
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = wgmma with projection = generated needs kernel = wgmma with tile = [128, 64], got tile = [128, 128]}}
  %c, %s = sigreg.fused_ecf %x, %g {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 128], k_tile = 16, batch_tiles = 8, projection = generated, cluster = 8>} : tensor<1x1024x256xbf16>, tensor<256x256xf32> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

func.func @generated_cluster(%x: tensor<1x1024x256xbf16>, %seed: i64) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  %g = sigreg.projection seed(%seed) : tensor<256x256xf32>
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = wgmma with projection = generated needs cluster = 1, 2, 4 or 8 (the CTAs that generate the g tile together), got 16}}
  %c, %s = sigreg.fused_ecf %x, %g {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 64], k_tile = 16, batch_tiles = 8, projection = generated, cluster = 16>} : tensor<1x1024x256xbf16>, tensor<256x256xf32> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

func.func @generated_batch_tiles(%x: tensor<1x768x256xbf16>, %seed: i64) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  %g = sigreg.projection seed(%seed) : tensor<256x256xf32>
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = wgmma with projection = generated needs batch_tiles a multiple of the cluster 4 (the batch tiles of a slice tile generate its g tile together), got 6}}
  %c, %s = sigreg.fused_ecf %x, %g {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 64], k_tile = 16, batch_tiles = 6, projection = generated, cluster = 4>} : tensor<1x768x256xbf16>, tensor<256x256xf32> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

func.func @generated_features(%x: tensor<1x1024x200xbf16>, %seed: i64) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  %g = sigreg.projection seed(%seed) : tensor<200x256xf32>
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = wgmma with projection = generated needs D a multiple of 16 x cluster = 128 (each CTA's threads take whole groups of four rows), got D = 200}}
  %c, %s = sigreg.fused_ecf %x, %g {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 64], k_tile = 16, batch_tiles = 8, projection = generated, cluster = 8>} : tensor<1x1024x200xbf16>, tensor<200x256xf32> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

func.func @generated_views(%x: tensor<2x1024x256xbf16>, %seed: i64) -> (tensor<2x256x17xf32>, tensor<2x256x17xf32>) {
  %g = sigreg.projection seed(%seed) : tensor<256x256xf32>
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = wgmma with projection = generated needs one view (several would generate g once per view), got V = 2}}
  %c, %s = sigreg.fused_ecf %x, %g {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 64], k_tile = 16, batch_tiles = 8, projection = generated, cluster = 8>} : tensor<2x1024x256xbf16>, tensor<256x256xf32> -> tensor<2x256x17xf32>
  return %c, %s : tensor<2x256x17xf32>, tensor<2x256x17xf32>
}

// -----

func.func @generated_other_user(%x: tensor<1x1024x256xbf16>, %seed: i64) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>, tensor<256x256xf32>) {
  %g = sigreg.projection seed(%seed) : tensor<256x256xf32>
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = wgmma with projection = generated needs the seeded projection to have no other user (g exists only inside this kernel's launch)}}
  %c, %s = sigreg.fused_ecf %x, %g {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 64], k_tile = 16, batch_tiles = 8, projection = generated, cluster = 8>} : tensor<1x1024x256xbf16>, tensor<256x256xf32> -> tensor<1x256x17xf32>
  return %c, %s, %g : tensor<1x256x17xf32>, tensor<1x256x17xf32>, tensor<256x256xf32>
}

// -----

func.func @generated_explicit(%x: tensor<1x1024x256xbf16>, %a: tensor<256x256xbf16>) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule projection = generated needs a seeded sigreg.projection operand; an explicit projection has projection = explicit}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 64], k_tile = 16, batch_tiles = 8, projection = generated, cluster = 8>} : tensor<1x1024x256xbf16>, tensor<256x256xbf16> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

// The means returned as they are (per-slice statistics) need g's hi + lo
// split, which the generating kernel does not write.
func.func @generated_split(%x: tensor<1x1024x256xbf16>, %seed: i64) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  %g = sigreg.projection seed(%seed) : tensor<256x256xf32>
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = wgmma with projection = generated needs a 16-bit input whose statistics allow g rounded to 16 bits (not the hi + lo split)}}
  %c, %s = sigreg.fused_ecf %x, %g {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 64], k_tile = 16, batch_tiles = 8, projection = generated, cluster = 8>} : tensor<1x1024x256xbf16>, tensor<256x256xf32> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

func.func @warps_not_single_launch(%x: tensor<1x256x64xbf16>, %a: tensor<64x256xbf16>) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = wgmma does not take warps (only kernel = single_launch does), got warps = 16}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 256], k_tile = 16, batch_tiles = 2, projection = explicit, warps = 16>} : tensor<1x256x64xbf16>, tensor<64x256xbf16> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

func.func @single_launch_warps(%x: tensor<1x32x64xf32>, %a: tensor<64x256xf32>) -> tensor<f32> {
  %n = arith.constant 32 : index
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = single_launch needs warps = 4, 8 or 16, got 12}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = single_launch, tile = [32, 8], k_tile = 16, batch_tiles = 1, projection = explicit, warps = 12>} : tensor<1x32x64xf32>, tensor<64x256xf32> -> tensor<1x256x17xf32>
  %cg, %sg, %ng = sigreg.all_reduce_mean %c, %s, %n : tensor<1x256x17xf32>
  %l = sigreg.fused_epilogue %cg, %sg, %ng : tensor<1x256x17xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @unknown_knob(%x: tensor<1x256x64xbf16>, %a: tensor<64x256xbf16>) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  // expected-error @+1 {{expected 'cluster', 'warps' or 'promote', got 'warp'}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 256], k_tile = 16, batch_tiles = 2, projection = explicit, warp = 16>} : tensor<1x256x64xbf16>, tensor<64x256xbf16> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

func.func @knob_twice(%x: tensor<1x256x64xbf16>, %a: tensor<64x256xbf16>) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  // expected-error @+1 {{'cluster' given twice}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 256], k_tile = 16, batch_tiles = 2, projection = explicit, cluster = 2, cluster = 2>} : tensor<1x256x64xbf16>, tensor<64x256xbf16> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

func.func @single_launch_warps_simt(%x: tensor<1x32x64xf32>, %a: tensor<64x256xf32>) -> tensor<f32> {
  %n = arith.constant 32 : index
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = single_launch with warps = 16 needs the tensor-core GEMM (projection = rounded or split), got projection = explicit}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = single_launch, tile = [32, 8], k_tile = 16, batch_tiles = 1, projection = explicit, warps = 16>} : tensor<1x32x64xf32>, tensor<64x256xf32> -> tensor<1x256x17xf32>
  %cg, %sg, %ng = sigreg.all_reduce_mean %c, %s, %n : tensor<1x256x17xf32>
  %l = sigreg.fused_epilogue %cg, %sg, %ng : tensor<1x256x17xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @single_launch_warps4_simt(%x: tensor<1x32x64xf32>, %a: tensor<64x256xf32>) -> tensor<f32> {
  %n = arith.constant 32 : index
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = single_launch with warps = 4 needs the tensor-core GEMM (projection = rounded or split), got projection = explicit}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = single_launch, tile = [32, 8], k_tile = 16, batch_tiles = 1, projection = explicit, warps = 4>} : tensor<1x32x64xf32>, tensor<64x256xf32> -> tensor<1x256x17xf32>
  %cg, %sg, %ng = sigreg.all_reduce_mean %c, %s, %n : tensor<1x256x17xf32>
  %l = sigreg.fused_epilogue %cg, %sg, %ng : tensor<1x256x17xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @single_launch_warps_points(%x: tensor<1x32x64xbf16>, %seed: i64) -> tensor<f32> {
  %n = arith.constant 32 : index
  %a = sigreg.projection seed(%seed) : tensor<64x256xf32>
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = single_launch with warps = 16 needs P <= 17 (the ECF sums within 128 registers per thread), got P = 33}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = single_launch, tile = [32, 8], k_tile = 16, batch_tiles = 1, projection = rounded, warps = 16>} : tensor<1x32x64xbf16>, tensor<64x256xf32> -> tensor<1x256x33xf32>
  %cg, %sg, %ng = sigreg.all_reduce_mean %c, %s, %n : tensor<1x256x33xf32>
  %l = sigreg.fused_epilogue %cg, %sg, %ng : tensor<1x256x33xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @promote_transposed(%x: tensor<1x512x64xbf16>, %a: tensor<64x256xbf16>) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = wgmma with tile = [256, 128] does not promote its sums (promote is for kernel = mma and for kernel = wgmma with tile = [128, 64] or [128, 128]), got promote = 4}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma, tile = [256, 128], k_tile = 16, batch_tiles = 2, projection = explicit, promote = 4>} : tensor<1x512x64xbf16>, tensor<64x256xbf16> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

func.func @promote_negative(%x: tensor<1x256x64xbf16>, %a: tensor<64x256xbf16>) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = mma needs promote >= 0, got -2}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = mma, tile = [64, 128], k_tile = 16, batch_tiles = 4, projection = explicit, promote = -2>} : tensor<1x256x64xbf16>, tensor<64x256xbf16> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// -----

// projection = cooperative: the one-tile Hopper kernel's grid generating g
// before a grid barrier; every CTA must be resident at once.

func.func @cooperative_grid(%x: tensor<1x2048x256xbf16>, %seed: i64) -> (tensor<f32>) {
  %n = arith.constant 2048 : index
  %g = sigreg.projection seed(%seed) : tensor<256x2048xf32>
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = wgmma with projection = cooperative needs a grid the multiprocessors hold at once (at most 264 CTAs: every CTA waits at the grid barrier), got 512}}
  %c, %s = sigreg.fused_ecf %x, %g {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 64], k_tile = 16, batch_tiles = 16, projection = cooperative>} : tensor<1x2048x256xbf16>, tensor<256x2048xf32> -> tensor<1x2048x17xf32>
  %cg, %sg, %ng = sigreg.all_reduce_mean %c, %s, %n : tensor<1x2048x17xf32>
  %l = sigreg.fused_epilogue %cg, %sg, %ng : tensor<1x2048x17xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @cooperative_kernel(%x: tensor<1x1024x256xbf16>, %seed: i64) -> (tensor<f32>) {
  %n = arith.constant 1024 : index
  %g = sigreg.projection seed(%seed) : tensor<256x1024xf32>
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = wgmma_persistent with projection = cooperative needs the one-tile kernel = wgmma with tile = [128, N] and no cluster}}
  %c, %s = sigreg.fused_ecf %x, %g {schedule = #sigreg.schedule<kernel = wgmma_persistent, tile = [256, 128], k_tile = 16, batch_tiles = 4, projection = cooperative>} : tensor<1x1024x256xbf16>, tensor<256x1024xf32> -> tensor<1x1024x17xf32>
  %cg, %sg, %ng = sigreg.all_reduce_mean %c, %s, %n : tensor<1x1024x17xf32>
  %l = sigreg.fused_epilogue %cg, %sg, %ng : tensor<1x1024x17xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @cooperative_explicit(%x: tensor<1x1024x256xbf16>, %a: tensor<256x1024xbf16>) -> (tensor<f32>) {
  %n = arith.constant 1024 : index
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule projection = cooperative needs a seeded sigreg.projection operand; an explicit projection has projection = explicit}}
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 64], k_tile = 16, batch_tiles = 8, projection = cooperative>} : tensor<1x1024x256xbf16>, tensor<256x1024xbf16> -> tensor<1x1024x17xf32>
  %cg, %sg, %ng = sigreg.all_reduce_mean %c, %s, %n : tensor<1x1024x17xf32>
  %l = sigreg.fused_epilogue %cg, %sg, %ng : tensor<1x1024x17xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Per-slice statistics (the means returned): g must be split, which the
// cooperative generation does not write; the message names the mode written.
func.func @cooperative_per_slice(%x: tensor<1x1024x256xbf16>, %seed: i64) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  %g = sigreg.projection seed(%seed) : tensor<256x256xf32>
  // expected-error @+1 {{'sigreg.fused_ecf' op schedule kernel = wgmma with projection = cooperative: this op needs the hi + lo split (per-slice statistics, or a rounding error above the budget); use projection = split}}
  %c, %s = sigreg.fused_ecf %x, %g {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 64], k_tile = 16, batch_tiles = 8, projection = cooperative>} : tensor<1x1024x256xbf16>, tensor<256x256xf32> -> tensor<1x256x17xf32>
  return %c, %s : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}
