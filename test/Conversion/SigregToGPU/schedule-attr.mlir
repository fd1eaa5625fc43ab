// RUN: sigreg-opt %s --split-input-file --convert-sigreg-to-gpu --sigreg-gpu-bufferize | FileCheck %s
// RUN: sigreg-opt %s --split-input-file "--convert-sigreg-to-gpu=tensor-cores=false single-launch=0 hopper=false" --sigreg-gpu-bufferize | FileCheck %s

// --convert-sigreg-to-gpu builds the kernels a #sigreg.schedule written by
// hand asks for, whatever its options would choose: without the attribute
// these shapes take mma.sync (mid, large without sm_90a) with g rounded, or
// the SIMT kernel (tensor-cores=false).

// SIMT on a bf16 problem, 32 x 16 tiles: grid (1024 / 16, 1024 / 32), f32 g.
// CHECK-LABEL: func.func @forced_simt
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_projection blocks
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_fused_ecf blocks in (%c64{{[_0-9]*}}, %c32{{[_0-9]*}}, %c1{{.*}}) threads in (%c256
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_ecf_finalize
func.func @forced_simt(%x: tensor<1x1024x1024xbf16>, %seed: i64) -> tensor<f32> {
  %n = arith.constant 1024 : index
  %a = sigreg.projection seed(%seed) : tensor<1024x1024xf32>
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = simt, tile = [32, 16], k_tile = 32, batch_tiles = 32, projection = f32>} : tensor<1x1024x1024xbf16>, tensor<1024x1024xf32> -> tensor<1x1024x17xf32>
  %cg, %sg, %ng = sigreg.all_reduce_mean %c, %s, %n : tensor<1x1024x17xf32>
  %l = sigreg.fused_epilogue %cg, %sg, %ng : tensor<1x1024x17xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// The Hopper kernel with 128-slice tiles (288 threads, two CTAs per SM),
// also when the options do not say sm_90a.
// CHECK-LABEL: func.func @forced_wgmma128
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_projection_rows blocks
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_fused_ecf_wgmma blocks in (%c32, %c64{{.*}}, %c1{{.*}}) threads in (%c288
func.func @forced_wgmma128(%x: tensor<1x8192x4096xbf16>, %seed: i64) -> tensor<f32> {
  %n = arith.constant 8192 : index
  %a = sigreg.projection seed(%seed) : tensor<4096x4096xf32>
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 128], k_tile = 16, batch_tiles = 64, projection = rounded>} : tensor<1x8192x4096xbf16>, tensor<4096x4096xf32> -> tensor<1x4096x17xf32>
  %cg, %sg, %ng = sigreg.all_reduce_mean %c, %s, %n : tensor<1x4096x17xf32>
  %l = sigreg.fused_epilogue %cg, %sg, %ng : tensor<1x4096x17xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// The single launch at mid, beyond its cost rule: 128 x 2 tiles, 8 batch
// tiles.
// CHECK-LABEL: func.func @forced_single_launch
// CHECK-NOT:     sigreg_projection
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_single_launch blocks in (%c512, %c8, %c1{{.*}}) threads in (%c256
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
func.func @forced_single_launch(%x: tensor<1x1024x1024xbf16>, %seed: i64) -> tensor<f32> {
  %n = arith.constant 1024 : index
  %a = sigreg.projection seed(%seed) : tensor<1024x1024xf32>
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = single_launch, tile = [128, 2], k_tile = 16, batch_tiles = 8, projection = f32>} : tensor<1x1024x1024xbf16>, tensor<1024x1024xf32> -> tensor<1x1024x17xf32>
  %cg, %sg, %ng = sigreg.all_reduce_mean %c, %s, %n : tensor<1x1024x17xf32>
  %l = sigreg.fused_epilogue %cg, %sg, %ng : tensor<1x1024x17xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// mma.sync with the hi + lo split where the rule would round g: the packed
// projection writes the lo words too (4 arguments), and the ECF kernel reads
// them.
// CHECK-LABEL: func.func @forced_mma_split
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_projection_packed blocks {{.*}} args(%{{[^,]*}} : i64, %{{[^,]*}} : memref<2048x4096xi32>, %{{[^,]*}} : memref<2048x4096xi32>, %{{[^,]*}} : memref<64x4096xf32>)
// CHECK:         gpu.launch_func @sigreg_kernels::@sigreg_fused_ecf_mma blocks in (%c32, %c128, %c1{{.*}}) threads in (%c256
func.func @forced_mma_split(%x: tensor<1x8192x4096xbf16>, %seed: i64) -> tensor<f32> {
  %n = arith.constant 8192 : index
  %a = sigreg.projection seed(%seed) : tensor<4096x4096xf32>
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = mma, tile = [64, 128], k_tile = 16, batch_tiles = 128, projection = split>} : tensor<1x8192x4096xbf16>, tensor<4096x4096xf32> -> tensor<1x4096x17xf32>
  %cg, %sg, %ng = sigreg.all_reduce_mean %c, %s, %n : tensor<1x4096x17xf32>
  %l = sigreg.fused_epilogue %cg, %sg, %ng : tensor<1x4096x17xf32> -> tensor<f32>
  return %l : tensor<f32>
}
