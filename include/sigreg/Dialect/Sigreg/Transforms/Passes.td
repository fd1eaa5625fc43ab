//===- Passes.td - sigreg dialect passes ------------------*- tablegen -*-===//

#ifndef SIGREG_DIALECT_SIGREG_TRANSFORMS_PASSES_TD
#define SIGREG_DIALECT_SIGREG_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def SigregDecompose : Pass<"sigreg-decompose"> {
  let summary = "Split sigreg.loss into the mid-level region ops";
  let description = [{
    Rewrites every `sigreg.loss` into `sigreg.projection` (when seeded),
    `sigreg.project`, `sigreg.ecf`, `sigreg.all_reduce_mean`,
    `sigreg.epps_pulley` and `sigreg.reduce`. Rank-2 inputs `[N, D]` get a
    unit view dimension so that the mid-level ops always see `[V, N, D]`.
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def SigregLowerNaive : Pass<"sigreg-lower-naive"> {
  let summary = "Lower the mid-level ops to linalg/tensor the way eager PyTorch runs them";
  let description = [{
    The reference path, kept forever: every intermediate eager PyTorch
    materializes is materialized here too, including the `[V, N, S, P]`
    arguments, cosines and sines. The projection is generated element-wise
    (Philox4x32-10 + Box-Muller, docs/PROJECTION.md) and normalized with a
    sequential f32 sum over D.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

def SigregFuseEcf : Pass<"sigreg-fuse-ecf"> {
  let summary = "Fuse the projection GEMM, frequency projection, cos/sin and batch mean";
  let description = [{
    Rewrites `sigreg.ecf(sigreg.project(x, A))`, when the slices have no
    other use, into `sigreg.fused_ecf(x, A)`: the `[V, N, S, P]` tensors and
    the slices `y` are never materialized. Never looks through
    `sigreg.all_reduce_mean`.
  }];
}

def SigregFuseEpilogue : Pass<"sigreg-fuse-epilogue"> {
  let summary = "Fuse squared error, weighted integration, clip and final reduction";
  let description = [{
    Rewrites `sigreg.reduce(sigreg.epps_pulley(c, s, n))`, when the
    statistics have no other use, into `sigreg.fused_epilogue(c, s, n)`. The
    fused op starts after the `sigreg.all_reduce_mean` boundary.
  }];
}

#endif // SIGREG_DIALECT_SIGREG_TRANSFORMS_PASSES_TD
