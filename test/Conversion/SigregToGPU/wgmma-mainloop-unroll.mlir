// RUN: sigreg-opt %s -split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--convert-sigreg-to-gpu=hopper=1 single-launch=0 wgmma-rows=128 wgmma-cooperative=0" --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s

// Stage 3 of the Hopper kernel, unrolled or not (unrollsMainloop in
// WgmmaEcfKernel.cpp). Mid (N = D = S = 1024): 64-slice tiles, 8 x 16 = 128
// CTAs, one per multiprocessor, so the ring is 8 stages deep (192 KB) and
// the kernel keeps the register budget of one CTA (no nvvm.minctasm). Its
// 16 k-tiles are emitted one by one: constant stages 0-7 twice, the phase
// false in the first round and true in the second, the stage before each
// k-tile's handed back (none before the first), no loop.

// With one CTA's registers the consumers also load the 64 per-chunk norm
// sums of their column and form its angle scale before the mainloop (the
// loads complete under the first TMA loads; emitColumnScale).
// CHECK-LABEL: gpu.func @sigreg_fused_ecf_wgmma
// CHECK-SAME:    kernel attributes {known_block_size = array<i32: 288, 1, 1>, sigreg.grid_constants
// CHECK:         } else {
// CHECK-COUNT-64: memref.load %{{.*}} : memref<64x1024xf32>
// CHECK:         math.sqrt
// CHECK-NEXT:    arith.divf
// CHECK:         %[[ACC0:.*]] = nvgpu.warpgroup.mma.init.accumulator -> <fragmented = vector<64x64xf32>>
// CHECK-NEXT:    nvgpu.mbarrier.try_wait.parity %[[FULL:.*]][%c0], %false
// CHECK:         %[[ACC1:.*]] = nvgpu.warpgroup.mma %{{.*}}, %{{.*}}, %[[ACC0]] {transposeB}
// CHECK-NEXT:    nvgpu.mbarrier.try_wait.parity %[[FULL]][%c1], %false
// CHECK:         nvgpu.warpgroup.mma %{{.*}}, %{{.*}}, %[[ACC1]] {transposeB}
// CHECK-NEXT:    scf.if
// CHECK-NEXT:      nvgpu.mbarrier.arrive %[[EMPTY:.*]][%c0]
// CHECK-COUNT-6: nvgpu.mbarrier.try_wait.parity %[[FULL]][%c{{[2-7]}}], %false
// CHECK:         nvgpu.mbarrier.arrive %[[EMPTY]][%c6]
// CHECK-NEXT:    }
// CHECK-NEXT:    nvgpu.mbarrier.try_wait.parity %[[FULL]][%c0], %true
// CHECK:         nvgpu.mbarrier.arrive %[[EMPTY]][%c7]
// CHECK-COUNT-7: nvgpu.mbarrier.try_wait.parity %[[FULL]][%c{{[1-7]}}], %true
// CHECK:         nvgpu.mbarrier.arrive %[[EMPTY]][%c6]
// CHECK-NEXT:    }
// CHECK-NEXT:    nvvm.wgmma.wait.group.sync.aligned 0
func.func @mid(%x: tensor<1024x1024xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 reduction = mean : tensor<1024x1024xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// 256-slice tiles (16 x 33 = 528 CTAs) with D = 1024: 16 k-tiles go round
// the 4-stage ring four times, so the mainloop stays a loop (unrolled, the
// stages' descriptors stay live across it: ptxas spilled at large).

// CHECK-LABEL: gpu.func @sigreg_fused_ecf_wgmma
// CHECK-SAME:    kernel attributes {known_block_size = array<i32: 384, 1, 1>
// CHECK:         %[[ACC0:.*]] = nvgpu.warpgroup.mma.init.accumulator -> <fragmented = vector<64x256xf32>>
// CHECK:         scf.for %{{.*}} = %c0 to %c16 step %c1 iter_args(%{{.*}} = %[[ACC0]], %{{.*}} = %false)
// CHECK:           nvgpu.warpgroup.mma
// CHECK:           scf.yield
// CHECK:         nvvm.wgmma.wait.group.sync.aligned 0
func.func @long(%x: tensor<4224x1024xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 4096 points = 17 reduction = mean : tensor<4224x1024xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Two CTAs per multiprocessor (128-slice tiles, minctasm 2) and 32 k-tiles on
// a 3-stage ring: a loop.

// CHECK-LABEL: gpu.func @sigreg_fused_ecf_wgmma
// CHECK-SAME:    kernel attributes {known_block_size = array<i32: 288, 1, 1>, nvvm.minctasm = 2 : i32
// CHECK:         %[[ACC0:.*]] = nvgpu.warpgroup.mma.init.accumulator -> <fragmented = vector<64x128xf32>>
// CHECK:         scf.for %{{.*}} = %c0 to %c32 step %c1 iter_args(%{{.*}} = %[[ACC0]], %{{.*}} = %false)
func.func @twocta(%x: tensor<2x512x2048xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 4096 points = 17 reduction = mean : tensor<2x512x2048xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
