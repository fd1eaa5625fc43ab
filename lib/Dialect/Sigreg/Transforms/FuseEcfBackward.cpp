//===- FuseEcfBackward.cpp - the backward of project + ecf as one op ------===//
//
// The backward counterpart of --sigreg-fuse-ecf (docs/BACKWARD.md):
// project_transpose(ecf_grad(project(x, A), dcos, dsin), A) becomes
// sigreg.fused_ecf_backward(x, A, dcos, dsin). dL/dy [V, N, S] and the
// [V, N, S, P] trig arguments disappear; lowerings recompute y per tile.
//
//===----------------------------------------------------------------------===//

#include "sigreg/Dialect/Sigreg/IR/SigregOps.h"
#include "sigreg/Dialect/Sigreg/Transforms/Passes.h"

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
struct SigregFuseEcfBackwardPass
    : sigreg::impl::SigregFuseEcfBackwardBase<SigregFuseEcfBackwardPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](ProjectTransposeOp transpose) {
      auto grad = transpose.getCotangent().getDefiningOp<EcfGradOp>();
      if (!grad || !grad->hasOneUse())
        return;
      auto project = grad.getSlices().getDefiningOp<ProjectOp>();
      // The same A on both sides: dL/dx = dL/dy A^T of the A that made y.
      if (!project || project.getProjection() != transpose.getProjection())
        return;
      rewriter.setInsertionPoint(transpose);
      auto fused = FusedEcfBackwardOp::create(
          rewriter, transpose.getLoc(), transpose.getType(), project.getInput(),
          project.getProjection(), grad.getDcos(), grad.getDsin(),
          /*slices=*/Value(), grad.getTMaxAttr());
      rewriter.replaceOp(transpose, fused.getResult());
      rewriter.eraseOp(grad);
      if (project->use_empty())
        rewriter.eraseOp(project);
    });
  }
};
} // namespace
