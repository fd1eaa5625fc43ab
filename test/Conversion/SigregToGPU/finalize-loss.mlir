// RUN: sigreg-opt %s -split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize "--convert-sigreg-to-gpu=hopper=1 single-launch=0 wgmma-rows=128 wgmma-cooperative=0" --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s

// sigreg_ecf_finalize_loss (EpilogueKernels.cpp, docs/GPU-SCHEDULES.md): with
// more batch tiles than the Hopper kernel's tail gathers (> 16), the batch
// tiles' sums [T, V, P, S] are added, turned into means and statistics, and
// the loss formed, in one launch after the Hopper kernel (it was the
// finalize kernel and the epilogue kernel).

// N = 2200: 18 batch tiles. Blocks of 8 slices (1024 / 8 = 128 blocks), 256
// threads = 8 slices x 32 tile lanes; both launches are programmatic
// dependents of the launch before them; the loss word is zero_init.
// CHECK-LABEL: func.func @many_tiles(
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_fused_ecf_wgmma blocks in (%c8, %c18, %c1) {{.*}} %[[CP:[^ ]*]] : memref<18x1x17x1024xf32>, %[[SP:[^ ]*]] : memref<18x1x17x1024xf32>) {sigreg.programmatic, sigreg.region = "trig_reduction"}
// CHECK:         %[[WORD:.*]] = memref.alloc() {sigreg.zero_init} : memref<1xi64>
// CHECK-NEXT:    gpu.launch_func  @sigreg_kernels::@sigreg_ecf_finalize_loss blocks in (%c128, %c1, %c1) threads in (%c256, %c1, %c1)  args(%[[CP]] : memref<18x1x17x1024xf32>, %[[SP]] : memref<18x1x17x1024xf32>, %{{.*}} : memref<1x1024x17xf32>, %{{.*}} : memref<1x1024x17xf32>, %{{.*}} : memref<f32>, %[[WORD]] : memref<1xi64>) {sigreg.programmatic, sigreg.region = "epilogue"}
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// The kernel waits for the Hopper kernel's sums first. Block b: view b / 128,
// slices 8 (b % 128) + tid % 8; lane tid / 8 adds tiles lane, lane + 32, ...
// (the slice clamped to S - 1 for the loads past S), for the 17 points of cos
// and of sin (34 sums).
// CHECK:       gpu.func @sigreg_ecf_finalize_loss(%[[CPA:[^:]*]]: memref<18x1x17x1024xf32>, %[[SPA:[^:]*]]: memref<18x1x17x1024xf32>, %[[COS:[^:]*]]: memref<1x1024x17xf32>, %[[SIN:[^:]*]]: memref<1x1024x17xf32>, %[[OUT:[^:]*]]: memref<f32>, %[[W:[^:]*]]: memref<1xi64>) workgroup(%[[WS:[^ ]*]] : memref<2176xf32, #gpu.address_space<workgroup>>, %[[LC:[^ ]*]] : memref<136xf32, #gpu.address_space<workgroup>>, %[[LS:[^ ]*]] : memref<136xf32, #gpu.address_space<workgroup>>)
// CHECK-NEXT:    arith.constant
// CHECK-NOT:     memref.load
// CHECK:         nvvm.griddepcontrol  wait
// CHECK:         %[[V:.*]] = arith.divui %block_id_x, %c128 : index
// CHECK:         %[[SB:.*]] = arith.remui %block_id_x, %c128 : index
// CHECK:         %[[S0:.*]] = arith.muli %[[SB]], %c8 : index
// CHECK:         %[[SL:.*]] = arith.remui %thread_id_x, %c8 : index
// CHECK:         %[[LANE:.*]] = arith.divui %thread_id_x, %c8 : index
// CHECK:         %[[S:.*]] = arith.addi %[[S0]], %[[SL]] : index
// CHECK:         %[[SR:.*]] = arith.minui %[[S]], %c1023 : index
// CHECK:         %[[SUMS:.*]]:34 = scf.for %[[T:.*]] = %[[LANE]] to %c18 step %c32 iter_args(
// CHECK:           memref.load %[[CPA]][%[[T]], %[[V]], %c0, %[[SR]]]
// CHECK:           memref.load %[[CPA]][%[[T]], %[[V]], %c16, %[[SR]]]
// CHECK:           memref.load %[[SPA]][%[[T]], %[[V]], %c0, %[[SR]]]
// CHECK:           memref.load %[[SPA]][%[[T]], %[[V]], %c16, %[[SR]]]
// CHECK:           scf.yield
// The 4 lanes of a slice in a warp (xor 8, then 16); lane < 8 of each warp
// stores the warp's 34 sums to [warp][j][slice].
// CHECK-COUNT-34: gpu.shuffle  xor %{{.*}}, %c8_i32, %c32_i32 : f32
// CHECK-COUNT-34: gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK:         scf.if
// CHECK-COUNT-34:  memref.store %{{.*}}, %[[WS]][%{{.*}}]
// CHECK:         gpu.barrier
// The means: element e = (j, slice) of 34 x 8, the 8 warps' sums in order,
// divided by N; stored to shared memory and, inside S, to the means.
// CHECK:         scf.for %[[E:.*]] = %thread_id_x to %c272 step %c256 {
// CHECK:           memref.load %[[WS]][%[[E]]]
// CHECK-COUNT-7:   memref.load %[[WS]]
// CHECK:           arith.divf %{{.*}}, %cst{{.*}} : f32
// CHECK:           memref.store %{{.*}}, %[[LS]]
// CHECK:             memref.store %{{.*}}, %[[SIN]][%[[V]], %{{.*}}, %{{.*}}] : memref<1x1024x17xf32>
// CHECK:           memref.store %{{.*}}, %[[LC]]
// CHECK:             memref.store %{{.*}}, %[[COS]][%[[V]], %{{.*}}, %{{.*}}] : memref<1x1024x17xf32>
// CHECK:         gpu.barrier
// Warp 0: thread tid < 8 the statistic of its slice from the shared means;
// the 8 added by xor shuffles (1, 2, 4), and thread 0 adds the block's sum to
// the loss word; the block whose atomic completes the count of 128 writes the
// loss and resets the word.
// CHECK:         %[[LCV:.*]] = memref.expand_shape %[[LC]] {{.*}} into memref<1x8x17xf32, #gpu.address_space<workgroup>>
// CHECK:         scf.if
// CHECK:           scf.if %{{.*}} -> (f32) {
// CHECK:             memref.load %[[LCV]][%c0, %thread_id_x, %c0]
// CHECK:           gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK:           gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32 : f32
// CHECK:           gpu.shuffle  xor %{{.*}}, %c4_i32, %c32_i32 : f32
// CHECK:             memref.atomic_rmw addi %{{.*}}, %[[W]][%c0] : (i64, memref<1xi64>) -> i64
// CHECK:             arith.cmpi eq, %{{.*}}, %c128_i64 : i64
// CHECK:               memref.store %{{.*}}, %[[OUT]][] : memref<f32>
// CHECK:               memref.store %c0_i64, %[[W]][%c0] : memref<1xi64>
// CHECK:         gpu.return
func.func @many_tiles(%x: tensor<2200x256xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 reduction = sum : tensor<2200x256xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Reduction none, two views, S = 1000 (125 blocks per view), 24 batch tiles:
// no loss word; thread tid < 8 stores its slice's statistic to [v, s].
// CHECK-LABEL: func.func @views_none(
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_ecf_finalize_loss blocks in (%c250, %c1, %c1) threads in (%c256, %c1, %c1)  args(%{{.*}} : memref<24x2x9x1000xf32>, %{{.*}} : memref<24x2x9x1000xf32>, %{{.*}} : memref<2x1000x9xf32>, %{{.*}} : memref<2x1000x9xf32>, %{{.*}} : memref<2x1000xf32>) {sigreg.programmatic, sigreg.region = "epilogue"}
// CHECK:       gpu.func @sigreg_ecf_finalize_loss(
// CHECK-SAME:      %[[OUT:[^:]*]]: memref<2x1000xf32>) workgroup(
// CHECK:         %[[V:.*]] = arith.divui %block_id_x, %c125 : index
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c24 step %c32 iter_args(
// CHECK-NOT:     memref.atomic_rmw
// CHECK:           memref.store %{{.*}}, %[[OUT]][%[[V]], %{{.*}}] : memref<2x1000xf32>
// CHECK-NOT:     memref.atomic_rmw
// CHECK:         gpu.return
func.func @views_none(%x: tensor<2x3000x128xf16>, %seed: i64) -> tensor<2x1000xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 1000 points = 9 reduction = none : tensor<2x3000x128xf16> -> tensor<2x1000xf32>
  return %l : tensor<2x1000xf32>
}

// -----

// N = 8192, S = 4096 (large's batch and slices): 512 blocks of 8 slices would
// leave the loss word 15 fraction bits (< 16), so blocks take 16 slices (256
// blocks): 16 tile lanes, the two lanes of a slice in a warp added by xor 16.
// CHECK-LABEL: func.func @tall(
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_ecf_finalize_loss blocks in (%c256, %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK:       gpu.func @sigreg_ecf_finalize_loss(
// CHECK:         %[[LANE:.*]] = arith.divui %thread_id_x, %c16 : index
// CHECK:         scf.for %{{.*}} = %[[LANE]] to %c64 step %c16 iter_args(
// CHECK-NOT:     gpu.shuffle  xor %{{.*}}, %c8_i32
// CHECK-COUNT-34: gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK:         gpu.barrier
func.func @tall(%x: tensor<8192x64xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 4096 points = 17 : tensor<8192x64xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// P = 65: the points in two passes over the tiles (33, then 32 points: 66
// and 64 sums in registers; one pass of 130 spilled).
// CHECK-LABEL: func.func @p65(
// CHECK:       gpu.func @sigreg_ecf_finalize_loss(
// CHECK:         scf.for %{{.*}} to %c17 step %c32 iter_args(
// CHECK-SAME:      -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK:         scf.for %{{.*}} to %c17 step %c32 iter_args(
// CHECK-SAME:      -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK:         gpu.barrier
func.func @p65(%x: tensor<2100x64xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 512 points = 65 reduction = sum : tensor<2100x64xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A sum whose bound leaves too few fraction bits even with 32-slice blocks
// (N = 65536, S = 16384): the finalize and epilogue kernels stay apart.
// CHECK-LABEL: func.func @wide_sum(
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_fused_ecf_wgmma
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_ecf_finalize_sm
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_epilogue
// CHECK-NOT:     sigreg_ecf_finalize_loss
func.func @wide_sum(%x: tensor<65536x64xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 16384 points = 17 reduction = sum : tensor<65536x64xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
