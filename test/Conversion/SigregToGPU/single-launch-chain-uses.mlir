// RUN: sigreg-opt %s --convert-sigreg-to-gpu --sigreg-gpu-bufferize | FileCheck %s

// Regression (found by test/Fuzz with seed 11 after the single launch
// landed): the ECF means have a second use, so the chain is not the single
// launch's; the cost rule used to dereference a null user and crash. The
// function lowers to the separate kernels instead.
// CHECK-LABEL: func.func @g(
// CHECK-NOT:     sigreg_single_launch
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_fused_ecf
// CHECK:         gpu.launch_func  @sigreg_kernels::@sigreg_epilogue
func.func @g(%x: tensor<33x33x16xbf16>, %a: tensor<16x3xbf16>) -> (tensor<33x3x17xf32>, tensor<33x3xf32>) {
  %n = arith.constant 33 : index
  %c, %s = sigreg.fused_ecf %x, %a : tensor<33x33x16xbf16>, tensor<16x3xbf16> -> tensor<33x3x17xf32>
  %cg, %sg, %ng = sigreg.all_reduce_mean %c, %s, %n world_size = 1 : tensor<33x3x17xf32>
  %r = sigreg.fused_epilogue %cg, %sg, %ng reduction = none : tensor<33x3x17xf32> -> tensor<33x3xf32>
  return %c, %r : tensor<33x3x17xf32>, tensor<33x3xf32>
}
