// RUN: sigreg-opt %s | FileCheck %s
// RUN: sigreg-opt %s | sigreg-opt | FileCheck %s
// RUN: sigreg-opt %s --mlir-print-op-generic | sigreg-opt | FileCheck %s

// #sigreg.schedule parses and prints back every parameter: each kernel kind
// and each projection mode.

// CHECK-LABEL: func.func @kinds
// CHECK: sigreg.fused_ecf %{{.*}}, %{{.*}} {schedule = #sigreg.schedule<kernel = simt, tile = [16, 32], k_tile = 64, batch_tiles = 16, projection = explicit>} :
// CHECK: sigreg.fused_ecf %{{.*}}, %{{.*}} {schedule = #sigreg.schedule<kernel = mma, tile = [64, 128], k_tile = 16, batch_tiles = 4, projection = explicit>} :
// CHECK: sigreg.fused_ecf %{{.*}}, %{{.*}} {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 128], k_tile = 16, batch_tiles = 2, projection = explicit>} :
// CHECK: sigreg.fused_ecf %{{.*}}, %{{.*}} t_max = 2.500000e+00 {schedule = #sigreg.schedule<kernel = wgmma_persistent, tile = [128, 128], k_tile = 16, batch_tiles = 2, projection = explicit, cluster = 2>} :
func.func @kinds(%x: tensor<1x256x64xbf16>, %a: tensor<64x256xbf16>) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>, tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  %c0, %s0 = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = simt, tile = [16, 32], k_tile = 64, batch_tiles = 16, projection = explicit>} : tensor<1x256x64xbf16>, tensor<64x256xbf16> -> tensor<1x256x17xf32>
  %c1, %s1 = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = mma, tile = [64, 128], k_tile = 16, batch_tiles = 4, projection = explicit>} : tensor<1x256x64xbf16>, tensor<64x256xbf16> -> tensor<1x256x17xf32>
  %c2, %s2 = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 128], k_tile = 16, batch_tiles = 2, projection = explicit>} : tensor<1x256x64xbf16>, tensor<64x256xbf16> -> tensor<1x256x17xf32>
  %c3, %s3 = sigreg.fused_ecf %x, %a t_max = 2.5 {schedule = #sigreg.schedule<kernel = wgmma_persistent, tile = [128, 128], k_tile = 16, batch_tiles = 2, projection = explicit, cluster = 2>} : tensor<1x256x64xbf16>, tensor<64x256xbf16> -> tensor<1x256x17xf32>
  return %c0, %c1, %c2, %c3 : tensor<1x256x17xf32>, tensor<1x256x17xf32>, tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// CHECK-LABEL: func.func @projections
// CHECK: sigreg.fused_ecf %{{.*}}, %{{.*}} {schedule = #sigreg.schedule<kernel = mma, tile = [64, 128], k_tile = 16, batch_tiles = 4, projection = split>} :
// CHECK: sigreg.fused_ecf %{{.*}}, %{{.*}} {schedule = #sigreg.schedule<kernel = simt, tile = [64, 64], k_tile = 16, batch_tiles = 4, projection = f32>} :
func.func @projections(%x: tensor<1x256x64xbf16>, %seed: i64) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  %a = sigreg.projection seed(%seed) : tensor<64x256xf32>
  %c0, %s0 = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = mma, tile = [64, 128], k_tile = 16, batch_tiles = 4, projection = split>} : tensor<1x256x64xbf16>, tensor<64x256xf32> -> tensor<1x256x17xf32>
  %c1, %s1 = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = simt, tile = [64, 64], k_tile = 16, batch_tiles = 4, projection = f32>} : tensor<1x256x64xbf16>, tensor<64x256xf32> -> tensor<1x256x17xf32>
  return %c0, %c1 : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// CHECK-LABEL: func.func @single_launch
// CHECK: sigreg.fused_ecf %{{.*}}, %{{.*}} {schedule = #sigreg.schedule<kernel = single_launch, tile = [32, 8], k_tile = 16, batch_tiles = 1, projection = f32>} :
func.func @single_launch(%x: tensor<1x32x64xbf16>, %seed: i64) -> tensor<f32> {
  %n = arith.constant 32 : index
  %a = sigreg.projection seed(%seed) : tensor<64x256xf32>
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = single_launch, tile = [32, 8], k_tile = 16, batch_tiles = 1, projection = f32>} : tensor<1x32x64xbf16>, tensor<64x256xf32> -> tensor<1x256x17xf32>
  %cg, %sg, %ng = sigreg.all_reduce_mean %c, %s, %n : tensor<1x256x17xf32>
  %l = sigreg.fused_epilogue %cg, %sg, %ng : tensor<1x256x17xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// `cluster` is printed only when it is not 1; written as 1 it reads back as
// the default.
// CHECK-LABEL: func.func @clusters
// CHECK: sigreg.fused_ecf %{{.*}}, %{{.*}} {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 256], k_tile = 16, batch_tiles = 4, projection = explicit, cluster = 2>} :
// CHECK: sigreg.fused_ecf %{{.*}}, %{{.*}} {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 256], k_tile = 16, batch_tiles = 4, projection = explicit, cluster = 4>} :
// CHECK: sigreg.fused_ecf %{{.*}}, %{{.*}} {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 256], k_tile = 16, batch_tiles = 4, projection = explicit>} :
func.func @clusters(%x: tensor<1x512x64xbf16>, %a: tensor<64x256xbf16>) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  %c0, %s0 = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 256], k_tile = 16, batch_tiles = 4, projection = explicit, cluster = 2>} : tensor<1x512x64xbf16>, tensor<64x256xbf16> -> tensor<1x256x17xf32>
  %c1, %s1 = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 256], k_tile = 16, batch_tiles = 4, projection = explicit, cluster = 4>} : tensor<1x512x64xbf16>, tensor<64x256xbf16> -> tensor<1x256x17xf32>
  %c2, %s2 = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 256], k_tile = 16, batch_tiles = 4, projection = explicit, cluster = 1>} : tensor<1x512x64xbf16>, tensor<64x256xbf16> -> tensor<1x256x17xf32>
  return %c0, %c1, %c2 : tensor<1x256x17xf32>, tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// `warps` (the single launch's warps per block) is printed only when it is
// not 8; written as 8 it reads back as the default.
// CHECK-LABEL: func.func @single_launch_warps
// CHECK: sigreg.fused_ecf %{{.*}}, %{{.*}} {schedule = #sigreg.schedule<kernel = single_launch, tile = [32, 8], k_tile = 16, batch_tiles = 1, projection = rounded, warps = 16>} :
// CHECK: sigreg.fused_ecf %{{.*}}, %{{.*}} {schedule = #sigreg.schedule<kernel = single_launch, tile = [32, 8], k_tile = 16, batch_tiles = 1, projection = rounded>} :
// CHECK: sigreg.fused_ecf %{{.*}}, %{{.*}} {schedule = #sigreg.schedule<kernel = single_launch, tile = [32, 8], k_tile = 16, batch_tiles = 1, projection = rounded, warps = 4>} :
func.func @single_launch_warps(%x: tensor<1x32x64xbf16>, %seed: i64) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %n = arith.constant 32 : index
  %a = sigreg.projection seed(%seed) : tensor<64x256xf32>
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = single_launch, tile = [32, 8], k_tile = 16, batch_tiles = 1, projection = rounded, warps = 16>} : tensor<1x32x64xbf16>, tensor<64x256xf32> -> tensor<1x256x17xf32>
  %cg, %sg, %ng = sigreg.all_reduce_mean %c, %s, %n : tensor<1x256x17xf32>
  %l = sigreg.fused_epilogue %cg, %sg, %ng : tensor<1x256x17xf32> -> tensor<f32>
  %b = sigreg.projection seed(%seed) : tensor<64x256xf32>
  %c1, %s1 = sigreg.fused_ecf %x, %b {schedule = #sigreg.schedule<kernel = single_launch, tile = [32, 8], k_tile = 16, batch_tiles = 1, projection = rounded, warps = 8>} : tensor<1x32x64xbf16>, tensor<64x256xf32> -> tensor<1x256x17xf32>
  %cg1, %sg1, %ng1 = sigreg.all_reduce_mean %c1, %s1, %n : tensor<1x256x17xf32>
  %l1 = sigreg.fused_epilogue %cg1, %sg1, %ng1 : tensor<1x256x17xf32> -> tensor<f32>
  %d = sigreg.projection seed(%seed) : tensor<64x256xf32>
  %c2, %s2 = sigreg.fused_ecf %x, %d {schedule = #sigreg.schedule<kernel = single_launch, tile = [32, 8], k_tile = 16, batch_tiles = 1, projection = rounded, warps = 4>} : tensor<1x32x64xbf16>, tensor<64x256xf32> -> tensor<1x256x17xf32>
  %cg2, %sg2, %ng2 = sigreg.all_reduce_mean %c2, %s2, %n : tensor<1x256x17xf32>
  %l2 = sigreg.fused_epilogue %cg2, %sg2, %ng2 : tensor<1x256x17xf32> -> tensor<f32>
  return %l, %l1, %l2 : tensor<f32>, tensor<f32>, tensor<f32>
}

// `promote` is printed only when it is not 0; the trailing knobs read back
// in any order (warps = 8, the default, is not printed back).
// CHECK-LABEL: func.func @promote
// CHECK: sigreg.fused_ecf %{{.*}}, %{{.*}} {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 64], k_tile = 16, batch_tiles = 4, projection = explicit, promote = 4>} :
// CHECK: sigreg.fused_ecf %{{.*}}, %{{.*}} {schedule = #sigreg.schedule<kernel = mma, tile = [64, 128], k_tile = 16, batch_tiles = 8, projection = explicit>} :
func.func @promote(%x: tensor<1x512x64xbf16>, %a: tensor<64x256xbf16>) -> (tensor<1x256x17xf32>, tensor<1x256x17xf32>) {
  %c0, %s0 = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 64], k_tile = 16, batch_tiles = 4, projection = explicit, promote = 4, warps = 8>} : tensor<1x512x64xbf16>, tensor<64x256xbf16> -> tensor<1x256x17xf32>
  %c1, %s1 = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = mma, tile = [64, 128], k_tile = 16, batch_tiles = 8, projection = explicit, promote = 0>} : tensor<1x512x64xbf16>, tensor<64x256xbf16> -> tensor<1x256x17xf32>
  return %c0, %c1 : tensor<1x256x17xf32>, tensor<1x256x17xf32>
}

// A projection generated by the one-tile Hopper kernel's grid.
// CHECK-LABEL: func.func @cooperative
// CHECK: sigreg.fused_ecf %{{.*}}, %{{.*}} {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 64], k_tile = 16, batch_tiles = 2, projection = cooperative>} :
func.func @cooperative(%x: tensor<1x256x64xbf16>, %seed: i64) -> tensor<f32> {
  %n = arith.constant 256 : index
  %a = sigreg.projection seed(%seed) : tensor<64x256xf32>
  %c, %s = sigreg.fused_ecf %x, %a {schedule = #sigreg.schedule<kernel = wgmma, tile = [128, 64], k_tile = 16, batch_tiles = 2, projection = cooperative>} : tensor<1x256x64xbf16>, tensor<64x256xf32> -> tensor<1x256x17xf32>
  %cg, %sg, %ng = sigreg.all_reduce_mean %c, %s, %n : tensor<1x256x17xf32>
  %l = sigreg.fused_epilogue %cg, %sg, %ng : tensor<1x256x17xf32> -> tensor<f32>
  return %l : tensor<f32>
}
