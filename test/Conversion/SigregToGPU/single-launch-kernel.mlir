// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu --canonicalize --cse | FileCheck %s
// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu=single-launch=0 | FileCheck %s --check-prefix=OFF

// The blog shape: the whole chain is one launch of sigreg_single_launch
// (usesSingleLaunch), block = 4 slices x 32 rows, 256 blocks. Counters
// workspace marked zero_init; the statistics workspace for mean.
// CHECK-LABEL: func.func @blog
// CHECK:         %[[CNT:.*]] = memref.alloc() {sigreg.zero_init} : memref<257xi32>
// CHECK:         %[[ST:.*]] = memref.alloc() : memref<1024xf32>
// CHECK-NOT:     gpu.launch_func
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_single_launch blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in {{.*}} args(%{{.*}} : i64, %{{.*}} : memref<1x32x2048xbf16>, %{{.*}} : memref<f32>, %[[CNT]] : memref<257xi32>, %[[ST]] : memref<1024xf32>) {sigreg.region = "single_launch"}
// CHECK-NOT:     gpu.launch_func
// CHECK:         gpu.func @sigreg_single_launch
// CHECK-SAME:      workgroup(%[[GS:.*]] : memref<8192xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}
// Stage 1, projection generation: g of 4 slices x 2048 rows into shared
// memory, one Philox call (rounds of mulhi) per 4 rows of a column: 512
// groups x 4 slices in a thread-strided loop, four stores each.
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c2048 step %c256
// CHECK:           arith.mului_extended
// CHECK-COUNT-4:   memref.store %{{.*}}, %[[GS]][%{{.*}}] : memref<8192xf32
// CHECK:         gpu.barrier
// Stage 2, column norms: sums of g^2 per chunk of 64 rows in order (four
// rows loaded per iteration), then over the 32 chunks, and a square root.
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c128 step %c256
// CHECK:           scf.for %{{.*}} step %c4
// CHECK-COUNT-4:     memref.load %[[GS]]
// CHECK:             arith.mulf
// CHECK:         gpu.barrier
// CHECK:         math.sqrt
// Stage 3, GEMM: 16-byte vector loads of x, four blocks issued before their
// FMAs (32 blocks per thread, step 4 x 8 k parts), 16-byte loads of g, FMA.
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c256 step %c32
// CHECK-COUNT-4:   vector.load %{{.*}} : memref<1x32x2048xbf16>, vector<8xbf16>
// CHECK-NOT:       math.fma
// CHECK:           vector.load %[[GS]][%{{.*}}] {{.*}} vector<4xf32>
// CHECK:           math.fma
// Stage 4, k parts added in order and divided by the norm.
// CHECK:         gpu.barrier
// CHECK:         arith.divf
// Stage 5, ECF: one sincos, the recurrence, xor shuffles over the rows.
// CHECK:         math.cos
// CHECK:         math.sin
// CHECK:         gpu.shuffle  xor %{{.*}}, %c4_i32, %c32_i32 : f32
// CHECK:         gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : f32
// Stage 7, statistic to the workspace.
// CHECK:         memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<1024xf32>
// Stage 8, last block: release fence, counter, acquire fence, reset, tree.
// CHECK:         nvvm.memory.barrier <gpu>
// CHECK:         memref.atomic_rmw addi %{{.*}}, %{{.*}}[%c256] : (i32, memref<257xi32>) -> i32
// CHECK:         nvvm.memory.barrier <gpu>
// CHECK:         arith.cmpi eq, %{{.*}}, %c255_i32
// CHECK:         memref.store %c0_i32{{.*}}, %{{.*}}[%c256] : memref<257xi32>
// CHECK:         memref.load %{{.*}}[%{{.*}}] : memref<1024xf32>
// CHECK:         memref.store %{{.*}}, %{{.*}}[] : memref<f32>
// OFF-LABEL: func.func @blog
// OFF:         gpu.launch_func @sigreg_kernels::@sigreg_projection_packed
// OFF:         gpu.launch_func @sigreg_kernels::@sigreg_fused_ecf
// OFF:         gpu.launch_func @sigreg_kernels::@sigreg_epilogue
// OFF-NOT:     sigreg_single_launch
func.func @blog(%x: tensor<32x2048xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 : tensor<32x2048xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Minimal (N = 256): two batch tiles of 128 rows; per-tile sums to two
// [T, V, S, P] workspaces, the last block of each column (per-column
// counter) adds them in tile order. Reduction none writes T[v, s] to the
// output directly: no statistics workspace, no grid counter.
// CHECK-LABEL: func.func @minimal_none
// CHECK:         memref.alloc() {sigreg.zero_init} : memref<513xi32>
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_single_launch {{.*}} args(%{{.*}} : i64, %{{.*}} : memref<4x256x16xf32>, %{{.*}} : memref<4x256xf32>, %{{.*}} : memref<513xi32>, %{{.*}} : memref<2x4x256x17xf32>, %{{.*}} : memref<2x4x256x17xf32>)
// CHECK:         gpu.func @sigreg_single_launch
// Stage 6: the column counter expects 2 arrivals.
// CHECK:         memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<2x4x256x17xf32>
// CHECK:         memref.atomic_rmw addi
// CHECK:         arith.cmpi eq, %{{.*}}, %c1_i32
// CHECK:         scf.for %{{.*}} = %c0 to %c2 step %c1
// CHECK:           memref.load %{{.*}} : memref<2x4x256x17xf32>
// CHECK:         arith.maximumf
// CHECK:         memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<4x256xf32>
// CHECK-NOT:     memref.atomic_rmw
func.func @minimal_none(%x: tensor<4x256x16xf32>, %seed: i64) -> tensor<4x256xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 256 points = 17 clip = clamp_min(5.0e-01) reduction = none : tensor<4x256x16xf32> -> tensor<4x256xf32>
  return %l : tensor<4x256xf32>
}

// -----

// Explicit projection (f16), ragged D: the projection's columns are loaded
// (no Philox, no norms) and x with scalar loads (D % 8 != 0).
// CHECK-LABEL: func.func @explicit
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_single_launch {{.*}} args(%{{.*}} : memref<129x77xf16>, %{{.*}} : memref<1x37x129xf16>
// CHECK:         gpu.func @sigreg_single_launch
// CHECK-NOT:     arith.mului_extended
// CHECK-NOT:     math.sqrt
// CHECK-NOT:     vector.load %{{.*}} : memref<1x37x129xf16>
// CHECK:         math.cos
func.func @explicit(%x: tensor<37x129xf16>, %a: tensor<129x77xf16>) -> tensor<f32> {
  %l = sigreg.loss %x projection(%a : tensor<129x77xf16>) slices = 77 points = 9 reduction = sum : tensor<37x129xf16> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Mid (N = 1024, 2^30 multiply-adds): over the cost rule, three launches.
// CHECK-LABEL: func.func @mid
// CHECK-NOT:     sigreg_single_launch
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_fused_ecf_mma
func.func @mid(%x: tensor<1024x1024xbf16>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 : tensor<1024x1024xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
