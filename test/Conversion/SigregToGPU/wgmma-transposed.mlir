// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu="hopper=1 wgmma-rows=256" --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu="hopper=1 wgmma-rows=256 wgmma-cluster=2" --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=PAIR

// The transposed one-tile kernel (tile [256, 128], WgmmaEcfKernel.cpp)
// stage by stage, for N = 1000 (4 batch tiles of 256 rows, the last
// ragged), D = 200 (4 k-tiles, the last partial), S = 1928 (16 slice tiles
// of 128, the last ragged), P = 5, bf16, seeded, mean. The product is
// D = g^T x^T: each consumer warpgroup multiplies its 64 slices of the g
// tile with the 256 rows of the x tile, and computes the ECF from its
// accumulators (no y tile in shared memory).

// The host: one CTA per tile, a 4-stage ring of 48 KB stages and nothing
// else in the dynamic shared memory; the tiles' sums go to the
// finalize-loss kernel (no tail in this kernel).
// CHECK:       gpu.launch_func  @sigreg_kernels::@sigreg_fused_ecf_wgmma_transposed blocks in (%c16, %c4, %c1) threads in (%c384, %c1, %c1)  dynamic_shared_memory_size %c196608_i32 args({{.*}} : memref<13x1928xf32>, {{.*}} : memref<4x1x5x1928xf32>, {{.*}} : memref<4x1x5x1928xf32>)
// CHECK:       gpu.launch_func  @sigreg_kernels::@sigreg_ecf_finalize_loss

// CHECK:       gpu.func @sigreg_fused_ecf_wgmma_transposed(
// CHECK-SAME:      known_block_size = array<i32: 384, 1, 1>
// CHECK-NOT:       nvvm.cluster_dim
// CHECK:         %[[XMAP:.*]] = builtin.unrealized_conversion_cast %arg0 : !llvm.ptr to !nvgpu.tensormap.descriptor<tensor = memref<256x64xbf16, 3>, swizzle = swizzle_128b
// CHECK:         %[[GMAP:.*]] = builtin.unrealized_conversion_cast %arg1 : !llvm.ptr to !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b

// Stage 1: each stage is read by both consumer warpgroups (`empty` counts 2).
// CHECK:         %[[FULL:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
// CHECK:         %[[EMPTY:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
// CHECK:         nvgpu.mbarrier.init %[[FULL]][%c0], %c1
// CHECK-NEXT:    nvgpu.mbarrier.init %[[EMPTY]][%c0], %c2

// Stage 2, one producer thread: 4 k-tiles of 48 KB, the x box [256 rows]
// [64 k] and the two g boxes [64 k][64 slices].
// CHECK:         nvvm.setmaxregister  decrease 40
// CHECK:           scf.for %{{.*}} = %c0 to %c4 step %c1 {
// CHECK:             nvgpu.mbarrier.try_wait.parity %[[EMPTY]]
// CHECK:             nvgpu.mbarrier.arrive.expect_tx %[[FULL]][%{{.*}}], %c49152
// CHECK:             nvgpu.tma.async.load %[[XMAP]]{{.*}} -> memref<256x64xbf16, #gpu.address_space<workgroup>>
// CHECK:             nvgpu.tma.async.load %[[GMAP]]
// CHECK:             nvgpu.tma.async.load %[[GMAP]]
// CHECK-NOT:         nvgpu.tma.async.load

// The consumers: the warpgroup index made warp-uniform by a shuffle (it
// picks the g box the wgmmas read). The column scales of a thread's two
// slices (13 norm chunks each): lanes with lane % 2 = i load slice i's, the
// quad reads both by two index shuffles, before the mainloop.
// CHECK:         nvvm.setmaxregister  increase 232
// CHECK:         gpu.shuffle  idx %{{.*}}, %c0_i32, %c32_i32 : i32
// CHECK-COUNT-13:  memref.load %arg2
// CHECK:         math.sqrt
// CHECK:         gpu.shuffle  idx %{{.*}} : f32
// CHECK-NEXT:    arith.addi
// CHECK-NEXT:    gpu.shuffle  idx %{{.*}} : f32

// Stage 3: k-tile 0, then the loop over k-tiles 1-3; per k-tile 4 k16 steps
// of one wgmma m64n256k16 from raw descriptors (A: the warpgroup's g box
// read M-major, col, 128-byte swizzle, leading offset 8 KB, stride 1 KB;
// B: the x tile read K-major); the first step overwrites the accumulators.
// CHECK:         nvgpu.mbarrier.try_wait.parity %[[FULL]][%c0]
// CHECK:         nvvm.wgmma.fence.aligned
// CHECK:         arith.ori %{{.*}}, %c4611686293305360384_i64 : i64
// CHECK:         arith.ori %{{.*}}, %c4611686293338849280_i64 : i64
// CHECK:         nvvm.wgmma.mma_async {{.*}} <m = 64, n = 256, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <col>], B[<bf16>, <one>, <col>]
// CHECK-COUNT-3: nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>]
// CHECK:         nvvm.wgmma.commit.group.sync.aligned
// CHECK:         scf.for %{{.*}} = %c1 to %c4 step %c1 iter_args
// CHECK:           nvgpu.mbarrier.try_wait.parity %[[FULL]]
// CHECK-COUNT-4:   nvvm.wgmma.mma_async {{.*}} <m = 64, n = 256, k = 16>, D[<f32>, <one>]
// CHECK:           nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:      nvvm.wgmma.wait.group.sync.aligned 1
// CHECK:           scf.if
// CHECK:             nvgpu.mbarrier.arrive %[[EMPTY]]
// CHECK:         nvvm.wgmma.wait.group.sync.aligned 0

// Stage 5 from the accumulators: 256 - count rows past N (TMA's zeros),
// then the thread's two slices (a loop), 32 row pairs each (the elements of
// the slice selected), one range-reduced sin/cos.approx of each pair's half
// sum and half difference; the 2 (P - 1) = 8 sums added over the lane quad
// by xor shuffles 1 and 2, each cos sum less the rows past N, stored by the
// quad's first lane as the tile's [T, V, P, S] sums.
// CHECK:         arith.minui %{{.*}}, %c256 : index
// CHECK:         scf.for %{{.*}} = %c0 to %c2 step %c1 {
// CHECK:           llvm.extractvalue
// CHECK:           arith.select
// CHECK:           llvm.call_intrinsic "llvm.nvvm.sin.approx.f"
// CHECK:           llvm.call_intrinsic "llvm.nvvm.cos.approx.f"
// CHECK-COUNT-8:   gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK-COUNT-4:   arith.subf
// CHECK:           scf.if
// CHECK-COUNT-10:    memref.store %{{.*}} : memref<4x1x5x1928xf32>
// CHECK:         gpu.return

// Pairs of CTAs on request: the g boxes multicast, one each.
// PAIR:        gpu.func @sigreg_fused_ecf_wgmma_transposed(
// PAIR-SAME:       nvvm.cluster_dim = array<i32: 1, 2, 1>
// PAIR:          nvgpu.mbarrier.init %{{.*}}[%c0], %c4
// PAIR:          nvgpu.tma.async.load %{{.*}} multicast_mask = %c3_i16
// PAIR-NOT:      nvgpu.tma.async.load
// PAIR:          nvvm.mapa
// PAIR:          gpu.return
func.func @ragged(%x: tensor<1000x200xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1928 points = 5 : tensor<1000x200xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
