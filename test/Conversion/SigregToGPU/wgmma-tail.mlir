// RUN: sigreg-opt %s -split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--convert-sigreg-to-gpu=hopper=1 single-launch=0 wgmma-rows=128 wgmma-cooperative=0" --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s
// RUN: sigreg-opt %s -split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--convert-sigreg-to-gpu=hopper=1 single-launch=0 wgmma-rows=128 wgmma-cooperative=0 wgmma-atomic-sums=1" --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s --check-prefix=ATOMIC

// The Hopper kernel's 64-slice tile and its tail (WgmmaEcfKernel.cpp,
// docs/GPU-SCHEDULES.md "the tail").

// 64-slice tiles: 128- and 256-slice tiles of N = 1000, S = 1032 would number
// 72 and 40, fewer than the 132 SMs; 64-slice tiles give 17 x 8 CTAs of 288
// threads (two per SM, 96 KB of dynamic shared memory each). Its 8 batch
// tiles (<= 16) are added by the kernel's tail, which then runs the epilogue
// (zero_below, sum): one launch after the projection, 17 x 1 counters, and
// the loss summed in one zero_init 64-bit word (emitPackedLossAdd).
// CHECK-LABEL: func.func @w64(
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_projection_rows
// CHECK:         %[[CNT:.*]] = memref.alloc() {sigreg.zero_init} : memref<17xi32>
// CHECK-NEXT:    %[[WORD:.*]] = memref.alloc() {sigreg.zero_init} : memref<1xi64>
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_fused_ecf_wgmma blocks in (%c17, %c8, %c1) threads in (%c288, %c1, %c1)  dynamic_shared_memory_size %c98304_i32 args({{.*}}, %[[CNT]] : memref<17xi32>, %{{.*}} : memref<f32>, %[[WORD]] : memref<1xi64>)
// CHECK-NOT:     gpu.launch_func
// CHECK:         return

// The ECF stage: thread = (column tid % 64, row part tid / 64), 32 rows per
// part; parts 1-3 store their 2 (P - 1) = 8 sums per column in a [3][8][64]
// view of the dynamic shared memory, part 0 adds them in part order.
// CHECK:       gpu.func @sigreg_fused_ecf_wgmma(
// CHECK-SAME:      known_block_size = array<i32: 288, 1, 1>, nvvm.minctasm = 2 : i32
// CHECK:         %[[COL:.*]] = arith.remui %thread_id_x, %c64 : index
// CHECK:         %[[PART:.*]] = arith.divui %thread_id_x, %c64 : index
// CHECK:         arith.muli %[[PART]], %c32 : index
// CHECK:         %[[SUMS:.*]] = memref.view %{{.*}}[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<3x8x64xf32, #gpu.address_space<workgroup>>
// CHECK:         nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// CHECK-COUNT-8:   memref.store %{{.*}}, %[[SUMS]][%{{.*}}, %{{.*}}, %[[COL]]]
// CHECK:         nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// CHECK:           memref.load %[[SUMS]][%c0, %c0, %[[COL]]]
// CHECK:           memref.load %[[SUMS]][%c1, %c0, %[[COL]]]
// CHECK:           memref.load %[[SUMS]][%c2, %c0, %[[COL]]]
// The tail: the (view, slice tile) counter; then the last CTA of the column
// adds its slices' statistics (a fixed tree) to the loss word, and the CTA
// whose atomic completes the count of 17 writes the loss and resets it.
// CHECK:         memref.atomic_rmw addi %c1_i32, %{{.*}}[%{{.*}}] : (i32, memref<17xi32>) -> i32
// CHECK:           %[[OLD:.*]] = memref.atomic_rmw addi %{{.*}}, %{{.*}}[%c0] : (i64, memref<1xi64>) -> i64
// CHECK:           arith.cmpi eq, %{{.*}}, %c17_i64 : i64
// CHECK:           memref.store %c0_i64, %{{.*}}[%c0] : memref<1xi64>
// CHECK:         gpu.return
func.func @w64(%x: tensor<1000x256xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1032 points = 5 clip = zero_below(0.5) reduction = sum : tensor<1000x256xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// 64-slice tiles in one wave: N = 1024, S = 1024 give 16 x 8 = 128 CTAs, at
// most one per SM, so the ring has 8 stages (kWgmmaDeepRingStages: 8 x 24 KB
// = 192 KB of dynamic shared memory) instead of 4; the 8 full and 8 empty
// mbarriers. (@w64 above, 136 CTAs, keeps 4.) The kernel is a programmatic
// dependent of the projection launched just before it: the projection
// signals griddepcontrol.launch_dependents after its stores, the Hopper
// kernel waits (griddepcontrol.wait) after its barrier setup, before any
// TMA load.
// CHECK-LABEL: func.func @w64_one_wave(
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_projection_rows {{.*}} {sigreg.region = "projection_generation"}
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_fused_ecf_wgmma blocks in (%c16, %c8, %c1) threads in (%c288, %c1, %c1)  dynamic_shared_memory_size %c196608_i32 {{.*}} {sigreg.programmatic, sigreg.region = "trig_reduction"}
// CHECK:       gpu.func @sigreg_projection_rows(
// CHECK:         memref.store
// CHECK:         nvvm.griddepcontrol  launch_dependents
// CHECK-NEXT:    gpu.return
// CHECK:       gpu.func @sigreg_fused_ecf_wgmma(
// CHECK:         nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 8>
// CHECK:         nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 8>
// CHECK:         nvgpu.mbarrier.init
// CHECK:         gpu.barrier
// CHECK-NEXT:    nvvm.griddepcontrol  wait
// CHECK-NOT:     nvgpu.tma.async.load
// CHECK:         nvgpu.tma.async.load
func.func @w64_one_wave(%x: tensor<1024x256xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 : tensor<1024x256xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// One batch tile (N = 100; the single launch turned off): the kernel writes
// the means and, with no reduction, each slice's statistic straight to the
// result; no counters.
// CHECK-LABEL: func.func @one_tile(
// CHECK-SAME:      %{{.*}}: memref<2x100x520xf16>, %{{.*}}: memref<520x1032xf16>, %[[OUT:.*]]: memref<2x1032xf32>)
// CHECK-NOT:     sigreg.zero_init
// An explicit projection: no launch before the kernel, so not programmatic.
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_fused_ecf_wgmma blocks in (%c17, %c1, %c2) {{.*}} args(%{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %{{.*}} : memref<2x1032x9xf32>, %{{.*}} : memref<2x1032x9xf32>, %[[OUT]] : memref<2x1032xf32>) {sigreg.region = "trig_reduction"}
// CHECK-NOT:     gpu.launch_func
// CHECK:       gpu.func @sigreg_fused_ecf_wgmma(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %[[COS:.*]]: memref<2x1032x9xf32>, %[[SIN:.*]]: memref<2x1032x9xf32>, %[[STAT:.*]]: memref<2x1032xf32>)
// CHECK-NOT:     memref.atomic_rmw
// CHECK:         memref.store %{{.*}}, %[[COS]][%block_id_z, %{{.*}}, %c0]
// CHECK:         nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// CHECK:         arith.cmpi ult, %thread_id_x, %c64 : index
// CHECK:           memref.load %[[COS]][%block_id_z, %{{.*}}, %c0]
// CHECK:           memref.load %[[SIN]][%block_id_z, %{{.*}}, %c0]
// CHECK:           memref.store %{{.*}}, %[[STAT]][%block_id_z, %{{.*}}]
// CHECK-NOT:     memref.atomic_rmw
// CHECK:         gpu.return
func.func @one_tile(%x: tensor<2x100x520xf16>, %a: tensor<520x1032xf16>) -> tensor<2x1032xf32> {
  %l = sigreg.loss %x projection(%a : tensor<520x1032xf16>) slices = 1032 points = 9 reduction = none : tensor<2x100x520xf16> -> tensor<2x1032xf32>
  return %l : tensor<2x1032xf32>
}

// -----

// 18 batch tiles (> 16): no tail (a last CTA's gather of 18 tiles would be
// a serial tail); the tiles' sums go to [T, V, P, S] workspaces that
// sigreg_ecf_finalize_loss adds in the launch after (finalize-loss.mlir).
// 128-slice tiles (144 of them fill the SMs).
// CHECK-LABEL: func.func @many_tiles(
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_fused_ecf_wgmma blocks in (%c8, %c18, %c1) threads in (%c288, %c1, %c1)
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_ecf_finalize_loss
// CHECK-NOT:     gpu.launch_func

// With wgmma-atomic-sums (wgmmaAtomicSums: less memory, measured slower),
// each CTA adds its tile's sums,
// converted to 64-bit fixed point (2^32), to [V, P, S] i64 accumulators with
// integer atomics (sin at p = 0 is 0: not added); the last CTA of each
// slice tile converts the one sum per point to the mean (f64, times 2^-32 /
// N) and resets the accumulator, then the tail runs the epilogue: no
// finalize or epilogue kernel, no [T, V, P, S] sums. 128-slice tiles (144 of
// them fill the SMs).
// ATOMIC-LABEL: func.func @many_tiles(
// ATOMIC:         %[[COS:.*]] = memref.alloc() {sigreg.zero_init} : memref<1x17x1024xi64>
// ATOMIC:         %[[SIN:.*]] = memref.alloc() {sigreg.zero_init} : memref<1x17x1024xi64>
// ATOMIC:         gpu.launch_func  @sigreg_kernels::@sigreg_fused_ecf_wgmma blocks in (%c8, %c18, %c1) threads in (%c288, %c1, %c1) {{.*}}, %[[COS]] : memref<1x17x1024xi64>, %[[SIN]] : memref<1x17x1024xi64>,
// ATOMIC-NOT:     gpu.launch_func
// ATOMIC:         return
// ATOMIC:       gpu.func @sigreg_fused_ecf_wgmma(
// ATOMIC-SAME:      %[[ACOS:[^:]*]]: memref<1x17x1024xi64>, %[[ASIN:[^:]*]]: memref<1x17x1024xi64>, %[[MCOS:[^:]*]]: memref<1x1024x17xf32>, %[[MSIN:[^:]*]]: memref<1x1024x17xf32>
// ATOMIC:         %[[I0:.*]] = arith.fptosi %{{.*}} : f32 to i64
// ATOMIC-NEXT:    memref.atomic_rmw addi %[[I0]], %[[ACOS]][%{{.*}}, %c0, %{{.*}}]
// ATOMIC-NOT:     memref.atomic_rmw addi %{{.*}}, %[[ASIN]][%{{.*}}, %c0,
// ATOMIC:         memref.atomic_rmw addi %{{.*}}, %[[ACOS]][%{{.*}}, %c1, %{{.*}}]
// ATOMIC:         memref.atomic_rmw addi %{{.*}}, %[[ASIN]][%{{.*}}, %c1, %{{.*}}]
// The tail's gather: load, to f64, scale, store the mean, reset.
// ATOMIC:         %[[SUM:.*]] = memref.load %[[ACOS]]
// ATOMIC-NEXT:    %[[SF:.*]] = arith.sitofp %[[SUM]] : i64 to f64
// ATOMIC-NEXT:    %[[SC:.*]] = arith.mulf %[[SF]], %{{.*}} : f64
// ATOMIC-NEXT:    %[[M:.*]] = arith.truncf %[[SC]] : f64 to f32
// ATOMIC-NEXT:    memref.store %[[M]], %[[MCOS]]
// ATOMIC-NEXT:    memref.store %[[M]], %{{.*}} : memref<1x128x17xf32, #gpu.address_space<workgroup>>
// ATOMIC-NEXT:    memref.store %c0_i64, %[[ACOS]]
func.func @many_tiles(%x: tensor<2200x256xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 reduction = sum : tensor<2200x256xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Where the loss word's bound leaves too few fraction bits (N = 2048, S =
// 131072, sum: 512 arrivals leave 44 bits for a sum bounded by about 2^30,
// fewer than kMinLossFractionBits = 16 after the point), the tail keeps the
// statistics workspace and the grid's counter 512: the last column CTA adds
// all the statistics.
// CHECK-LABEL: func.func @wide_sum(
// CHECK:         %[[CNT:.*]] = memref.alloc() {sigreg.zero_init} : memref<513xi32>
// CHECK-NEXT:    %[[ST:.*]] = memref.alloc() : memref<131072xf32>
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_fused_ecf_wgmma blocks in (%c512, %c16, %c1) {{.*}}, %[[CNT]] : memref<513xi32>, %{{.*}} : memref<f32>, %[[ST]] : memref<131072xf32>)
// CHECK:       gpu.func @sigreg_fused_ecf_wgmma(
// CHECK-NOT:     memref<1xi64>
// CHECK:         memref.atomic_rmw addi %c1_i32, %{{.*}}[%c512] : (i32, memref<513xi32>) -> i32
// CHECK:         gpu.return
func.func @wide_sum(%x: tensor<2048x64xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 131072 points = 17 reduction = sum : tensor<2048x64xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
