// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu=hopper=1 --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s

// The Hopper kernel on split operands (wgmmaSplitsInput, WgmmaEcfShape::
// splitFeatures): the GEMM's reduction runs over segments of Dp = D rounded
// up to 64 features, each a pair of 16-bit parts.

// An f32 problem (V = 3, N = 1000, D = 200, S = 1928, mean): Dp = 256. g is
// generated as bf16 hi rows [0, 200) and lo rows [256, 456) of a [512, 1928]
// buffer; x is split by sigreg_split_operand into [3000, 512] = [hi | lo];
// the mainloop runs over 3 Dp = 768 features, 12 k-tiles of 64.
// CHECK-LABEL: func.func @f32_seeded(
// CHECK:         %[[G:.*]] = memref.alloc() : memref<512x1928xbf16>
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_projection_split_rows {{.*}} args(%{{.*}} : i64, %[[G]] : memref<512x1928xbf16>, %{{.*}} : memref<13x1928xf32>)
// CHECK:         %[[ROWS:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : memref<3x1000x200xf32> into memref<3000x200xf32>
// CHECK:         %[[X2:.*]] = memref.alloc() : memref<3000x512xbf16>
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_split_operand blocks in (%c750, %c1, %c1) threads in (%c256, %c1, %c1)  args(%[[ROWS]] : memref<3000x200xf32>, %[[X2]] : memref<3000x512xbf16>) {sigreg.region = "projection_gemm"}
// CHECK:         memref.cast %[[X2]] : memref<3000x512xbf16> to memref<*xbf16>
// CHECK:         memref.cast %[[G]] : memref<512x1928xbf16> to memref<*xbf16>
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_fused_ecf_wgmma

// The projection: hi at row d, lo = bf16(g - hi) at row d + 256; the last
// chunk's threads zero the padding rows [200, 256) and [456, 512).
// CHECK:       gpu.func @sigreg_projection_split_rows(%{{.*}}: i64, %[[GOUT:.*]]: memref<512x1928xbf16>, %{{.*}}: memref<13x1928xf32>)
// CHECK:         %[[HI:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK:         memref.store %[[HI]], %[[GOUT]][%[[D:.*]], %{{.*}}]
// CHECK:         %[[HIF:.*]] = arith.extf %[[HI]] : bf16 to f32
// CHECK:         %[[REST:.*]] = arith.subf %{{.*}}, %[[HIF]] : f32
// CHECK:         %[[DLO:.*]] = arith.addi %[[D]], %c256
// CHECK:         %[[LO:.*]] = arith.truncf %[[REST]] : f32 to bf16
// CHECK:         memref.store %[[LO]], %[[GOUT]][%[[DLO]], %{{.*}}]
// CHECK:         arith.cmpi eq, %{{.*}}, %c12 : index
// CHECK:         scf.for %[[DP:.*]] = %c200 to %c256 step %c1 {
// CHECK:           memref.store %{{.*}}, %[[GOUT]][%[[DP]], %{{.*}}] : memref<512x1928xbf16>
// CHECK:           %[[DPLO:.*]] = arith.addi %[[DP]], %c256
// CHECK:           memref.store %{{.*}}, %[[GOUT]][%[[DPLO]], %{{.*}}] : memref<512x1928xbf16>

// The producer: k-tile it of 12 reads segment k0 / 256 at column k0 % 256:
// x columns from 256 in segment 2 (x_lo), g rows from 256 in segment 1
// (g_lo).
// CHECK:       gpu.func @sigreg_fused_ecf_wgmma(
// CHECK:         scf.for %[[IT:.*]] = %c0 to %c12 step %c1 {
// CHECK:           %[[K0:.*]] = arith.muli %[[IT]], %c64 : index
// CHECK:           %[[SEG:.*]] = arith.divui %[[K0]], %c256 : index
// CHECK:           %[[LOC:.*]] = arith.remui %[[K0]], %c256 : index
// CHECK:           %[[ISX:.*]] = arith.cmpi eq, %[[SEG]], %c2 : index
// CHECK:           %[[XOFF:.*]] = arith.select %[[ISX]], %c256, %c0 : index
// CHECK:           %[[XK:.*]] = arith.addi %[[LOC]], %[[XOFF]] : index
// CHECK:           %[[ISG:.*]] = arith.cmpi eq, %[[SEG]], %c1 : index
// CHECK:           %[[GOFF:.*]] = arith.select %[[ISG]], %c256, %c0 : index
// CHECK:           %[[GK:.*]] = arith.addi %[[LOC]], %[[GOFF]] : index
// CHECK:           nvgpu.tma.async.load %{{.*}}[%[[XK]], %{{.*}}]
// CHECK:           nvgpu.tma.async.load %{{.*}}[%{{.*}}, %[[GK]]]
// The consumers: 12 k-tiles as well.
// CHECK:         scf.for %{{.*}} = %c0 to %c12 step %c1 iter_args({{.*}}) -> (!nvgpu.warpgroup.accumulator<fragmented = vector<64x256xf32>>, i1)

func.func @f32_seeded(%x: tensor<3x1000x200xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1928 points = 5 : tensor<3x1000x200xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// An explicit f32 projection: x split along its columns, A [99, 512] along
// its rows into [256, 512] = [hi ; lo] (Dp = 128, A has 512 / 4 columns per
// row of items: 128 x 128 = 16384 items); the kernel takes no norms.
// CHECK-LABEL: func.func @f32_explicit(
// CHECK:         %[[X2:.*]] = memref.alloc() : memref<1000x256xbf16>
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_split_operand blocks in (%c125, %c1, %c1) {{.*}} args(%{{.*}} : memref<1000x99xf32>, %[[X2]] : memref<1000x256xbf16>)
// CHECK:         %[[A2:.*]] = memref.alloc() : memref<256x512xbf16>
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_split_operand_0 blocks in (%c64, %c1, %c1) {{.*}} args(%{{.*}} : memref<99x512xf32>, %[[A2]] : memref<256x512xbf16>)
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_fused_ecf_wgmma {{.*}} args(%{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %{{.*}} : memref<8x1x5x512xf32>, %{{.*}} : memref<8x1x5x512xf32>, %{{.*}} : memref<1x512x5xf32>, %{{.*}} : memref<1x512x5xf32>, %{{.*}} : memref<8xi32>, %{{.*}} : memref<f32>, %{{.*}} : memref<1xi64>)
// 3 Dp / 64 = 6 k-tiles.
// CHECK:       gpu.func @sigreg_fused_ecf_wgmma(
// CHECK:         scf.for %{{.*}} = %c0 to %c6 step %c1 {
// D = 99 is not a multiple of 4: four guarded scalar loads.
// CHECK:       gpu.func @sigreg_split_operand(%{{.*}}: memref<1000x99xf32>, %{{.*}}: memref<1000x256xbf16>)
// CHECK-COUNT-4: memref.load
// CHECK:       gpu.func @sigreg_split_operand_0(%{{.*}}: memref<99x512xf32>, %[[AOUT:.*]]: memref<256x512xbf16>)
// CHECK:         arith.cmpi ult, %{{.*}}, %c16384 : index
// CHECK:         vector.load %{{.*}} {alignment = 16 : i64} : memref<99x512xf32>, vector<4xf32>
// CHECK:         %[[RLO:.*]] = arith.addi %{{.*}}, %c128 : index
// CHECK:         vector.store %{{.*}}, %[[AOUT]][%{{.*}}, %{{.*}}]
// CHECK:         vector.store %{{.*}}, %[[AOUT]][%[[RLO]], %{{.*}}]
func.func @f32_explicit(%x: tensor<1000x99xf32>, %a: tensor<99x512xf32>) -> tensor<f32> {
  %l = sigreg.loss %x projection(%a : tensor<99x512xf32>) slices = 512 points = 5 : tensor<1000x99xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Per-slice statistics of a bf16 problem: x is exact in bf16, g is split
// (hi ; lo rows), two segments: 2 Dp = 2 x 1024 = 2048 features, 32 k-tiles;
// no split kernel.
// CHECK-LABEL: func.func @bf16_per_slice(
// CHECK:         memref.alloc() : memref<2048x1024xbf16>
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_projection_split_rows
// CHECK-NOT:     sigreg_split_operand
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_fused_ecf_wgmma
// CHECK:       gpu.func @sigreg_fused_ecf_wgmma(
// CHECK:         scf.for %{{.*}} = %c0 to %c32 step %c1 {
func.func @bf16_per_slice(%x: tensor<1024x1024xbf16>, %seed: i64) -> tensor<1024xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 1024 points = 17 reduction = none : tensor<1024x1024xbf16> -> tensor<1024xf32>
  return %l : tensor<1024xf32>
}

// -----

// Per-slice statistics of an f32 problem keep the SIMT kernel's f32 GEMM
// (the split moved them by 2e-4 to 7e-4, above the 1e-4 f32 tolerance), and
// so does a reduced f32 loss whose batch puts splitInputError over its
// budget (N = 20000: 6.7e-5 > 5e-5).
// CHECK-LABEL: func.func @f32_per_slice(
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_projection blocks
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_fused_ecf{{(_[0-9]+)?}} blocks
func.func @f32_per_slice(%x: tensor<1000x1000xf32>, %seed: i64) -> tensor<1000xf32> {
  %l = sigreg.loss %x seed(%seed) slices = 1000 points = 17 reduction = none : tensor<1000x1000xf32> -> tensor<1000xf32>
  return %l : tensor<1000xf32>
}
// CHECK-LABEL: func.func @f32_large_batch(
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_fused_ecf{{(_[0-9]+)?}} blocks
func.func @f32_large_batch(%x: tensor<20000x64xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 256 points = 17 : tensor<20000x64xf32> -> tensor<f32>
  return %l : tensor<f32>
}
