// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu="hopper=1 wgmma-rows=256 wgmma-persistent=1 single-launch=0" --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s

// The transposed kernel made persistent (kernel = wgmma_persistent, tile =
// [256, 128], WgmmaEcfKernel.cpp): the stages of the one-tile transposed
// kernel (wgmma-transposed.mlir) inside a walk over row tiles. V = 2,
// N = 1024 (4 batch tiles per view, 8 row tiles), D = 200 (4 k-tiles),
// S = 1928 (16 slice tiles, the last ragged), P = 5, bf16, seeded, mean.
// transposedSumGroups: min(4 batch tiles, 132 / 16) = 4 groups of 16 CTAs;
// CTA c keeps slice tile c % 16 and walks the row tiles g, g + 4 of its
// group g = c / 16 (one per view), so the finalize-loss kernel reads 4
// sums per (view, slice), one per group, not one per batch tile.

// The host: 64 CTAs, the ring and the [2 P][128] group sums (192 KB + 5 KB).
// CHECK-LABEL: func.func @views
// CHECK:       gpu.launch_func  @sigreg_kernels::@sigreg_fused_ecf_wgmma_transposed blocks in (%c64, %c1, %c1) threads in (%c384, %c1, %c1)  dynamic_shared_memory_size %c201728_i32 args({{.*}} : memref<13x1928xf32>, {{.*}} : memref<4x2x5x1928xf32>, {{.*}} : memref<4x2x5x1928xf32>)
// CHECK:       gpu.launch_func  @sigreg_kernels::@sigreg_ecf_finalize_loss {{.*}} args({{.*}} : memref<4x2x5x1928xf32>, {{.*}} : memref<4x2x5x1928xf32>,

// The CTA's slice tile and group, its row tiles (8 - group + 3) / 4, and
// the group sums after the ring.
// CHECK:       gpu.func @sigreg_fused_ecf_wgmma_transposed(
// CHECK-NOT:       nvvm.cluster_dim
// CHECK:         nvgpu.mbarrier.init %{{.*}}[%c0], %c2
// CHECK:         %[[BID:.*]] = gpu.block_id  x
// CHECK-NEXT:    %[[TILE:.*]] = arith.remui %[[BID]], %c16 : index
// CHECK-NEXT:    %[[S0:.*]] = arith.muli %[[TILE]], %c128 : index
// CHECK-NEXT:    %[[GROUP:.*]] = arith.divui %[[BID]], %c16 : index
// CHECK-NEXT:    %[[LEFT:.*]] = arith.subi %c11, %[[GROUP]] : index
// CHECK-NEXT:    %[[COUNT:.*]] = arith.divui %[[LEFT]], %c4 : index
// CHECK-NEXT:    %[[SUMS:.*]] = memref.view %{{.*}}[%c196608][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<10x128xf32, #gpu.address_space<workgroup>>

// The producer: the row tiles' k-tiles as one run of ring steps (row tile
// i takes steps 4 i .. 4 i + 3), so that it fills the ring for the next
// tile while the consumers compute this one's ECF.
// CHECK:         nvvm.setmaxregister  decrease 40
// CHECK:           scf.for %[[I:.*]] = %c0 to %[[COUNT]] step %c1 {
// CHECK-NEXT:        %[[BASE:.*]] = arith.muli %[[I]], %c4 : index
// CHECK:             scf.for %[[K:.*]] = %c0 to %c4 step %c1 {
// CHECK-NEXT:          arith.addi %[[BASE]], %[[K]] : index
// CHECK:               nvgpu.mbarrier.try_wait.parity
// CHECK:               nvgpu.tma.async.load
// CHECK:               nvgpu.tma.async.load
// CHECK:               nvgpu.tma.async.load
// CHECK-NOT:           nvgpu.tma.async.load
// CHECK:             }
// CHECK-NEXT:      }

// The consumers: the column scales once (the slice tile is the CTA's), the
// quad leaders clear their slices' group sums (only a leader touches them:
// no barrier), then per row tile the mainloop from its ring step and the
// ECF from the accumulators.
// CHECK:         nvvm.setmaxregister  increase 232
// CHECK-COUNT-13:  memref.load %arg2
// CHECK:         scf.if
// CHECK-COUNT-20:  memref.store %cst{{.*}}, %[[SUMS]]
// CHECK:         scf.for %[[J:.*]] = %c0 to %[[COUNT]] step %c1 {
// CHECK-NOT:       memref.load %arg2
// CHECK:           nvgpu.mbarrier.try_wait.parity
// CHECK:           nvvm.wgmma.mma_async {{.*}} <m = 64, n = 256, k = 16>, D[<f32>, <zero>]
// CHECK:           nvvm.wgmma.wait.group.sync.aligned 0

// The tile's sums, added over the lane quad, into the group sums: the rows
// counted (row 0) and the 2 (P - 1) cos and sin sums.
// CHECK:           scf.for %{{.*}} = %c0 to %c2 step %c1 {
// CHECK-COUNT-8:     gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK:             scf.if
// CHECK:               %[[COL:.*]] = arith.subi %{{.*}}, %[[S0]] : index
// CHECK-COUNT-9:       memref.store %{{.*}}, %[[SUMS]][%{{.*}}, %[[COL]]]

// The group's last row tile in its view: the leaders write the group's sums
// of their slices inside S to slot [group, view] and clear them.
// CHECK:           %[[NEXT:.*]] = arith.addi %[[J]], %c1 : index
// CHECK:           arith.cmpi eq
// CHECK:           arith.cmpi ult, %[[NEXT]], %[[COUNT]] : index
// CHECK:           scf.if
// CHECK:             arith.cmpi ult, %{{.*}}, %c1928 : index
// CHECK:             scf.if
// CHECK-COUNT-10:      memref.store %{{.*}}, %arg{{[34]}}[%[[GROUP]], %{{.*}}, %{{.*}}] : memref<4x2x5x1928xf32>
// CHECK:             }
// CHECK-COUNT-10:    memref.store %cst{{.*}}, %[[SUMS]]
// CHECK:         gpu.return
func.func @views(%x: tensor<2x1024x200xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1928 points = 5 : tensor<2x1024x200xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// One batch tile (N = 256): one group of 16 CTAs, which write the means
// [V, S, P] themselves; the epilogue kernel follows (no finalize).
// CHECK-LABEL: func.func @one_group
// CHECK:       gpu.launch_func  @sigreg_kernels::@sigreg_fused_ecf_wgmma_transposed blocks in (%c16, %c1, %c1) {{.*}} : memref<1x1928x5xf32>, {{.*}} : memref<1x1928x5xf32>)
// CHECK:       gpu.launch_func  @sigreg_kernels::@sigreg_epilogue
// CHECK:       gpu.func @sigreg_fused_ecf_wgmma_transposed(
// CHECK:         arith.divf %{{.*}}, %cst{{.*}} : f32
// CHECK-NEXT:    memref.store %{{.*}}, %arg3[%{{.*}}, %{{.*}}, %c0] : memref<1x1928x5xf32>
func.func @one_group(%x: tensor<256x200xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1928 points = 5 : tensor<256x200xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
