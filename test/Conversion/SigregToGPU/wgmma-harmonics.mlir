// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu=hopper=1 --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s

// The Hopper kernel's harmonics (forEachHarmonic, WgmmaEcfKernel.cpp) at
// P = 33: per row a range-reduced sincos of theta on the SFU, the Chebyshev
// recurrence for p = 2..16, then a restart at p = 17 from a fresh sincos of
// 17 theta (the recurrence amplifies the error of cos.approx about p^2-fold:
// at P = 65 per-slice f16 statistics missed the tolerance without it).
// CHECK:       gpu.func @sigreg_fused_ecf_wgmma(
// CHECK:         %[[C17:.*]] = arith.constant 1.700000e+01 : f32
// The rows left after the groups of 16, one by one:
// CHECK:         scf.for {{.*}} step %c16 iter_args
// CHECK:         scf.for {{.*}} step %c1 iter_args
// CHECK:           %[[THETA:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK:           math.roundeven
// CHECK:           llvm.call_intrinsic "llvm.nvvm.sin.approx.f"
// CHECK:           llvm.call_intrinsic "llvm.nvvm.cos.approx.f"
// CHECK-COUNT-30:  math.fma
// CHECK:           arith.mulf %[[THETA]], %[[C17]] : f32
// CHECK:           math.roundeven
// CHECK:           llvm.call_intrinsic "llvm.nvvm.sin.approx.f"
// CHECK:           llvm.call_intrinsic "llvm.nvvm.cos.approx.f"
// CHECK-NOT:       math.roundeven
// CHECK:           scf.yield
func.func @p33(%x: tensor<1000x256xbf16>, %a: tensor<256x1024xbf16>) -> tensor<f32> {
  %l = sigreg.loss %x projection(%a : tensor<256x1024xbf16>) slices = 1024 points = 33 : tensor<1000x256xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
