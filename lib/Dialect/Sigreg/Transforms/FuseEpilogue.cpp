//===- FuseEpilogue.cpp - reduce(epps_pulley) -> sigreg.fused_epilogue ----===//
//
// The second fusion of the roadmap (docs/CONTRACT.md section 7, fusion 2):
// squared error, weighted integration over the points, clip and the final
// reduction become one op, hence one kernel after the all-reduce boundary.
//
//===----------------------------------------------------------------------===//

#include "sigreg/Dialect/Sigreg/IR/SigregOps.h"
#include "sigreg/Dialect/Sigreg/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace sigreg {
#define GEN_PASS_DEF_SIGREGFUSEEPILOGUE
#include "sigreg/Dialect/Sigreg/Transforms/Passes.h.inc"
} // namespace sigreg
} // namespace mlir

using namespace mlir;
using namespace mlir::sigreg;

namespace {
struct SigregFuseEpiloguePass
    : sigreg::impl::SigregFuseEpilogueBase<SigregFuseEpiloguePass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](ReduceOp reduce) {
      auto stats = reduce.getStatistics().getDefiningOp<EppsPulleyOp>();
      if (!stats || !stats->hasOneUse())
        return;
      rewriter.setInsertionPoint(reduce);
      auto fused = FusedEpilogueOp::create(
          rewriter, reduce.getLoc(), reduce.getType(), stats.getCos(),
          stats.getSin(), stats.getGlobalCount(), stats.getTMaxAttr(),
          stats.getClipAttr(), stats.getClipValueAttr(),
          reduce.getReductionAttr());
      rewriter.replaceOp(reduce, fused.getResult());
      rewriter.eraseOp(stats);
    });
  }
};
} // namespace
