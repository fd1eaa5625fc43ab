// RUN: sigreg-opt %s -split-input-file -verify-diagnostics --convert-sigreg-to-gpu
// RUN: not sigreg-opt %s -split-input-file --convert-sigreg-to-gpu="block-rows=48" 2>&1 | FileCheck %s --check-prefix=ROWS
// RUN: not sigreg-opt %s --convert-sigreg-to-gpu="block-slices=512" 2>&1 | FileCheck %s --check-prefix=SLICES
// RUN: not sigreg-opt %s --convert-sigreg-to-gpu="projection-chunk=0" 2>&1 | FileCheck %s --check-prefix=CHUNK
// RUN: not sigreg-opt %s --convert-sigreg-to-gpu="wgmma-slices=96" 2>&1 | FileCheck %s --check-prefix=WGMMA
// RUN: not sigreg-opt %s --sigreg-choose-schedule="wgmma-slices=96" 2>&1 | FileCheck %s --check-prefix=WGMMA
// RUN: not sigreg-opt %s --convert-sigreg-to-gpu="single-launch=3" 2>&1 | FileCheck %s --check-prefix=SINGLE
// RUN: not sigreg-opt %s --sigreg-choose-schedule="single-launch=3" 2>&1 | FileCheck %s --check-prefix=SINGLE
// RUN: not sigreg-opt %s -split-input-file --convert-sigreg-to-gpu="block-rows=128" 2>&1 | FileCheck %s --check-prefix=TILES
// RUN: not sigreg-opt %s --convert-sigreg-to-gpu="single-launch-step-group=3" 2>&1 | FileCheck %s --check-prefix=GROUP

// Errors of --convert-sigreg-to-gpu: unfused or undecomposed ops, dynamic
// shapes, more than one rank, ops it does not know, bad tile options, and
// the checks of the patterns' preconditions (all before any rewrite).

// ROWS: error: block-rows and block-slices must be 0 or a power of two up to 256, got 48
// SLICES: error: block-rows and block-slices must be 0 or a power of two up to 256, got 512
// CHUNK: error: projection-chunk must be positive
// WGMMA: error: wgmma-slices must be 0, 64, 128 or 256, got 96
// SINGLE: error: single-launch must be 0, 1 or 2, got 3
// GROUP: error: single-launch-step-group must be 0, 1, 2, 4 or 8, got 3

// Unfused mid-level ops (decomposed, fusion not run).
func.func @unfused(%x: tensor<1x37x16xf32>, %a: tensor<16x8xf32>) -> tensor<1x37x8xf32> {
  // expected-error @+1 {{'sigreg.project' op has no GPU lowering in the fused pipeline: run --sigreg-fuse-ecf and --sigreg-fuse-epilogue first (the naive GPU pipeline lowers unfused ops through linalg)}}
  %y = sigreg.project %x, %a : tensor<1x37x16xf32>, tensor<16x8xf32> -> tensor<1x37x8xf32>
  return %y : tensor<1x37x8xf32>
}

// -----

func.func @unfused_epilogue(%c: tensor<1x8x5xf32>, %s: tensor<1x8x5xf32>) -> tensor<f32> {
  %n = arith.constant 37 : index
  // expected-error @+1 {{'sigreg.epps_pulley' op has no GPU lowering in the fused pipeline}}
  %t = sigreg.epps_pulley %c, %s, %n : tensor<1x8x5xf32> -> tensor<1x8xf32>
  %r = sigreg.reduce %t : tensor<1x8xf32> -> tensor<f32>
  return %r : tensor<f32>
}

// -----

func.func @not_decomposed(%x: tensor<37x16xf32>, %seed: i64) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.loss' op must be decomposed first (run --sigreg-decompose)}}
  %l = sigreg.loss %x seed(%seed) slices = 8 : tensor<37x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Dynamic batch.
func.func @dynamic(%x: tensor<1x?x16xf32>, %a: tensor<16x8xf32>) -> tensor<1x8x17xf32> {
  // expected-error @+1 {{'sigreg.fused_ecf' op the GPU pipelines need static shapes, got 'tensor<1x?x16xf32>' (sigreg-run specializes the batch size from --shape)}}
  %c, %s = sigreg.fused_ecf %x, %a : tensor<1x?x16xf32>, tensor<16x8xf32> -> tensor<1x8x17xf32>
  return %c : tensor<1x8x17xf32>
}

// -----

// Two ranks need a communicator.
func.func @world2(%x: tensor<1x37x16xf32>, %a: tensor<16x8xf32>) -> tensor<f32> {
  %n = arith.constant 37 : index
  %c, %s = sigreg.fused_ecf %x, %a : tensor<1x37x16xf32>, tensor<16x8xf32> -> tensor<1x8x17xf32>
  // expected-error @+1 {{'sigreg.all_reduce_mean' op world_size = 2 needs a communicator; the single-process pipelines support world_size = 1 only}}
  %cg, %sg, %ng = sigreg.all_reduce_mean %c, %s, %n world_size = 2 : tensor<1x8x17xf32>
  %r = sigreg.fused_epilogue %cg, %sg, %ng : tensor<1x8x17xf32> -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// An op outside the closed set.
func.func @foreign_op(%x: tensor<1x37x16xf32>, %a: tensor<16x8xf32>) -> tensor<1x8x17xf32> {
  %c, %s = sigreg.fused_ecf %x, %a : tensor<1x37x16xf32>, tensor<16x8xf32> -> tensor<1x8x17xf32>
  // expected-error @+1 {{'arith.addf' op cannot be lowered by --convert-sigreg-to-gpu}}
  %sum = arith.addf %c, %s : tensor<1x8x17xf32>
  return %sum : tensor<1x8x17xf32>
}

// -----

// Non-tensor results cannot become out-parameters.
// expected-error @+1 {{GPU lowering supports tensor results only}}
func.func @index_result(%x: tensor<1x37x16xf32>, %a: tensor<16x8xf32>) -> (tensor<1x8x17xf32>, index) {
  %n = arith.constant 37 : index
  %c, %s = sigreg.fused_ecf %x, %a : tensor<1x37x16xf32>, tensor<16x8xf32> -> tensor<1x8x17xf32>
  return %c, %n : tensor<1x8x17xf32>, index
}

// -----

// The statistic needs the global batch size as a constant.
func.func @count_argument(%c: tensor<1x8x17xf32>, %s: tensor<1x8x17xf32>, %n: index) -> tensor<f32> {
  // expected-error @+1 {{'sigreg.fused_epilogue' op needs a constant global count on the GPU}}
  %r = sigreg.fused_epilogue %c, %s, %n : tensor<1x8x17xf32> -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// Issue 11: a returned seeded projection crashed the lowering (a value never
// mapped to a buffer reached memref.copy). A is never materialized on the GPU.
func.func @returned_projection(%seed: i64) -> tensor<16x8xf32> {
  // expected-error @+1 {{'sigreg.projection' op result is used by 'func.return': --convert-sigreg-to-gpu supports a seeded projection only as the projection operand of sigreg.fused_ecf}}
  %a = sigreg.projection seed(%seed) : tensor<16x8xf32>
  // expected-note @+1 {{used here}}
  return %a : tensor<16x8xf32>
}

// -----

// The same beside the loss.
func.func @projection_beside_loss(%x: tensor<1x37x16xf32>, %seed: i64) -> (tensor<f32>, tensor<16x8xf32>) {
  %n = arith.constant 37 : index
  // expected-error @+1 {{'sigreg.projection' op result is used by 'func.return'}}
  %a = sigreg.projection seed(%seed) : tensor<16x8xf32>
  %c, %s = sigreg.fused_ecf %x, %a : tensor<1x37x16xf32>, tensor<16x8xf32> -> tensor<1x8x17xf32>
  %cg, %sg, %ng = sigreg.all_reduce_mean %c, %s, %n : tensor<1x8x17xf32>
  %r = sigreg.fused_epilogue %cg, %sg, %ng : tensor<1x8x17xf32> -> tensor<f32>
  // expected-note @+1 {{used here}}
  return %r, %a : tensor<f32>, tensor<16x8xf32>
}

// -----

// A projection reshaped before its use is not the fused ECF's operand either.
func.func @projection_reshaped(%seed: i64) -> tensor<128xf32> {
  // expected-error @+1 {{'sigreg.projection' op result is used by 'tensor.collapse_shape'}}
  %a = sigreg.projection seed(%seed) : tensor<16x8xf32>
  // expected-note @+1 {{used here}}
  %f = tensor.collapse_shape %a [[0, 1]] : tensor<16x8xf32> into tensor<128xf32>
  return %f : tensor<128xf32>
}

// -----

// Returning a tensor constant gave an internal error (a tensor reached
// memref.copy).
func.func @returned_constant(%x: tensor<1x37x16xf32>, %a: tensor<16x8xf32>) -> (tensor<1x8x17xf32>, tensor<2xf32>) {
  %c, %s = sigreg.fused_ecf %x, %a : tensor<1x37x16xf32>, tensor<16x8xf32> -> tensor<1x8x17xf32>
  // expected-error @+1 {{'arith.constant' op of type 'tensor<2xf32>' is not supported by --convert-sigreg-to-gpu (only scalar constants; pass tensors as function arguments)}}
  %k = arith.constant dense<1.0> : tensor<2xf32>
  return %c, %k : tensor<1x8x17xf32>, tensor<2xf32>
}

// -----

// Issue 11: shapes the verifier accepts but whose kernels would need a grid
// beyond CUDA's limits (the lowering emitted them silently).
func.func @projection_grid(%seed: i64, %x: tensor<1x64x16xf32>) -> tensor<1x1099511627776x3xf32> {
  // expected-error @+1 {{'sigreg.projection' op needs a projection grid of (4294967296, 1, 1) blocks, beyond CUDA's limits (x < 2^31, y and z <= 65535)}}
  %a = sigreg.projection seed(%seed) : tensor<16x1099511627776xf32>
  %c, %s = sigreg.fused_ecf %x, %a : tensor<1x64x16xf32>, tensor<16x1099511627776xf32> -> tensor<1x1099511627776x3xf32>
  return %c : tensor<1x1099511627776x3xf32>
}

// -----

// 65537 batch tiles of 64 rows: grid y.
func.func @batch_grid(%x: tensor<1x4194305x16xf32>, %a: tensor<16x8xf32>) -> tensor<1x8x3xf32> {
  // expected-error @+1 {{'sigreg.fused_ecf' op needs a fused ECF grid of (1, 65537, 1) blocks, beyond CUDA's limits}}
  %c, %s = sigreg.fused_ecf %x, %a : tensor<1x4194305x16xf32>, tensor<16x8xf32> -> tensor<1x8x3xf32>
  return %c : tensor<1x8x3xf32>
}

// -----

// The unfused backward has no GPU lowering in the fused pipeline: its first
// op says what fuses it, before the projection's use by project_transpose is
// rejected.
func.func @backward(%x: tensor<1x4x16xf32>, %a: tensor<16x8xf32>, %c: tensor<1x8x3xf32>, %n: index, %g: tensor<f32>) -> tensor<1x4x16xf32> {
  %y = sigreg.project %x, %a : tensor<1x4x16xf32>, tensor<16x8xf32> -> tensor<1x4x8xf32>
  %dc, %ds = sigreg.ecf_cotangent %c, %c, %n, %g : tensor<1x8x3xf32>, tensor<f32>
  // expected-error @+1 {{'sigreg.ecf_grad' op has no GPU lowering in the fused pipeline: run --sigreg-fuse-ecf-backward first (it fuses project_transpose(ecf_grad(project(x, A)), A)), or lower through the naive GPU pipeline (--sigreg-naive-gpu-pipeline)}}
  %dy = sigreg.ecf_grad %y, %dc, %ds : tensor<1x4x8xf32>, tensor<1x8x3xf32>
  %dx = sigreg.project_transpose %dy, %a : tensor<1x4x8xf32>, tensor<16x8xf32> -> tensor<1x4x16xf32>
  return %dx : tensor<1x4x16xf32>
}

// -----

// The checks of the lowering run before any op is rewritten: each is one
// error at the op (the conversion itself never fails after building
// kernels).
func.func @dim_index(%x: tensor<1x64x16xf32>, %a: tensor<16x8xf32>, %i: index) -> tensor<f32> {
  %c, %s = sigreg.fused_ecf %x, %a : tensor<1x64x16xf32>, tensor<16x8xf32> -> tensor<1x8x17xf32>
  // expected-error @+1 {{'tensor.dim' op needs a constant dimension index}}
  %n = tensor.dim %x, %i : tensor<1x64x16xf32>
  %r = sigreg.fused_epilogue %c, %s, %n : tensor<1x8x17xf32> -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// The single launch runs the epilogue with the ECF's t_max.
func.func @chain_t_max(%x: tensor<1x64x16xf32>, %a: tensor<16x8xf32>) -> tensor<f32> {
  %n = arith.constant 64 : index
  %c, %s = sigreg.fused_ecf %x, %a : tensor<1x64x16xf32>, tensor<16x8xf32> -> tensor<1x8x17xf32>
  %cg, %sg, %ng = sigreg.all_reduce_mean %c, %s, %n world_size = 1 : tensor<1x8x17xf32>
  // expected-error @+1 {{'sigreg.fused_epilogue' op t_max differs from its sigreg.fused_ecf's}}
  %r = sigreg.fused_epilogue %cg, %sg, %ng t_max = 2.0 : tensor<1x8x17xf32> -> tensor<f32>
  return %r : tensor<f32>
}

// -----

func.func @slices_off_hopper(%x: tensor<1x64x16xf32>, %a: tensor<16x8xf32>) -> (tensor<1x8x17xf32>, tensor<1x64x8xf32>) {
  // expected-error @+1 {{'sigreg.fused_ecf' op the slices result needs the one-tile Hopper kernel (schedule kernel = wgmma)}}
  %c, %s, %y = sigreg.fused_ecf %x, %a : tensor<1x64x16xf32>, tensor<16x8xf32> -> tensor<1x8x17xf32>, slices tensor<1x64x8xf32>
  return %c, %y : tensor<1x8x17xf32>, tensor<1x64x8xf32>
}

// -----

// TILES: error: 'sigreg.fused_ecf' op tile sizes must be 16, 32 or 64, got 128
func.func @simt_tiles(%x: tensor<1x640x16xf32>, %a: tensor<16x8xf32>) -> tensor<1x8x17xf32> {
  %c, %s = sigreg.fused_ecf %x, %a : tensor<1x640x16xf32>, tensor<16x8xf32> -> tensor<1x8x17xf32>
  return %c : tensor<1x8x17xf32>
}

// -----

// A device step's seed exists only in the projection's kernels.
func.func @step_seed_on_host(%x: tensor<1x32x64xbf16>, %step: memref<i64>) -> tensor<64x16xf32> {
  // expected-error @+1 {{'sigreg.advance_step' op seeds a projection on the GPU only: its seed is read in the projection's kernels, not on the host, but 'arith.addi' uses it}}
  %seed = sigreg.advance_step %step : memref<i64>
  %s = arith.addi %seed, %seed : i64
  %a = sigreg.projection seed(%s) : tensor<64x16xf32>
  return %a : tensor<64x16xf32>
}
