// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu="hopper=1 wgmma-cooperative=1" --split-input-file --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu="hopper=1" --split-input-file --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu="hopper=1 wgmma-cooperative=0" --split-input-file --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=NEVER

// The one-tile Hopper kernel whose grid generates g (projection =
// cooperative, WgmmaEcfKernel.cpp emitGridProjection): N = 1000 (8 batch
// tiles of 128 rows, the last ragged), D = 520, S = 200 (4 slice tiles of
// 64, the last ragged), P = 5, bf16, seeded, mean. Its 32 CTAs' 8192
// consumer threads take the 33 x 200 items (chunk of 16 rows, column) of g:
// D x S / 8192 = 13 rows per thread, rounded up to a multiple of 4
// (cooperativeChunkRows); the last chunk has 8 rows. Then one grid barrier,
// and the kernel reads g by TMA as from the projection kernel: the forward
// is one launch, marked cooperative (every CTA resident at once). The rule
// (wgmma-cooperative = -1, the default) takes it here: 16 rows a thread, at
// most kCooperativeRuleMaxRows = 32.

// The host: g [D, S], its 33 chunks' sums of squares and the barrier's
// counter (zeroed once, sigreg.zero_init) are workspaces; the seed is an
// argument.
// CHECK-LABEL: func.func @cooperative
// CHECK-NOT:     gpu.launch_func
// CHECK:         %[[G:.*]] = memref.alloc() : memref<520x200xbf16>
// CHECK:         %[[SQ:.*]] = memref.alloc() : memref<33x200xf32>
// CHECK:         %[[CTR:.*]] = memref.alloc() {sigreg.zero_init} : memref<1xi64>
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_fused_ecf_wgmma blocks in (%c4, %c8, %c1) threads in (%c288, %c1, %c1)  dynamic_shared_memory_size %c196608_i32 args({{.*}} : !llvm.ptr, {{.*}} : !llvm.ptr, %[[SQ]] : memref<33x200xf32>, %arg1 : i64, %[[G]] : memref<520x200xbf16>, %[[CTR]] : memref<1xi64>,
// CHECK-SAME:    sigreg.cooperative
// CHECK-NOT:     gpu.launch_func
// CHECK:         return

// wgmma-cooperative = 0: the projection kernel, then the Hopper kernel, which
// is not cooperative.
// NEVER-LABEL: func.func @cooperative
// NEVER:         gpu.launch_func  @sigreg_kernels::@sigreg_projection_rows
// NEVER:         gpu.launch_func  @sigreg_kernels::@sigreg_fused_ecf_wgmma
// NEVER-NOT:     sigreg.cooperative
// NEVER:         return

// No clusters.
// CHECK:       gpu.func @sigreg_fused_ecf_wgmma(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %[[SUMSQ:.*]]: memref<33x200xf32>, %[[SEED:.*]]: i64, %[[GOUT:.*]]: memref<520x200xbf16>, %[[COUNTER:.*]]: memref<1xi64>,
// CHECK-NOT:       nvvm.cluster_dim
// CHECK:         %[[WG:.*]] = arith.divui %{{.*}}, %c128 : index
// CHECK:         nvvm.griddepcontrol  wait

// While the consumers generate g, the producer thread (warpgroup 2) issues
// the x boxes of the ring's first round, 8 stages of the 9 k-tiles: each
// stage's full barrier announces the x and g bytes (16384 + 8192), the g box
// comes after the grid barrier (emitXPrefetch).
// CHECK:         %[[BX:.*]] = gpu.block_id  x
// CHECK:         %[[ISPROD:.*]] = arith.cmpi eq, %[[WG]], %c2 : index
// CHECK:         scf.if
// CHECK-COUNT-8:   nvgpu.mbarrier.arrive.expect_tx %{{.*}}[%{{.*}}], %c24576
// CHECK-NOT:       nvgpu.tma.async.load %{{.*}} to %{{.*}} : <tensor = memref<64x64xbf16, 3>
// CHECK:         }

// Stage 0: the CTA's linear index (slice tile, batch tile, view), its
// consumer thread t takes item 256 b + t, then strides of the grid's 8192
// threads; item = chunk x 200 + column; the chunk's rows [16 c, min(16 c +
// 16, 520)) two Philox groups of four rows per iteration, then one group
// per iteration; each value rounded to bf16 into g (rows past D are not
// stored), the chunk's sum of squares to sumSq.
// CHECK:         %[[CTA:.*]] = arith.addi %[[BX]], %{{.*}} : index
// CHECK:         arith.cmpi ult, %{{.*}}, %c256 : index
// CHECK:         scf.if
// CHECK:           %[[FIRST0:.*]] = arith.muli %[[CTA]], %c256 : index
// CHECK:           %[[FIRST:.*]] = arith.addi %[[FIRST0]], %{{.*}} : index
// CHECK:           scf.for %[[ITEM:.*]] = %[[FIRST]] to %c6600 step %c8192 {
// CHECK:             %[[CHUNK:.*]] = arith.divui %[[ITEM]], %c200 : index
// CHECK:             %[[S:.*]] = arith.remui %[[ITEM]], %c200 : index
// CHECK:             %[[D0:.*]] = arith.muli %[[CHUNK]], %c16 : index
// CHECK:             %[[D1:.*]] = arith.minui %{{.*}}, %c520 : index
// CHECK:             scf.for %{{.*}} = %[[D0]] to %{{.*}} step %c8
// CHECK:               memref.store %{{.*}}, %[[GOUT]][%{{.*}}, %[[S]]] : memref<520x200xbf16>
// CHECK:             scf.for %{{.*}} = %{{.*}} to %[[D1]] step %c4
// CHECK:             memref.store %{{.*}}, %[[SUMSQ]][%[[CHUNK]], %[[S]]] : memref<33x200xf32>

// The stores before TMA's reads; the grid barrier: thread 0 of each CTA
// releases the CTA's writes, adds one to the counter, waits for the next
// multiple of the 32 CTAs and acquires the others'; the async proxy fenced
// again; then the producer and the consumers run as with the projection
// kernel's g.
// CHECK:         nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    scf.if
// CHECK-NEXT:      llvm.fence syncscope("device") acq_rel
// CHECK-NEXT:      %[[OLD:.*]] = memref.atomic_rmw addi %c1_i64, %[[COUNTER]][%c0] : (i64, memref<1xi64>) -> i64
// CHECK-NEXT:      %[[ROUND:.*]] = arith.divui %[[OLD]], %c32_i64 : i64
// CHECK-NEXT:      %[[NEXT:.*]] = arith.addi %[[ROUND]], %c1_i64 : i64
// CHECK-NEXT:      %[[TARGET:.*]] = arith.muli %[[NEXT]], %c32_i64 : i64
// CHECK-NEXT:      scf.while : () -> () {
// CHECK-NEXT:        %[[NOW:.*]] = memref.atomic_rmw addi %c0_i64, %[[COUNTER]][%c0] : (i64, memref<1xi64>) -> i64
// CHECK-NEXT:        %[[WAIT:.*]] = arith.cmpi ult, %[[NOW]], %[[TARGET]] : i64
// CHECK-NEXT:        scf.condition(%[[WAIT]])
// CHECK:           llvm.fence syncscope("device") acq_rel
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
// The producer: the 8 prefetched stages' g boxes (no wait, no new arrival),
// then k-tile 8 whole (stage 0 of round 1, once the consumers release it).
// CHECK:         scf.if %[[ISPROD]] {
// CHECK:           scf.if
// CHECK-NOT:         nvgpu.mbarrier
// CHECK-COUNT-8:     nvgpu.tma.async.load %{{.*}} to %{{.*}} : <tensor = memref<64x64xbf16, 3>
// CHECK-NEXT:        nvgpu.mbarrier.try_wait.parity %{{.*}}[%c0], %false
// CHECK-NEXT:        nvgpu.mbarrier.arrive.expect_tx %{{.*}}[%c0], %c24576
// CHECK:             nvgpu.tma.async.load %{{.*}}[%c512, %{{.*}}]
// CHECK:         nvgpu.warpgroup.mma
// CHECK:         gpu.return
func.func @cooperative(%x: tensor<1000x520xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 200 points = 5 reduction = mean : tensor<1000x520xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A seed read from a step counter (sigreg.advance_step): every thread loads
// it at the kernel's entry, before the grid barrier; the tail advances the
// counter after it (no sigreg_advance_step launch), so no CTA can read the
// advanced seed.
// CHECK-LABEL: func.func @step
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_fused_ecf_wgmma {{.*}} args({{.*}} : !llvm.ptr, {{.*}} : !llvm.ptr, %{{.*}} : memref<32x1024xf32>, %arg1 : memref<i64>, {{.*}}, %arg1 : memref<i64>) {sigreg.cooperative
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.func @sigreg_fused_ecf_wgmma(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: memref<32x1024xf32>, %[[STEP:.*]]: memref<i64>, {{.*}}, %[[ADV:.*]]: memref<i64>)
// CHECK-NOT:     gpu.barrier
// CHECK:         %[[SEED:.*]] = memref.load %[[STEP]][] : memref<i64>
// CHECK:         arith.trunci %[[SEED]] : i64 to i32
// CHECK:         scf.while
// CHECK:         memref.store %{{.*}}, %[[ADV]][] : memref<i64>
// CHECK:         gpu.return
func.func @step(%x: tensor<1024x1024xbf16>, %step: memref<i64>) -> tensor<f32> {
  %seed = sigreg.advance_step %step : memref<i64>
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 reduction = mean : tensor<1024x1024xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
