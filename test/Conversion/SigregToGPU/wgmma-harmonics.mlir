// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu=hopper=1 --sigreg-gpu-bufferize --canonicalize --cse | FileCheck %s

// The Hopper kernel's harmonics (forEachHarmonicPair and forEachHarmonic,
// KernelUtils.cpp) at P = 33: per row a range-reduced sincos of theta on the SFU, the Chebyshev
// recurrence for p = 2..16, then a restart at p = 17 from a fresh sincos of
// 17 theta (the recurrence amplifies the error of cos.approx about p^2-fold:
// at P = 65 per-slice f16 statistics missed the tolerance without it).
// CHECK:       gpu.func @sigreg_fused_ecf_wgmma(
// CHECK:         %[[C17:.*]] = arith.constant 1.700000e+01 : f32
// Rows in groups of 32, two at a time (forEachHarmonicPair): u and v, the
// sincos of each, and at p = 17 the restart from fresh sincos of 17 u and
// 17 v, cos(16 u), sin(16 u) and 2 cos(16 v) by angle subtraction.
// CHECK:         scf.for {{.*}} step %c32 iter_args
// CHECK:           %[[U:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK:           %[[V:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK:           %[[SU:.*]] = llvm.call_intrinsic "llvm.nvvm.sin.approx.f"
// CHECK-NEXT:      %[[CU:.*]] = llvm.call_intrinsic "llvm.nvvm.cos.approx.f"
// CHECK:           %[[SV:.*]] = llvm.call_intrinsic "llvm.nvvm.sin.approx.f"
// CHECK-NEXT:      %[[CV:.*]] = llvm.call_intrinsic "llvm.nvvm.cos.approx.f"
// CHECK:           arith.mulf %[[U]], %[[C17]] : f32
// CHECK:           %[[SPU:.*]] = llvm.call_intrinsic "llvm.nvvm.sin.approx.f"
// CHECK-NEXT:      %[[CPU:.*]] = llvm.call_intrinsic "llvm.nvvm.cos.approx.f"
// CHECK:           arith.mulf %[[V]], %[[C17]] : f32
// CHECK:           %[[SPV:.*]] = llvm.call_intrinsic "llvm.nvvm.sin.approx.f"
// CHECK-NEXT:      %[[CPV:.*]] = llvm.call_intrinsic "llvm.nvvm.cos.approx.f"
// CHECK-NEXT:      arith.addf %[[CPV]], %[[CPV]] : f32
// CHECK-NEXT:      %[[T1:.*]] = arith.mulf %[[SPU]], %[[SU]] : f32
// CHECK-NEXT:      math.fma %[[CPU]], %[[CU]], %[[T1]] : f32
// CHECK:           %[[T2:.*]] = arith.mulf %[[SPV]], %[[SV]] : f32
// CHECK-NEXT:      %[[VPREV:.*]] = math.fma %[[CPV]], %[[CV]], %[[T2]] : f32
// CHECK-NEXT:      arith.addf %[[VPREV]], %[[VPREV]] : f32
// The rows left after the groups of 32, one by one:
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
