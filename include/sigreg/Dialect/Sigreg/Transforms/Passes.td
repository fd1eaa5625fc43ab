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

#endif // SIGREG_DIALECT_SIGREG_TRANSFORMS_PASSES_TD
