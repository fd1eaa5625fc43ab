//===- FuseEcf.cpp - sigreg.ecf(sigreg.project) -> sigreg.fused_ecf -------===//
//
// The first fusion of the roadmap (docs/CONTRACT.md section 7, fusions 1 and
// 4): the slices y = x @ A and the [V, N, S, P] trig arguments disappear; the
// fused op's lowerings keep y in registers and accumulate cos/sin per tile.
//
//===----------------------------------------------------------------------===//

#include "sigreg/Dialect/Sigreg/IR/SigregOps.h"
#include "sigreg/Dialect/Sigreg/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace sigreg {
#define GEN_PASS_DEF_SIGREGFUSEECF
#include "sigreg/Dialect/Sigreg/Transforms/Passes.h.inc"
} // namespace sigreg
} // namespace mlir

using namespace mlir;
using namespace mlir::sigreg;

namespace {
struct SigregFuseEcfPass : sigreg::impl::SigregFuseEcfBase<SigregFuseEcfPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](EcfOp ecf) {
      // Only a direct producer: the boundary op is never looked through.
      auto project = ecf.getSlices().getDefiningOp<ProjectOp>();
      if (!project || !project->hasOneUse())
        return;
      rewriter.setInsertionPoint(ecf);
      auto fused = FusedEcfOp::create(
          rewriter, ecf.getLoc(), ecf.getCos().getType(),
          ecf.getSin().getType(), /*slices=*/Type(), project.getInput(),
          project.getProjection(), ecf.getTMaxAttr(),
          /*schedule=*/ScheduleAttr());
      rewriter.replaceOp(ecf, fused.getResults());
      rewriter.eraseOp(project);
    });
  }
};
} // namespace
