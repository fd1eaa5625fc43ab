// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu="hopper=1 wgmma-persistent=1" --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu="hopper=1 wgmma-persistent=1 wgmma-cluster=1" --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=SINGLE

// The ping-pong kernel (--wgmma-persistent, WgmmaEcfKernel.cpp) stage by
// stage, for N = 1000 (8 batch tiles, the last ragged), D = 200 (4 k-tiles,
// the last partial), S = 1928 (16 slice tiles of 128, the last ragged),
// P = 5, bf16, seeded, mean. Tiles of 128 slices x 128 rows, one per
// consumer warpgroup; pairs of CTAs (the batch tiles pair up) share the
// g tile. 128 tiles: 128 CTAs, one tile pair per cluster.

// CHECK:       gpu.launch_func  @sigreg_kernels::@sigreg_fused_ecf_wgmma_persistent blocks in (%c128, %c1, %c1) threads in (%c384, %c1, %c1)  dynamic_shared_memory_size %c197632_i32
// The tiles' sums go to the finalize-loss kernel (no tail in this kernel).
// CHECK:       gpu.launch_func  @sigreg_kernels::@sigreg_ecf_finalize_loss

// CHECK:       gpu.func @sigreg_fused_ecf_wgmma_persistent(
// CHECK-SAME:      known_block_size = array<i32: 384, 1, 1>
// CHECK-SAME:      nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK:         %[[XMAP:.*]] = builtin.unrealized_conversion_cast %arg0 : !llvm.ptr to !nvgpu.tensormap.descriptor<tensor = memref<128x64xbf16, 3>, swizzle = swizzle_128b
// CHECK:         %[[GMAP:.*]] = builtin.unrealized_conversion_cast %arg1 : !llvm.ptr to !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b

// Stage 1: a 6-stage ring; each stage is read by one warpgroup in each CTA
// of the pair (`empty` counts 2), initialized cluster-wide.
// CHECK:         %[[FULL:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 6>
// CHECK:         %[[EMPTY:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 6>
// CHECK:         %[[RANK32:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK:         nvgpu.mbarrier.init %[[FULL]][%c0], %c1
// CHECK-NEXT:    nvgpu.mbarrier.init %[[EMPTY]][%c0], %c2
// CHECK:         nvgpu.mbarrier.init %[[EMPTY]][%c5], %c2
// CHECK:         nvvm.fence.mbarrier.init
// CHECK:         nvvm.cluster.arrive {aligned}
// CHECK-NEXT:    nvvm.cluster.wait {aligned}

// Stage 2, one producer thread: every tile of the CTA, 4 k-tiles each, 32 KB
// per stage: its own x box [128 rows][64 k] and one of the two g boxes
// [64 k][64 slices], multicast to both CTAs (mask 0b11).
// CHECK:         nvvm.setmaxregister  decrease 40
// CHECK:           scf.for %{{.*}} = %c0 to %c4 step %c1 {
// CHECK:             nvgpu.mbarrier.try_wait.parity %[[EMPTY]]
// CHECK:             nvgpu.mbarrier.arrive.expect_tx %[[FULL]][%{{.*}}], %c32768
// CHECK:             nvgpu.tma.async.load %[[XMAP]]
// CHECK-NOT:         multicast_mask
// CHECK:             nvgpu.tma.async.load %[[GMAP]]{{.*}} multicast_mask = %c3_i16
// CHECK-NOT:         nvgpu.tma.async.load

// The consumers: the warpgroup index made warp-uniform by a shuffle (ptxas
// serializes wgmmas in loops it takes for divergent, C7520); warpgroup w
// takes the CTA's tiles w, w + 2, ...
// CHECK:         nvvm.setmaxregister  increase 232
// CHECK:         gpu.shuffle  idx
// CHECK:         scf.for %[[TILE:.*]] = %{{.*}} to %{{.*}} step %c2 {
// Each thread's column scale (thread = slice, 13 norm chunks) is loaded
// while the warpgroup waits for its turn (named barrier 2 + w, both
// warpgroups), then published to the warpgroup in shared memory.
// CHECK-COUNT-13:  memref.load %arg2
// CHECK:           math.sqrt
// CHECK:           scf.if
// CHECK-NEXT:        arith.index_cast
// CHECK-NEXT:        nvvm.barrier id = %{{.*}} number_of_threads = %c256_i32
// CHECK:           memref.store %{{.*}}, %{{.*}} : memref<128xf32, strided<[1], offset: ?>, #gpu.address_space<workgroup>>

// Stage 3: k-tile 0, then the loop over k-tiles 1-3. Per k-tile 4 k16 steps
// x 2 halves of wgmma m64n128k16 from raw descriptors (A: the g box read
// M-major, col; 128-byte swizzle, leading offset 8 KB, stride 1 KB; B: the
// x tile read K-major, col); the first step overwrites the accumulators
// (scale-d zero).
// CHECK:           nvgpu.mbarrier.try_wait.parity %[[FULL]]
// CHECK:           nvvm.wgmma.fence.aligned
// CHECK:           arith.ori %{{.*}}, %c4611686293305360384_i64 : i64
// CHECK:           arith.ori %{{.*}}, %c4611686293338849280_i64 : i64
// CHECK:           nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <col>], B[<bf16>, <one>, <col>]
// CHECK:           nvvm.wgmma.mma_async {{.*}} D[<f32>, <zero>]
// CHECK-COUNT-6:   nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>]
// CHECK:           nvvm.wgmma.commit.group.sync.aligned
// CHECK:           scf.for %{{.*}} = %c1 to %c4 step %c1 iter_args
// CHECK:             nvgpu.mbarrier.try_wait.parity %[[FULL]]
// CHECK:             nvvm.wgmma.fence.aligned
// CHECK-COUNT-8:     nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>]
// CHECK:             nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:        nvvm.wgmma.wait.group.sync.aligned 1
// The previous k-tile's stage back to both CTAs' producers (not in the CTA's
// last 6 k-steps, which no producer waits for).
// CHECK:             scf.if
// CHECK:               nvvm.mapa
// CHECK:               nvvm.mbarrier.arrive
// CHECK:               nvvm.mapa
// CHECK:               nvvm.mbarrier.arrive
// The other warpgroup's turn once this tile's MMAs are issued, then the wait
// for them and the last stage back.
// CHECK:           scf.if
// CHECK-NEXT:        arith.index_cast
// CHECK-NEXT:        nvvm.barrier.arrive id = %{{.*}} number_of_threads = %c256_i32
// CHECK:           nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:           nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32

// Stage 5 from the accumulators: 4 slices per thread (a loop), 16 row pairs
// each selected from the two halves, the 4 (P - 1) = 8 sums added over the
// lane quad by xor shuffles 1 and 2; the 128 - count rows past N (zeros)
// added 1 to each cos sum; the quad's first lane stores.
// CHECK:           scf.for %{{.*}} = %c0 to %c4 step %c1 {
// CHECK:             memref.load %{{.*}} : memref<128xf32, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
// CHECK:             llvm.extractvalue
// CHECK:             arith.select
// CHECK-COUNT-8:     gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK-COUNT-4:     arith.subf
// CHECK:             scf.if
// CHECK-COUNT-10:      memref.store %{{.*}} : memref<8x1x5x1928xf32>
// CHECK:         gpu.return

// Single CTAs (no cluster): `empty` counts 1, no multicast, plain arrives.
// SINGLE:      gpu.func @sigreg_fused_ecf_wgmma_persistent(
// SINGLE-NOT:    nvvm.cluster_dim
// SINGLE:        nvgpu.mbarrier.init %{{.*}}[%c0], %c1
// SINGLE-NEXT:   nvgpu.mbarrier.init %{{.*}}[%c0], %c1
// SINGLE-NOT:    nvvm.cluster.arrive
// SINGLE-NOT:    multicast_mask
// SINGLE-NOT:    nvvm.mapa
// SINGLE:        nvgpu.mbarrier.arrive
// SINGLE:        gpu.return
func.func @ragged(%x: tensor<1000x200xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1928 points = 5 : tensor<1000x200xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
