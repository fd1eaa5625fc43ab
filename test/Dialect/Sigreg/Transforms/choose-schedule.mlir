// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --sigreg-choose-schedule | FileCheck %s
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --sigreg-choose-schedule=hopper=true | FileCheck %s --check-prefix=HOPPER
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--sigreg-choose-schedule=hopper=true wgmma-persistent=true wgmma-slices=256" | FileCheck %s --check-prefix=PERSIST
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--sigreg-choose-schedule=hopper=true wgmma-slices=128" | FileCheck %s --check-prefix=W128
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--sigreg-choose-schedule=hopper=true wgmma-persistent=true wgmma-rows=256 wgmma-cluster=2" | FileCheck %s --check-prefix=TPERSIST
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--sigreg-choose-schedule=hopper=true wgmma-generate=true" | FileCheck %s --check-prefix=GEN
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--sigreg-choose-schedule=hopper=true wgmma-generate=true wgmma-cluster=2" | FileCheck %s --check-prefix=GEN2
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--sigreg-choose-schedule=hopper=true wgmma-cooperative=1" | FileCheck %s --check-prefix=COOP
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--sigreg-choose-schedule=hopper=true wgmma-cooperative=0" | FileCheck %s --check-prefix=NOCOOP
// RUN: not sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--sigreg-choose-schedule=hopper=true wgmma-cooperative=2" 2>&1 | FileCheck %s --check-prefix=BADCOOP
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--sigreg-choose-schedule=hopper=true wgmma-rows=128" | FileCheck %s --check-prefix=R128
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--sigreg-choose-schedule=hopper=true wgmma-rows=256" | FileCheck %s --check-prefix=R256
// RUN: not sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--sigreg-choose-schedule=hopper=true wgmma-rows=64" 2>&1 | FileCheck %s --check-prefix=BADROWS
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--sigreg-choose-schedule=hopper=true wgmma-rows=128 wgmma-cluster=1" | FileCheck %s --check-prefix=NOCLUSTER
// RUN: not sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--sigreg-choose-schedule=hopper=true wgmma-cluster=3" 2>&1 | FileCheck %s --check-prefix=BADCLUSTER
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--sigreg-choose-schedule=tensor-cores=false single-launch=0" | FileCheck %s --check-prefix=SIMT
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--sigreg-choose-schedule=single-launch=0 block-rows=32 block-slices=16" | FileCheck %s --check-prefix=BLOCKS
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --sigreg-choose-schedule | sigreg-opt --verify-each | FileCheck %s
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --sigreg-choose-schedule=tensor-cores=false | FileCheck %s --check-prefix=NOTC
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--sigreg-choose-schedule=block-rows=16 block-slices=16" | FileCheck %s --check-prefix=SLTILE
// RUN: not sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--sigreg-choose-schedule=single-launch=0 block-slices=8" 2>&1 | FileCheck %s --check-prefix=BADSIMT
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--sigreg-choose-schedule=hopper=true single-launch-warps=16" | FileCheck %s --check-prefix=WARPS
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--sigreg-choose-schedule=hopper=true single-launch-warps=4" | FileCheck %s --check-prefix=WARPS4
// RUN: not sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--sigreg-choose-schedule=single-launch-warps=12" 2>&1 | FileCheck %s --check-prefix=BADWARPS
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--sigreg-choose-schedule=hopper=true promote-accumulators=4" | FileCheck %s --check-prefix=PROMOTE
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--sigreg-choose-schedule=promote-accumulators=2" | FileCheck %s --check-prefix=PROMOTEMMA
// RUN: not sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--sigreg-choose-schedule=promote-accumulators=-2" 2>&1 | FileCheck %s --check-prefix=BADPROMOTE
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--sigreg-choose-schedule=hopper=true promote-accumulators=0" | FileCheck %s --check-prefix=NOPROMOTE
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--sigreg-choose-schedule=hopper=true promote-accumulators=4 wgmma-slices=128" | FileCheck %s --check-prefix=PROMOTEWIDE

// --sigreg-choose-schedule records on every sigreg.fused_ecf the schedule
// --convert-sigreg-to-gpu would choose (EcfSchedule.cpp), per shape and
// options; a schedule already present is kept, dynamic shapes are skipped.

// The blog shape: one launch for the whole chain, its GEMM on tensor cores
// with g rounded to bf16 (8 slices per block: 128 blocks; 16 would give 64);
// without tensor cores the SIMT GEMM on g in f32.
// CHECK-LABEL:  func.func @blog
// CHECK:          sigreg.fused_ecf {{.*}}{schedule = #sigreg.schedule<kernel = single_launch, tile = [32, 8], k_tile = 16, batch_tiles = 1, projection = rounded>}
// NOTC-LABEL:   func.func @blog
// NOTC:           schedule = #sigreg.schedule<kernel = single_launch, tile = [32, 4], k_tile = 16, batch_tiles = 1, projection = f32>
// SIMT-LABEL:   func.func @blog
// SIMT:           schedule = #sigreg.schedule<kernel = simt, tile = [32, 16], k_tile = 128, batch_tiles = 1, projection = f32>
// block-rows and block-slices reach the single launch's tile too: [16, 16]
// (two batch tiles of 16 rows); a tile a kernel cannot take is the
// schedule verifier's error (8 slices for the SIMT kernel).
// SLTILE-LABEL: func.func @blog
// SLTILE:         schedule = #sigreg.schedule<kernel = single_launch, tile = [16, 16], k_tile = 16, batch_tiles = 2, projection = rounded>
// BADSIMT:         error: 'sigreg.fused_ecf' op schedule kernel = simt needs tile rows and slices of 16, 32 or 64, got [32, 8]
// single-launch-warps=16: blocks of 16 warps (printed as warps = 16; 8, the
// rule, is not printed); the other kernels keep their own warps. Where 16
// warps cannot run (P > 17: the ECF sums past 128 registers; the SIMT GEMM
// of an f32 input) the option gives the rule's 8.
// WARPS-LABEL:  func.func @blog(
// WARPS:          schedule = #sigreg.schedule<kernel = single_launch, tile = [32, 8], k_tile = 16, batch_tiles = 1, projection = rounded, warps = 16>}
// WARPS-LABEL:  func.func @blog_p19
// WARPS:          schedule = #sigreg.schedule<kernel = single_launch, tile = [32, 8], k_tile = 16, batch_tiles = 1, projection = rounded>}
// WARPS-LABEL:  func.func @small_f32
// WARPS:          schedule = #sigreg.schedule<kernel = single_launch, tile = [32, 4], k_tile = 16, batch_tiles = 1, projection = f32>}
// WARPS-LABEL:  func.func @minimal
// WARPS:          schedule = #sigreg.schedule<kernel = single_launch, tile = [256, 8], k_tile = 16, batch_tiles = 1, projection = split, warps = 16>}
// WARPS-LABEL:  func.func @mid
// WARPS:          schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 64], k_tile = 16, batch_tiles = 8, projection = cooperative>}
// single-launch-warps=4: blocks of 4 warps on the tensor-core GEMM, P > 17
// included (a thread's ECF sums are per column, as with 8 warps); the SIMT
// GEMM keeps the rule's 8.
// WARPS4-LABEL: func.func @blog(
// WARPS4:         schedule = #sigreg.schedule<kernel = single_launch, tile = [32, 8], k_tile = 16, batch_tiles = 1, projection = rounded, warps = 4>}
// WARPS4-LABEL: func.func @blog_p19
// WARPS4:         schedule = #sigreg.schedule<kernel = single_launch, tile = [32, 8], k_tile = 16, batch_tiles = 1, projection = rounded, warps = 4>}
// WARPS4-LABEL: func.func @small_f32
// WARPS4:         schedule = #sigreg.schedule<kernel = single_launch, tile = [32, 4], k_tile = 16, batch_tiles = 1, projection = f32>}
// WARPS4-LABEL: func.func @minimal
// WARPS4:         schedule = #sigreg.schedule<kernel = single_launch, tile = [256, 8], k_tile = 16, batch_tiles = 1, projection = split, warps = 4>}
// BADWARPS:       error: single-launch-warps must be 0, 4, 8 or 16, got 12
// promote-accumulators=N: the tensor cores' sums promoted to f32 registers
// every N k-tiles, on the kernels with room for them: mma.sync, and on
// sm_90a the Hopper kernel's 128 x 64 tile, which the option selects for
// every Hopper problem (large too; per-slice none_bf16 would take the
// transposed tile by rule). The single launch's GEMM is not promoted.
// PROMOTE-LABEL:    func.func @blog(
// PROMOTE:            schedule = #sigreg.schedule<kernel = single_launch, tile = [32, 8], k_tile = 16, batch_tiles = 1, projection = rounded>}
// PROMOTE-LABEL:    func.func @mid
// PROMOTE:            schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 64], k_tile = 16, batch_tiles = 8, projection = cooperative, promote = 4>}
// PROMOTE-LABEL:    func.func @large(
// PROMOTE:            schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 64], k_tile = 16, batch_tiles = 64, projection = rounded, promote = 4>}
// PROMOTE-LABEL:    func.func @none_bf16
// PROMOTE:            schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 64], k_tile = 16, batch_tiles = 8, projection = split, promote = 4>}
// With wgmma-slices=128 promotion takes the 128 x 128 tile instead (any
// other tile request still gives the 128 x 64 one).
// PROMOTEWIDE-LABEL: func.func @none_bf16
// PROMOTEWIDE:         schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 128], k_tile = 16, batch_tiles = 8, projection = split, promote = 4>}
// PROMOTEMMA-LABEL: func.func @mid
// PROMOTEMMA:         schedule = #sigreg.schedule<kernel = mma, tile = [64, 128], k_tile = 16, batch_tiles = 16, projection = rounded, promote = 2>}
// PROMOTEMMA-LABEL: func.func @large_f32
// PROMOTEMMA:         schedule = #sigreg.schedule<kernel = simt, tile = [64, 64], k_tile = 16, batch_tiles = 128, projection = f32>}
// BADPROMOTE:         error: promote-accumulators must be -1 (by rule), 0 (never) or a number of k-tiles, got -2
func.func @blog(%x: tensor<32x2048xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 : tensor<32x2048xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

func.func @blog_p19(%x: tensor<32x2048xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 19 : tensor<32x2048xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

func.func @small_f32(%x: tensor<32x256xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 : tensor<32x256xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// N = 256, D = 1024, S = 256: one 256-row tile would give 32 blocks, so the
// batch is split while the grid holds at most half a block per SM and each
// tile keeps rows x D >= 32768: 4 batch tiles of 64 rows, 128 blocks. The
// minimal anchor (D = 16) keeps its one tile of 256 rows.
// CHECK-LABEL:  func.func @split_batch
// CHECK:          schedule = #sigreg.schedule<kernel = single_launch, tile = [64, 8], k_tile = 16, batch_tiles = 4, projection = rounded>
// CHECK-LABEL:  func.func @minimal
// CHECK:          schedule = #sigreg.schedule<kernel = single_launch, tile = [256, 8], k_tile = 16, batch_tiles = 1, projection = split>
func.func @split_batch(%x: tensor<256x1024xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 256 points = 17 : tensor<256x1024xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @minimal(%x: tensor<4x256x16xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 256 points = 17 : tensor<4x256x16xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// Mid (N = D = S = 1024, bf16): mma.sync with g rounded to 16 bits (a loss
// reduced over the slices) by default; on sm_90a the Hopper kernel with
// 64-slice tiles (32 tiles of 128 x 256, or 64 of 128 x 128, would leave
// SMs idle), whose grid generates g by rule (projection = cooperative: 8
// rows a thread, at most kCooperativeRuleMaxRows = 32).
// CHECK-LABEL:  func.func @mid
// CHECK:          schedule = #sigreg.schedule<kernel = mma, tile = [64, 128], k_tile = 16, batch_tiles = 16, projection = rounded>
// HOPPER-LABEL: func.func @mid
// HOPPER:         schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 64], k_tile = 16, batch_tiles = 8, projection = cooperative>
// SIMT-LABEL:   func.func @mid
// SIMT:           schedule = #sigreg.schedule<kernel = simt, tile = [64, 32], k_tile = 16, batch_tiles = 16, projection = f32>
// BLOCKS-LABEL: func.func @mid
// BLOCKS:         schedule = #sigreg.schedule<kernel = mma, tile = [64, 128]
// --wgmma-generate: the 64-slice tile generates its own g tile, split among
// the 8 batch-tile CTAs of each slice tile (a cluster of 8 by rule; 2 when
// wgmma-cluster says so): no projection launch. Tiles of 256 slices (large)
// and statistics that need the split (none_bf16) keep the projection kernel.
// GEN-LABEL:   func.func @mid
// GEN:           schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 64], k_tile = 16, batch_tiles = 8, projection = generated, cluster = 8>
// GEN-LABEL:   func.func @large(
// GEN:           projection = rounded>
// GEN-LABEL:   func.func @none_bf16
// GEN:           schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 64], k_tile = 16, batch_tiles = 8, projection = split>
// GEN2-LABEL:  func.func @mid
// GEN2:          schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 64], k_tile = 16, batch_tiles = 8, projection = generated, cluster = 2>
// --wgmma-cooperative=1: the one-tile kernel's 128 CTAs (one per
// multiprocessor) generate g together before a grid barrier: no projection
// launch. Large (a persistent kernel) and statistics that need the split
// (none_bf16, none_d1024) keep the projection kernel (schedule-invalid.mlir
// has the grid that is too large). =0: the projection kernel everywhere.
// COOP-LABEL:  func.func @mid
// COOP:          schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 64], k_tile = 16, batch_tiles = 8, projection = cooperative>
// COOP-LABEL:  func.func @n512_d2048
// COOP:          schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 64], k_tile = 16, batch_tiles = 4, projection = cooperative>
// COOP-LABEL:  func.func @large(
// COOP:          projection = rounded>
// COOP-LABEL:  func.func @none_bf16
// COOP:          projection = split>
// COOP-LABEL:  func.func @none_d1024
// COOP:          projection = split>
// NOCOOP-LABEL: func.func @mid
// NOCOOP:         schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 64], k_tile = 16, batch_tiles = 8, projection = rounded>
// BADCOOP:        error: wgmma-cooperative must be -1 (by rule), 0 (never) or 1 (wherever it can), got 2
func.func @mid(%x: tensor<1024x1024xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 : tensor<1024x1024xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// N = 512, D = 2048, S = 1024: 64 CTAs of the 64-slice tile, whose 16384
// threads would generate 128 rows each: by rule the projection kernel (the
// one launch measured 5% slower on the H200; wgmma-cooperative=1 takes it,
// the COOP lines above).
// HOPPER-LABEL: func.func @n512_d2048
// HOPPER:         schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 64], k_tile = 16, batch_tiles = 4, projection = rounded>
func.func @n512_d2048(%x: tensor<512x2048xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 : tensor<512x2048xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// Large bf16: mma.sync by default, the Hopper kernel on sm_90a: by rule its
// transposed tile of 256 rows x 128 slices (the grid fills the GPU with
// 256-slice tiles, a 16-bit input, no fused backward), persistent (4 groups
// of 32 CTAs walk 8 row tiles each, as many as the one-tile grid's 8 waves);
// wgmma-rows=256 alone keeps one tile per CTA; wgmma-rows=128 gives the
// 128 x 256 tile, in pairs by the cluster rule.
// CHECK-LABEL:   func.func @large(
// CHECK:           schedule = #sigreg.schedule<kernel = mma, tile = [64, 128], k_tile = 16, batch_tiles = 128, projection = rounded>
// HOPPER-LABEL:  func.func @large(
// HOPPER:          schedule = #sigreg.schedule<kernel = wgmma_persistent, tile = [256, 128], k_tile = 16, batch_tiles = 32, projection = rounded>
// R128-LABEL:    func.func @large(
// R128:            schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 256], k_tile = 16, batch_tiles = 64, projection = rounded, cluster = 2>
// R256-LABEL:    func.func @large(
// R256:            schedule = #sigreg.schedule<kernel = wgmma, tile = [256, 128], k_tile = 16, batch_tiles = 32, projection = rounded>
// BADROWS: wgmma-rows must be 0, 128 or 256, got 64
// The ping-pong kernel (--wgmma-persistent) has 128 x 128 tiles whatever
// wgmma-slices says, in pairs where the batch tiles pair up.
// PERSIST-LABEL: func.func @large(
// PERSIST:         schedule = #sigreg.schedule<kernel = wgmma_persistent, tile = [128, 128], k_tile = 16, batch_tiles = 64, projection = rounded, cluster = 2>
// With wgmma-rows=256, --wgmma-persistent makes the transposed tile
// persistent: kernel = wgmma_persistent, tile = [256, 128], never in
// clusters (its CTAs keep one slice tile each).
// TPERSIST-LABEL: func.func @mid
// TPERSIST:         schedule = #sigreg.schedule<kernel = wgmma_persistent, tile = [256, 128], k_tile = 16, batch_tiles = 4, projection = rounded>
// TPERSIST-LABEL: func.func @large(
// TPERSIST:         schedule = #sigreg.schedule<kernel = wgmma_persistent, tile = [256, 128], k_tile = 16, batch_tiles = 32, projection = rounded>
// W128-LABEL:    func.func @large(
// W128:            schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 128], k_tile = 16, batch_tiles = 64, projection = rounded>
// The cluster rule (256-slice tiles, 64 k-tiles or more, batch tiles that
// pair up) can be
// overridden; a cluster size the kernel has no rule for is an option error.
// NOCLUSTER-LABEL: func.func @large(
// NOCLUSTER:         schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 256], k_tile = 16, batch_tiles = 64, projection = rounded>
// BADCLUSTER: wgmma-cluster must be 0, 1, 2 or 4, got 3
func.func @large(%x: tensor<8192x4096xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 4096 points = 17 : tensor<8192x4096xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// Large f32: the SIMT kernel without sm_90a; on sm_90a the Hopper kernel on
// bf16 hi + lo parts (x split by a kernel, g generated split), 128-row tiles
// by rule, the transposed tile on request.
// CHECK-LABEL:  func.func @large_f32
// CHECK:          schedule = #sigreg.schedule<kernel = simt, tile = [64, 64], k_tile = 16, batch_tiles = 128, projection = f32>
// HOPPER-LABEL: func.func @large_f32
// HOPPER:         schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 256], k_tile = 16, batch_tiles = 64, projection = split, cluster = 2>
// R256-LABEL:   func.func @large_f32
// R256:           schedule = #sigreg.schedule<kernel = wgmma, tile = [256, 128], k_tile = 16, batch_tiles = 32, projection = split>
func.func @large_f32(%x: tensor<8192x4096xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 4096 points = 17 : tensor<8192x4096xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// Per-slice statistics need the hi + lo split of g: two MMAs per fragment
// on mma.sync, two segments of the reduction on the Hopper kernel.
// CHECK-LABEL:  func.func @none_bf16
// CHECK:          schedule = #sigreg.schedule<kernel = mma, tile = [64, 128], k_tile = 16, batch_tiles = 16, projection = split>
// HOPPER-LABEL: func.func @none_bf16
// HOPPER:         schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 64], k_tile = 16, batch_tiles = 8, projection = split>
func.func @none_bf16(%x: tensor<1024x1024xbf16>, %seed: i64) -> tensor<1024xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 reduction = none : tensor<1024x1024xbf16> -> tensor<1024xf32>
  return %l : tensor<1024xf32>
}

// Per-slice statistics at a large batch and D: the tensor cores' truncated
// sums would cost 2 sqrt(8192) x 512 MMAs x 2^-25 = 2.8e-3 of a slice's
// statistic (truncatedAccumulationError), above its 1e-3 budget, so by rule
// they are promoted every 4 k-tiles (on sm_90a the 128 x 128 tile, whose 256
// CTAs fill the 132 multiprocessors: promotedWideTileFills), unless
// promote-accumulators=0. At D = 1024 (6.9e-4) they are not.
// CHECK-LABEL:     func.func @none_large
// CHECK:             schedule = #sigreg.schedule<kernel = mma, tile = [64, 128], k_tile = 16, batch_tiles = 128, projection = split, promote = 4>
// HOPPER-LABEL:    func.func @none_large
// HOPPER:            schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 128], k_tile = 16, batch_tiles = 64, projection = split, promote = 4>
// HOPPER-LABEL:    func.func @none_d1024
// HOPPER:            schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 128], k_tile = 16, batch_tiles = 64, projection = split>
// NOPROMOTE-LABEL: func.func @none_large
// NOPROMOTE:         schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 128], k_tile = 16, batch_tiles = 64, projection = split>
func.func @none_large(%x: tensor<8192x4096xbf16>, %seed: i64) -> tensor<512xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 512 points = 17 reduction = none : tensor<8192x4096xbf16> -> tensor<512xf32>
  return %l : tensor<512xf32>
}
func.func @none_d1024(%x: tensor<8192x1024xbf16>, %seed: i64) -> tensor<512xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 512 points = 17 reduction = none : tensor<8192x1024xbf16> -> tensor<512xf32>
  return %l : tensor<512xf32>
}

// Eight views of 512 rows, S = 6144: 48 slice tiles leave the persistent
// transposed kernel two groups (96 CTAs of 8 row tiles each) against the
// one-tile grid's 6 waves, so by rule the tile stays one per CTA
// (persistentTransposedPays); --wgmma-persistent forces it.
// HOPPER-LABEL:   func.func @views8
// HOPPER:           schedule = #sigreg.schedule<kernel = wgmma, tile = [256, 128], k_tile = 16, batch_tiles = 2, projection = rounded>
// TPERSIST-LABEL: func.func @views8
// TPERSIST:         schedule = #sigreg.schedule<kernel = wgmma_persistent, tile = [256, 128], k_tile = 16, batch_tiles = 2, projection = rounded>
func.func @views8(%x: tensor<8x512x3072xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 6144 points = 17 : tensor<8x512x3072xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// An explicit projection, a grid too small to fill the GPU: deeper k tiles.
// CHECK-LABEL:  func.func @explicit_f32
// CHECK:          schedule = #sigreg.schedule<kernel = simt, tile = [64, 16], k_tile = 64, batch_tiles = 1, projection = explicit>
// BLOCKS-LABEL: func.func @explicit_f32
// BLOCKS:         schedule = #sigreg.schedule<kernel = simt, tile = [32, 16], k_tile = 128, batch_tiles = 2, projection = explicit>
func.func @explicit_f32(%x: tensor<3x37x129xf32>, %a: tensor<129x77xf32>) -> (tensor<3x77x17xf32>, tensor<3x77x17xf32>) {
  %c, %s = sigreg.fused_ecf %x, %a : tensor<3x37x129xf32>, tensor<129x77xf32> -> tensor<3x77x17xf32>
  return %c, %s : tensor<3x77x17xf32>, tensor<3x77x17xf32>
}

// A schedule written by hand is kept.
// CHECK-LABEL:  func.func @kept
// CHECK:          schedule = #sigreg.schedule<kernel = simt, tile = [16, 16], k_tile = 32, batch_tiles = 3, projection = explicit>
// HOPPER-LABEL: func.func @kept
// HOPPER:         schedule = #sigreg.schedule<kernel = simt, tile = [16, 16], k_tile = 32, batch_tiles = 3, projection = explicit>
func.func @kept(%x: tensor<3x37x129xf32>, %a: tensor<129x77xf32>) -> (tensor<3x77x17xf32>, tensor<3x77x17xf32>) {
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = simt, tile = [16, 16], k_tile = 32, batch_tiles = 3, projection = explicit>} : tensor<3x37x129xf32>, tensor<129x77xf32> -> tensor<3x77x17xf32>
  return %c, %s : tensor<3x77x17xf32>, tensor<3x77x17xf32>
}

// A dynamic batch is scheduled once specialized.
// CHECK-LABEL:  func.func @dynamic
// CHECK-NOT:      schedule
// CHECK:          return
func.func @dynamic(%x: tensor<2x?x32xbf16>, %a: tensor<32x64xbf16>) -> (tensor<2x64x17xf32>, tensor<2x64x17xf32>) {
  %c, %s = sigreg.fused_ecf %x, %a : tensor<2x?x32xbf16>, tensor<32x64xbf16> -> tensor<2x64x17xf32>
  return %c, %s : tensor<2x64x17xf32>, tensor<2x64x17xf32>
}

// A small per-slice bf16 problem: the single launch on tensor cores with g
// as hi + lo parts (per-slice statistics need its f32 accuracy).
// CHECK-LABEL:  func.func @small_none
// CHECK:          schedule = #sigreg.schedule<kernel = single_launch, tile = [64, 8], k_tile = 16, batch_tiles = 1, projection = split>
// NOTC-LABEL:   func.func @small_none
// NOTC:           schedule = #sigreg.schedule<kernel = single_launch, tile = [64, 1], k_tile = 16, batch_tiles = 1, projection = f32>
func.func @small_none(%x: tensor<2x64x100xbf16>, %seed: i64) -> tensor<2x50xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 50 points = 17 reduction = none : tensor<2x64x100xbf16> -> tensor<2x50xf32>
  return %l : tensor<2x50xf32>
}

// A loss reduced over three slices of a batch of two (a random problem
// that missed the bf16 tolerance with g rounded: 2.6e-3): the single
// launch's per-sample term (singleLaunchRoundedError) asks for the split,
// where roundedProjectionError alone would round g.
// CHECK-LABEL:  func.func @tiny_batch
// CHECK:          schedule = #sigreg.schedule<kernel = single_launch, tile = [16, 8], k_tile = 16, batch_tiles = 1, projection = split>
func.func @tiny_batch(%x: tensor<3x2x191xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1 points = 17 clip = zero_below(1.0e-02) : tensor<3x2x191xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// D = 4096 but 63 batch tiles (N = 8000): they do not pair up, no cluster.
// D = 2048 (32 k-tiles): no cluster by rule. By rule both take the
// transposed tile (32 and 16 batch tiles of 256 rows).
// R128-LABEL:   func.func @large_ragged
// R128:           schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 256], k_tile = 16, batch_tiles = 63, projection = rounded>
// R128-LABEL:   func.func @d2048
// R128:           schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 256], k_tile = 16, batch_tiles = 32, projection = rounded>
// HOPPER-LABEL: func.func @large_ragged
// HOPPER:         schedule = #sigreg.schedule<kernel = wgmma_persistent, tile = [256, 128], k_tile = 16, batch_tiles = 32, projection = rounded>
// HOPPER-LABEL: func.func @d2048
// HOPPER:         schedule = #sigreg.schedule<kernel = wgmma_persistent, tile = [256, 128], k_tile = 16, batch_tiles = 16, projection = rounded>
// The ping-pong kernel: no pair for 63 batch tiles.
// PERSIST-LABEL: func.func @large_ragged
// PERSIST:         schedule = #sigreg.schedule<kernel = wgmma_persistent, tile = [128, 128], k_tile = 16, batch_tiles = 63, projection = rounded>
// More than 132 slice tiles of 128 (S = 17024): the transposed tile stays
// one tile per CTA (there in the pair of CTAs asked for).
// TPERSIST-LABEL: func.func @large_ragged
// TPERSIST:         schedule = #sigreg.schedule<kernel = wgmma_persistent, tile = [256, 128], k_tile = 16, batch_tiles = 32, projection = rounded>
// TPERSIST-LABEL: func.func @many_slices
// TPERSIST:         schedule = #sigreg.schedule<kernel = wgmma, tile = [256, 128], k_tile = 16, batch_tiles = 16, projection = rounded, cluster = 2>
func.func @large_ragged(%x: tensor<8000x4096xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 4096 points = 17 : tensor<8000x4096xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @d2048(%x: tensor<4096x2048xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 4096 points = 17 : tensor<4096x2048xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @many_slices(%x: tensor<4096x256xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 17024 points = 17 : tensor<4096x256xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
