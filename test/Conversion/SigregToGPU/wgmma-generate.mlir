// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu="hopper=1 wgmma-generate=1" --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu="hopper=1 wgmma-generate=1 wgmma-cluster=1" --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=ONE

// The 64-slice Hopper tile generating its own g tile (projection =
// generated, WgmmaEcfKernel.cpp emitTileProjection): N = 1024 (8 batch
// tiles of 128 rows), D = 512, S = 200 (4 slice tiles of 64, the last
// ragged), P = 5, bf16, seeded, mean. The 8 batch-tile CTAs of a slice tile
// form a cluster; CTA rank r generates rows [64 r, 64 r + 64) of the tile's
// 64 columns in 4 chunks of 16 rows: no projection launch, the forward is
// one launch (the kernel's tail adds the batch tiles and the loss).

// The host: g [D, S] and its 32 chunks' sums of squares are workspaces the
// kernel writes; the seed is its argument.
// CHECK-LABEL: func.func @generate
// CHECK-NOT:     gpu.launch_func
// CHECK:         %[[G:.*]] = memref.alloc() : memref<512x200xbf16>
// CHECK:         %[[SQ:.*]] = memref.alloc() : memref<32x200xf32>
// CHECK-NOT:     gpu.launch_func  @sigreg_kernels::@sigreg_projection
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_fused_ecf_wgmma blocks in (%c4, %c8, %c1) threads in (%c288, %c1, %c1)  dynamic_shared_memory_size %c196608_i32 args({{.*}} : !llvm.ptr, {{.*}} : !llvm.ptr, %[[SQ]] : memref<32x200xf32>, %arg1 : i64, %[[G]] : memref<512x200xbf16>,
// CHECK-NOT:     gpu.launch_func
// CHECK:         return

// Clusters of 8 along the batch tiles, no multicast (each CTA's `empty`
// barriers count its own 2 consumer warpgroups).
// CHECK:       gpu.func @sigreg_fused_ecf_wgmma(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %[[SUMSQ:.*]]: memref<32x200xf32>, %[[SEED:.*]]: i64, %[[GOUT:.*]]: memref<512x200xbf16>,
// CHECK-SAME:      nvvm.cluster_dim = array<i32: 1, 8, 1>
// CHECK:         %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK:         nvgpu.mbarrier.init %{{.*}}[%c0], %c2
// CHECK:         nvvm.griddepcontrol  wait

// Stage 0: thread t takes column s0 + t % 64 (inside S) and chunk
// 4 r + t / 64 of 16 rows, two Philox groups of four rows per iteration,
// each value rounded to bf16 into g, the chunk's sum of squares to sumSq.
// CHECK:         %[[COL:.*]] = arith.remui %{{.*}}, %c64 : index
// CHECK:         %[[S:.*]] = arith.addi %{{.*}}, %[[COL]] : index
// CHECK:         arith.cmpi ult, %[[S]], %c200 : index
// CHECK:         arith.cmpi ult, %{{.*}}, %c256 : index
// CHECK:         scf.if
// CHECK:           %[[PART:.*]] = arith.divui %{{.*}}, %c64 : index
// CHECK:           %[[R4:.*]] = arith.muli %{{.*}}, %c4 : index
// CHECK:           %[[CHUNK:.*]] = arith.addi %[[R4]], %[[PART]] : index
// CHECK:           %[[D0:.*]] = arith.muli %[[CHUNK]], %c16 : index
// CHECK:           scf.for %{{.*}} = %[[D0]] to %{{.*}} step %c8
// CHECK-COUNT-8:     memref.store %{{.*}}, %[[GOUT]][%{{.*}}, %[[S]]] : memref<512x200xbf16>
// CHECK:           memref.store %{{.*}}, %[[SUMSQ]][%[[CHUNK]], %[[S]]] : memref<32x200xf32>

// The stores before TMA's reads, the cluster barrier, the async proxy fenced
// again; after it the producer and the consumers run as with the projection
// kernel's g.
// CHECK:         nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
// CHECK-NEXT:    nvvm.cluster.arrive {aligned}
// CHECK-NEXT:    nvvm.cluster.wait {aligned}
// CHECK-NEXT:    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
// CHECK:         nvgpu.tma.async.load
// CHECK-NOT:       multicast_mask
// CHECK:         nvgpu.warpgroup.mma
// CHECK:         gpu.return

// wgmma-cluster=1: every CTA generates its whole g tile (4 chunks of 128
// rows), a CTA barrier instead of the cluster's.
// ONE:         gpu.launch_func  @sigreg_kernels::@sigreg_fused_ecf_wgmma blocks in (%c4, %c8, %c1) {{.*}} memref<4x200xf32>
// ONE:         gpu.func @sigreg_fused_ecf_wgmma(
// ONE-NOT:         nvvm.cluster_dim
// ONE:           nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
// ONE-NEXT:      gpu.barrier
// ONE-NEXT:      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
// ONE-NOT:       nvvm.cluster.arrive
func.func @generate(%x: tensor<1024x512xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 200 points = 5 : tensor<1024x512xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
