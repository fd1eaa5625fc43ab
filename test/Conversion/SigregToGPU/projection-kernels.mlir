// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu=single-launch=0 --canonicalize --cse | FileCheck %s
// RUN: sigreg-opt %s --sigreg-decompose --sigreg-fuse-ecf --sigreg-fuse-epilogue --canonicalize --convert-sigreg-to-gpu="single-launch=0 fast-normals=1" --canonicalize --cse | FileCheck %s --check-prefix=FAST

// The projection generator (ProjectionKernels.cpp): thread = slice column,
// block row = a chunk of D (16 rows here: D = 129 on one block column). The
// loop takes two Philox calls (kGroupsPerStep, 8 rows) per iteration, both
// before the rows are stored, so that their chains of dependent multiplies
// interleave; the chunk's rows past the last whole step (here the last
// chunk's row 128) take one call per iteration. One Philox4x32-10 call is 19
// extended multiplies: one in the first round (its counter word c2 is 0),
// two in each of the nine others; the two calls of an iteration share the
// counter word c1 = s, so --cse leaves 37.

func.func @sigreg(%x: tensor<37x129xf32>, %seed: i64) -> tensor<f32> {
  %l = sigreg.loss %x seed(%seed) slices = 77 points = 9 reduction = mean : tensor<37x129xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// The exact mapping (docs/PROJECTION.md sections 3-5): the logarithm's
// division and polynomials, no approximate function. With fast-normals
// (section 7) each Box-Muller pair is one log2 and one square root (the
// NVVM intrinsics lg2/sqrt.approx.ftz.f32: their inputs are never
// subnormal), one cosine and one sine with the afn flag (sin/cos.approx.f32
// on the GPU), no division and no quadrant select: four pairs in the
// two-call loop.
// FAST-LABEL:  gpu.func @sigreg_projection(
// FAST:          scf.for
// FAST-NOT:      arith.divf
// FAST-COUNT-4:  llvm.call_intrinsic "llvm.nvvm.lg2.approx.ftz.f"(%{{.*}}) : (f32) -> f32
// FAST-NOT:      arith.divf
// FAST:          llvm.call_intrinsic "llvm.nvvm.sqrt.approx.ftz.f"(%{{.*}}) : (f32) -> f32
// FAST:          math.cos %{{.*}} fastmath<afn> : f32
// FAST:          math.sin %{{.*}} fastmath<afn> : f32
// FAST-NOT:      arith.divf
// FAST:          memref.store
// FAST:          gpu.return

// CHECK-LABEL: gpu.func @sigreg_projection(
// CHECK-NOT:     math.log2
// CHECK-NOT:     math.cos

// CHECK:         %[[STEPS:.*]] = scf.for %{{.*}} = %{{.*}} to %[[END:.*]] step %c8 iter_args
// CHECK-COUNT-37:  arith.mului_extended
// CHECK-NOT:       arith.mului_extended
// CHECK:           memref.store
// CHECK:           scf.yield
// CHECK:         scf.for %{{.*}} = %[[END]] to %{{.*}} step %c4 iter_args(%{{.*}} = %[[STEPS]])
// CHECK-COUNT-19:  arith.mului_extended
// CHECK-NOT:       arith.mului_extended
// CHECK:           memref.store
// CHECK:         gpu.return
