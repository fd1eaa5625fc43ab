// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu=hopper=1 --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu=hopper=0 --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=NOHOPPER
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu="hopper=1 wgmma-persistent=1" --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=PERSIST

// The Hopper fused ECF kernel (WgmmaEcfKernel.cpp), stage by stage, for
// V = 3 views of N = 1000 rows, D = 200, S = 1928, P = 5, bf16, seeded, mean.
// Tiles of 128 rows x 256 slices: grid (ceil(1928/256), ceil(1000/128), 3)
// = (8, 8, 3) = 192 CTAs >= 132 (the cost rule); D and S are multiples of 8
// (16-byte TMA strides) but not of the tiles: TMA fills the ragged edges
// with zeros and the ECF stage sums only the batch's rows.

// Host: g rounded to bf16, row-major [D, S]; x viewed as [V * N, D]; one
// tensor map each (boxes 128 x 64 and 64 x 64, 128-byte swizzle) passed as
// pointers to by-value parameters; 384 threads and 192 KB of dynamic shared
// memory (4 stages x (16 KB x tile + 32 KB g tile)); per-tile partial sums,
// slice-major [T, V, P, S] (coalesced stores), which the kernel's tail adds
// itself (8 batch tiles <= 16): the means [V, S, P], 3 x 8 counters and the
// 64-bit loss word (zeroed once), the loss. No finalize or epilogue launch
// follows.
// CHECK-LABEL: func.func @views(
// CHECK-SAME:      %[[X:.*]]: memref<3x1000x200xbf16>, %[[SEED:.*]]: i64, %[[OUT:.*]]: memref<f32>)
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG:     %[[C384:.*]] = arith.constant 384 : index
// CHECK-DAG:     %[[SMEM:.*]] = arith.constant 196608 : i32
// CHECK-DAG:     %[[C128:.*]] = arith.constant 128 : index
// CHECK-DAG:     %[[C64:.*]] = arith.constant 64 : index
// CHECK:         %[[G:.*]] = memref.alloc() : memref<200x1928xbf16>
// CHECK:         %[[SS:.*]] = memref.alloc() : memref<13x1928xf32>
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_projection_rows {{.*}} args(%[[SEED]] : i64, %[[G]] : memref<200x1928xbf16>, %[[SS]] : memref<13x1928xf32>)
// CHECK:         %[[ROWS:.*]] = memref.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : memref<3x1000x200xbf16> into memref<3000x200xbf16>
// CHECK:         %[[XU:.*]] = memref.cast %[[ROWS]] : memref<3000x200xbf16> to memref<*xbf16>
// CHECK:         %[[XD:.*]] = nvgpu.tma.create.descriptor %[[XU]] box[%[[C128]], %[[C64]]] : memref<*xbf16> -> <tensor = memref<128x64xbf16, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
// CHECK:         %[[XP:.*]] = builtin.unrealized_conversion_cast %[[XD]] : {{.*}} to !llvm.ptr
// CHECK:         %[[GU:.*]] = memref.cast %[[G]] : memref<200x1928xbf16> to memref<*xbf16>
// CHECK:         %[[GD:.*]] = nvgpu.tma.create.descriptor %[[GU]] box[%[[C64]], %[[C64]]] : memref<*xbf16> -> <tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b
// CHECK:         %[[GP:.*]] = builtin.unrealized_conversion_cast %[[GD]] : {{.*}} to !llvm.ptr
// CHECK:         %[[CM:.*]] = memref.alloc() : memref<3x1928x5xf32>
// CHECK:         %[[SM:.*]] = memref.alloc() : memref<3x1928x5xf32>
// CHECK:         %[[CP:.*]] = memref.alloc() : memref<8x3x5x1928xf32>
// CHECK:         %[[SP:.*]] = memref.alloc() : memref<8x3x5x1928xf32>
// CHECK:         %[[CNT:.*]] = memref.alloc() {sigreg.zero_init} : memref<24xi32>
// CHECK:         %[[ST:.*]] = memref.alloc() {sigreg.zero_init} : memref<1xi64>
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_fused_ecf_wgmma blocks in (%[[C8]], %[[C8]], %[[C3]]) threads in (%[[C384]], %{{.*}}, %{{.*}})  dynamic_shared_memory_size %[[SMEM]] args(%[[XP]] : !llvm.ptr, %[[GP]] : !llvm.ptr, %[[SS]] : memref<13x1928xf32>, %[[CP]] : memref<8x3x5x1928xf32>, %[[SP]] : memref<8x3x5x1928xf32>, %[[CM]] : memref<3x1928x5xf32>, %[[SM]] : memref<3x1928x5xf32>, %[[CNT]] : memref<24xi32>, %[[OUT]] : memref<f32>, %[[ST]] : memref<1xi64>) {sigreg.programmatic, sigreg.region = "trig_reduction"}
// CHECK-NOT:     gpu.launch_func
// CHECK:         return

// The projection: g rounded to bf16, f32 sums of squares.
// CHECK:       gpu.func @sigreg_projection_rows(%{{.*}}: i64, %{{.*}}: memref<200x1928xbf16>, %{{.*}}: memref<13x1928xf32>)
// CHECK:         arith.truncf %{{.*}} : f32 to bf16

// The kernel: tensor-map parameters listed for --sigreg-grid-constant-params.
// CHECK:       gpu.func @sigreg_fused_ecf_wgmma(%[[XM:.*]]: !llvm.ptr, %[[GM:.*]]: !llvm.ptr, %[[SUMSQ:.*]]: memref<13x1928xf32>, %[[COS:.*]]: memref<8x3x5x1928xf32>, %[[SIN:.*]]: memref<8x3x5x1928xf32>, %[[CMEAN:.*]]: memref<3x1928x5xf32>, %[[SMEAN:.*]]: memref<3x1928x5xf32>, %[[COUNTERS:.*]]: memref<24xi32>, %[[LOSS:.*]]: memref<f32>, %[[WORD:.*]]: memref<1xi64>) kernel
// CHECK-SAME:      known_block_size = array<i32: 384, 1, 1>, sigreg.grid_constants = array<i64: 0, 1>
// CHECK:         %[[XMAP:.*]] = builtin.unrealized_conversion_cast %[[XM]] : !llvm.ptr to !nvgpu.tensormap.descriptor<tensor = memref<128x64xbf16, 3>
// CHECK:         %[[GMAP:.*]] = builtin.unrealized_conversion_cast %[[GM]] : !llvm.ptr to !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>
// CHECK:         %[[DYN:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK:         %[[FULL:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
// CHECK:         %[[EMPTY:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>

// Stage 1, emitBarrierSetup: full[s] expects 1 arrival (+ bytes), empty[s]
// one arrival per consumer warpgroup.
// CHECK-COUNT-4: nvgpu.mbarrier.init %[[FULL]][%{{.*}}], %c1 :
// CHECK-NEXT:    nvgpu.mbarrier.init %[[EMPTY]]
// CHECK:         nvgpu.tma.prefetch.descriptor %[[XMAP]]
// CHECK:         nvgpu.tma.prefetch.descriptor %[[GMAP]]
// CHECK:         gpu.barrier

// Stage 2, emitTmaProducer: warpgroup 2 gives registers back, one thread
// streams ceil(200/64) = 4 k-tiles: wait for a free stage, announce 16 KB +
// 32 KB, one x box and four g boxes.
// CHECK:         scf.if
// CHECK-NEXT:      nvvm.setmaxregister  decrease 40
// CHECK:           scf.for %[[IT:.*]] = %c0 to %c4 step %c1 {
// CHECK:             nvgpu.mbarrier.try_wait.parity %[[EMPTY]]
// CHECK:             nvgpu.mbarrier.arrive.expect_tx %[[FULL]][%{{.*}}], %c49152
// CHECK:             nvgpu.tma.async.load %[[XMAP]][%{{.*}}, %{{.*}}], %[[FULL]][%{{.*}}] to %{{.*}} : {{.*}} -> memref<128x64xbf16, #gpu.address_space<workgroup>>
// CHECK-COUNT-4:     nvgpu.tma.async.load %[[GMAP]][%{{.*}}, %{{.*}}], %[[FULL]][%{{.*}}] to %{{.*}} : {{.*}} -> memref<64x64xbf16, #gpu.address_space<workgroup>>

// Stage 3, emitWgmmaMainloop: the two consumer warpgroups take registers,
// load their column's norm sums (the angle scale of stage 5, in flight while
// the MMAs run), then for each k-tile wait for its full stage, m64n256 wgmma
// from shared-memory descriptors (B transposed: g is N-major) and hand the
// previous stage back. Four k-tiles visit the 4-stage ring once, so the loop
// is unrolled (emitUnrolledWgmmaMainloop): stages 0-3 are constants, the
// phase stays false, the first k-tile has no previous stage to release.
// CHECK:         } else {
// CHECK-NEXT:      nvvm.setmaxregister  increase 232
// CHECK:           memref.load %[[SUMSQ]]
// CHECK:           %[[SCALE:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
// CHECK:           %[[ACC0:.*]] = nvgpu.warpgroup.mma.init.accumulator -> <fragmented = vector<64x256xf32>>
// CHECK-NEXT:      nvgpu.mbarrier.try_wait.parity %[[FULL]][%c0], %false
// CHECK:           %[[DA:.*]] = nvgpu.warpgroup.generate.descriptor %{{.*}}, %[[XMAP]] : memref<64x64xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:      %[[DB:.*]] = nvgpu.warpgroup.generate.descriptor %{{.*}}, %[[GMAP]] : memref<64x256xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:      %[[ACC1:.*]] = nvgpu.warpgroup.mma %[[DA]], %[[DB]], %[[ACC0]] {transposeB}
// CHECK-NEXT:      nvgpu.mbarrier.try_wait.parity %[[FULL]][%c1], %false
// CHECK:           %[[ACC2:.*]] = nvgpu.warpgroup.mma %{{.*}}, %{{.*}}, %[[ACC1]] {transposeB}
// CHECK-NEXT:      scf.if
// CHECK-NEXT:        nvgpu.mbarrier.arrive %[[EMPTY]][%c0]
// CHECK:           nvgpu.mbarrier.try_wait.parity %[[FULL]][%c2], %false
// CHECK:           %[[ACC3:.*]] = nvgpu.warpgroup.mma %{{.*}}, %{{.*}}, %[[ACC2]] {transposeB}
// CHECK-NEXT:      scf.if
// CHECK-NEXT:        nvgpu.mbarrier.arrive %[[EMPTY]][%c1]
// CHECK:           nvgpu.mbarrier.try_wait.parity %[[FULL]][%c3], %false
// CHECK:           %[[ACC4:.*]] = nvgpu.warpgroup.mma %{{.*}}, %{{.*}}, %[[ACC3]] {transposeB}
// CHECK-NEXT:      scf.if
// CHECK-NEXT:        nvgpu.mbarrier.arrive %[[EMPTY]][%c2]
// CHECK:           nvvm.wgmma.wait.group.sync.aligned 0

// Stage 4, emitAccumulatorTile: after a consumer-only named barrier, the
// accumulators go to a [128][256] f32 tile over the drained ring, its rows
// padded to 260 words (yTileView: no bank conflicts in the store).
// CHECK-NEXT:      nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK-NEXT:      %[[PAD:.*]] = memref.view %[[DYN]][%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x260xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:      %[[V64:.*]] = memref.subview %[[PAD]][0, 0] [64, 256] [1, 1] : {{.*}} to memref<64x256xf32, strided<[260, 1]>, #gpu.address_space<workgroup>>
// CHECK-NEXT:      nvgpu.warpgroup.mma.store %[[ACC4]], %[[V64]]
// CHECK-NEXT:      nvvm.barrier id
// CHECK-NEXT:      %[[Y:.*]] = memref.subview %[[PAD]][0, 0] [128, 256] [1, 1] : {{.*}} to memref<128x256xf32, strided<[260, 1]>, #gpu.address_space<workgroup>>

// Stage 5, emitEcfColumns: rows of the tile inside the batch (min(128, 1000
// - m0)) in groups of 32, two rows at a time (emitEcfRowPair: u = (y_a + y_b)
// scale / 2 and v = (y_a - y_b) scale / 2, a Cody-Waite reduced sin/cos of
// each on the SFU, then forEachHarmonicPair's three recurrences, and
// cos(p a) + cos(p b) = cos(p u) 2 cos(p v) added by one fma per sum), then
// one by one (emitEcfRow: the angle y times the scale, sin/cos, the
// Chebyshev recurrence for p = 2..4); p = 0 is the row count.
// CHECK-NOT:       memref.load %[[SUMSQ]]
// CHECK:           arith.minui %{{.*}}, %c128 : index
// CHECK:           %[[HALF:.*]] = arith.mulf %[[SCALE]], %{{.*}} : f32
// CHECK:           scf.for {{.*}} step %c32 iter_args(%[[C1:arg[0-9]+]] = {{[^,]*}}, {{[^,]*}}, {{[^,]*}}, {{[^,]*}}, %[[S1:arg[0-9]+]] = 
// CHECK:             %[[YA:.*]] = memref.load %[[Y]]
// CHECK:             %[[YB:.*]] = memref.load %[[Y]]
// CHECK-NEXT:        %[[YSUM:.*]] = arith.addf %[[YA]], %[[YB]] : f32
// CHECK-NEXT:        %[[U:.*]] = arith.mulf %[[YSUM]], %[[HALF]] : f32
// CHECK-NEXT:        %[[YDIFF:.*]] = arith.subf %[[YA]], %[[YB]] : f32
// CHECK-NEXT:        %[[V:.*]] = arith.mulf %[[YDIFF]], %[[HALF]] : f32
// CHECK:             %[[SU:.*]] = llvm.call_intrinsic "llvm.nvvm.sin.approx.f"
// CHECK-NEXT:        %[[CU:.*]] = llvm.call_intrinsic "llvm.nvvm.cos.approx.f"
// CHECK:             %[[CV:.*]] = llvm.call_intrinsic "llvm.nvvm.cos.approx.f"
// CHECK-NEXT:        arith.addf %[[CU]], %[[CU]] : f32
// CHECK-NEXT:        %[[TWOCV:.*]] = arith.addf %[[CV]], %[[CV]] : f32
// CHECK-NEXT:        math.fma %[[CU]], %[[TWOCV]], %[[C1]] : f32
// CHECK-NEXT:        math.fma %[[SU]], %[[TWOCV]], %[[S1]] : f32
// CHECK-COUNT-30:    memref.load %[[Y]]
// CHECK:           scf.for {{.*}} step %c1 iter_args
// CHECK:             arith.mulf %{{.*}}, %[[SCALE]] : f32
// CHECK:             math.roundeven
// CHECK:             llvm.call_intrinsic "llvm.nvvm.sin.approx.f"
// CHECK:             llvm.call_intrinsic "llvm.nvvm.cos.approx.f"
// CHECK:             math.fma
// CHECK:           arith.uitofp
// CHECK:           memref.store %{{.*}}, %[[COS]]
// CHECK:           memref.store %{{.*}}, %[[SIN]]

// Stage 6, emitTail: the tile's sums published (consumer barrier, then
// thread 0's fence.acq_rel.gpu), thread 0 counts the CTA at its (view, slice
// tile) counter; the
// last of the 8 batch tiles resets it and, in emitGatherBatchTiles, adds the
// 8 tiles' sums of its column's 5 points (all 80 loads first, up to
// kTailLoadsInFlight = 96, then the adds in tile order from 0) into the
// means.
// CHECK:           nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// CHECK:           llvm.fence syncscope("device") acq_rel
// CHECK-NEXT:      memref.atomic_rmw addi %c1_i32, %[[COUNTERS]][%{{.*}}] : (i32, memref<24xi32>) -> i32
// CHECK:           arith.cmpi eq, %{{.*}}, %c7_i32 : i32
// CHECK:           memref.store %c0_i32, %[[COUNTERS]]
// CHECK:           scf.if
// CHECK-COUNT-80:    memref.load {{%.*}}[{{%.*}}, %block_id_z, {{%.*}}, {{%.*}}] : memref<8x3x5x1928xf32>
// CHECK-NOT:         memref.load
// CHECK:             arith.addf %{{.*}}, %cst{{.*}} : f32
// The means go to global memory and to a [1][256][P] copy in shared memory
// (TailScratch, 2 KB into the dynamic shared memory).
// CHECK:             %[[M:.*]] = arith.divf
// CHECK-NEXT:        memref.store %[[M]], %[[CMEAN]]
// CHECK-NEXT:        memref.store %[[M]], %[[CLOCAL:.*]][%c0, %{{.*}}, %{{.*}}] : memref<1x256x5xf32, #gpu.address_space<workgroup>>
// Stage 6b, emitTailEpilogue: T[v, s] of the CTA's slices from the shared
// means, added by xor shuffles in each consumer warp and the 8 warps' sums
// in order (emitBlockShuffleSum), then by thread 0 in fixed point with one
// to the arrival count to the loss word (one relaxed atomic, no fence); the
// CTA whose atomic brings the count to the 3 x 8 slice tiles writes the
// mean (the word's sum / 5784) and resets the word (emitPackedLossAdd).
// CHECK:             nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// CHECK-NOT:         memref.load %[[CMEAN]]
// CHECK:             memref.load %[[CLOCAL]][%c0, %thread_id_x, %c0]
// CHECK-NOT:         memref.load %[[CMEAN]]
// CHECK-COUNT-5:     gpu.shuffle  xor
// CHECK:             nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// CHECK:             memref.atomic_rmw addi %{{.*}}, %[[WORD]][%c0] : (i64, memref<1xi64>) -> i64
// CHECK:             arith.cmpi eq, %{{.*}}, %c24_i64 : i64
// CHECK:             memref.store %{{.*}}, %[[LOSS]][] : memref<f32>
// CHECK-NEXT:        memref.store %c0_i64, %[[WORD]][%c0] : memref<1xi64>
// CHECK:         gpu.return

// --wgmma-persistent asks for the ping-pong kernel (wgmma-pingpong.mlir),
// which cannot take this problem: with V = 3 and N = 1000 a batch tile would
// read the next view's rows. The one-tile kernel runs it.
// PERSIST-NOT:   sigreg_fused_ecf_wgmma_persistent
// PERSIST:       gpu.launch_func  @sigreg_kernels::@sigreg_fused_ecf_wgmma blocks in (%c8, %c8, %c3) threads in (%c384, %c1, %c1)
// PERSIST-NOT:   sigreg_fused_ecf_wgmma_persistent

// Without sm_90a the same problem runs the mma.sync kernel.
// NOHOPPER-NOT:  sigreg_fused_ecf_wgmma
// NOHOPPER:      gpu.launch_func  @sigreg_kernels::@sigreg_fused_ecf_mma
// NOHOPPER-NOT:  sigreg_fused_ecf_wgmma
func.func @views(%x: tensor<3x1000x200xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1928 points = 5 : tensor<3x1000x200xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
