//===- FuseEcfBackward.cpp - the backward of project + ecf as one op ------===//
//
// The backward counterpart of --sigreg-fuse-ecf (docs/BACKWARD.md):
// project_transpose(ecf_grad(project(x, A), dcos, dsin), A) becomes
// sigreg.fused_ecf_backward(x, A, dcos, dsin). dL/dy [V, N, S] and the
// [V, N, S, P] trig arguments disappear; lowerings recompute y per tile.
// An arith.truncf of the result to the input's element type (directly, or
// after the tensor.collapse_shape of an [N, D] input) becomes the fused
// op's result type: the GEMM then stores dL/dx in 16 bits itself.
//
//===----------------------------------------------------------------------===//

#include "sigreg/Dialect/Sigreg/IR/SigregOps.h"
#include "sigreg/Dialect/Sigreg/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace sigreg {
#define GEN_PASS_DEF_SIGREGFUSEECFBACKWARD
#include "sigreg/Dialect/Sigreg/Transforms/Passes.h.inc"
} // namespace sigreg
} // namespace mlir

using namespace mlir;
using namespace mlir::sigreg;

namespace {
/// The arith.truncf to the input's element type that is the only reader of
/// `transpose` (or of its only reader, a tensor.collapse_shape), and that
/// collapse; nulls when there is none.
std::pair<arith::TruncFOp, tensor::CollapseShapeOp>
foldableTruncation(ProjectTransposeOp transpose, ProjectOp project) {
  Type elem = project.getInput().getType().getElementType();
  if (elem.isF32() || !transpose->hasOneUse())
    return {};
  Operation *user = *transpose->getUsers().begin();
  auto collapse = dyn_cast<tensor::CollapseShapeOp>(user);
  if (collapse) {
    if (!collapse->hasOneUse())
      return {};
    user = *collapse->getUsers().begin();
  }
  auto truncation = dyn_cast<arith::TruncFOp>(user);
  if (!truncation || getElementTypeOrSelf(truncation.getType()) != elem ||
      truncation.getRoundingmodeAttr())
    return {};
  return {truncation, collapse};
}

struct SigregFuseEcfBackwardPass
    : sigreg::impl::SigregFuseEcfBackwardBase<SigregFuseEcfBackwardPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    // Collected first: a fusion erases ops after the transpose (the folded
    // truncation), which a walk would visit next.
    SmallVector<ProjectTransposeOp> transposes;
    getOperation()->walk(
        [&](ProjectTransposeOp transpose) { transposes.push_back(transpose); });
    for (ProjectTransposeOp transpose : transposes) {
      auto grad = transpose.getCotangent().getDefiningOp<EcfGradOp>();
      if (!grad || !grad->hasOneUse())
        continue;
      auto project = grad.getSlices().getDefiningOp<ProjectOp>();
      // The same A on both sides: dL/dx = dL/dy A^T of the A that made y.
      if (!project || project.getProjection() != transpose.getProjection())
        continue;
      rewriter.setInsertionPoint(transpose);
      auto [truncation, collapse] = foldableTruncation(transpose, project);
      RankedTensorType type = transpose.getType();
      if (truncation)
        type = type.clone(getElementTypeOrSelf(truncation.getType()));
      auto fused = FusedEcfBackwardOp::create(
          rewriter, transpose.getLoc(), type, project.getInput(),
          project.getProjection(), grad.getDcos(), grad.getDsin(),
          /*slices=*/Value(), grad.getTMaxAttr());
      if (truncation) {
        Value result = fused.getResult();
        if (collapse)
          result = tensor::CollapseShapeOp::create(
              rewriter, collapse.getLoc(), truncation.getType(), result,
              collapse.getReassociationIndices());
        rewriter.replaceOp(truncation, result);
        if (collapse)
          rewriter.eraseOp(collapse);
        rewriter.eraseOp(transpose);
      } else {
        rewriter.replaceOp(transpose, fused.getResult());
      }
      rewriter.eraseOp(grad);
      if (project->use_empty())
        rewriter.eraseOp(project);
    }
  }
};
} // namespace
