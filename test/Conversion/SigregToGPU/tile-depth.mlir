// RUN: sigreg-opt %s --split-input-file --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu=single-launch=0 --sigreg-gpu-bufferize | FileCheck %s

// The SIMT fused ECF kernel stages k-tiles of 16 features when its grid fills
// the GPU, and deeper tiles (up to 128, within 40 KB of shared memory) when it
// does not: few blocks, so more loads in flight and fewer barriers.

// Blog shape in f32: BM = 32 rows, BS = 16 slices, 64 blocks < 132: k-tile
// 128, so x tile = 128 * (32 + 1) = 4224 and A tile = 128 * 16 = 2048 floats.
// CHECK-LABEL: gpu.func @sigreg_fused_ecf(
// CHECK-SAME:    workgroup(%{{.*}} : memref<4224xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<2048xf32, #gpu.address_space<workgroup>>,
func.func @blog_f32(%x: tensor<32x2048xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 1024 : tensor<32x2048xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Large batch in f32: BM = 64, BS = 64, 128 x 64 blocks fill the GPU: k-tile
// 16, so x tile = 16 * 65 = 1040 and A tile = 16 * 64 = 1024 floats.
// CHECK-LABEL: gpu.func @sigreg_fused_ecf(
// CHECK-SAME:    workgroup(%{{.*}} : memref<1040xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<1024xf32, #gpu.address_space<workgroup>>,
func.func @large_f32(%x: tensor<8192x256xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 4096 : tensor<8192x256xf32> -> tensor<f32>
  return %l : tensor<f32>
}
