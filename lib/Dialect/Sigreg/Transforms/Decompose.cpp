//===- Decompose.cpp - sigreg.loss -> mid-level region ops ----------------===//
//
// Splits the high-level loss into the ops that mirror the regions of
// docs/CONTRACT.md section 7. Rank-2 inputs get a unit view dimension so that
// every mid-level op sees [V, N, D].
//
//===----------------------------------------------------------------------===//

#include "sigreg/Dialect/Sigreg/IR/SigregOps.h"
#include "sigreg/Dialect/Sigreg/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace sigreg {
#define GEN_PASS_DEF_SIGREGDECOMPOSE
#include "sigreg/Dialect/Sigreg/Transforms/Passes.h.inc"
} // namespace sigreg
} // namespace mlir

using namespace mlir;
using namespace mlir::sigreg;

namespace {
/// Replaces `op` by the mid-level ops.
static void decomposeLoss(RewriterBase &rewriter, LossOp op) {
  Location loc = op.getLoc();
  Type f32 = rewriter.getF32Type();
  Value x = op.getInput();
  auto inType = cast<RankedTensorType>(x.getType());

  // [N, D] -> [1, N, D].
  if (!op.hasViews()) {
    SmallVector<OpFoldResult> outShape = {rewriter.getIndexAttr(1)};
    if (inType.isDynamicDim(0))
      outShape.push_back(
          tensor::DimOp::create(rewriter, loc, x, 0).getResult());
    else
      outShape.push_back(rewriter.getIndexAttr(inType.getDimSize(0)));
    outShape.push_back(rewriter.getIndexAttr(inType.getDimSize(1)));
    auto expandedType =
        RankedTensorType::get({1, inType.getDimSize(0), inType.getDimSize(1)},
                              inType.getElementType());
    x = tensor::ExpandShapeOp::create(
        rewriter, loc, expandedType, x,
        ArrayRef<ReassociationIndices>{{0, 1}, {2}}, outShape);
  }
  auto xType = cast<RankedTensorType>(x.getType());
  int64_t numViews = xType.getDimSize(0), batch = xType.getDimSize(1),
          featureDim = xType.getDimSize(2);
  int64_t numSlices = op.getNumSlices(), numPoints = op.getNumPoints();

  Value projection = op.getProjection();
  if (!projection)
    projection = ProjectionOp::create(
        rewriter, loc, RankedTensorType::get({featureDim, numSlices}, f32),
        op.getSeed());

  auto ySlicesType = RankedTensorType::get({numViews, batch, numSlices}, f32);
  Value y = ProjectOp::create(rewriter, loc, ySlicesType, x, projection);

  auto ecfType = RankedTensorType::get({numViews, numSlices, numPoints}, f32);
  auto ecf =
      EcfOp::create(rewriter, loc, ecfType, ecfType, y, op.getTMaxAttr());

  Value localCount = tensor::DimOp::create(rewriter, loc, x, 1);
  auto reduced = AllReduceMeanOp::create(
      rewriter, loc, ecfType, ecfType, rewriter.getIndexType(), ecf.getCos(),
      ecf.getSin(), localCount, rewriter.getI64IntegerAttr(1));

  auto statsType = RankedTensorType::get({numViews, numSlices}, f32);
  Value stats = EppsPulleyOp::create(
      rewriter, loc, statsType, reduced.getCosGlobal(), reduced.getSinGlobal(),
      reduced.getGlobalCount(), op.getTMaxAttr(), op.getClipAttr(),
      op.getClipValueAttr());

  Value result;
  if (op.getReduction() == Reduction::none) {
    result = ReduceOp::create(rewriter, loc, statsType, stats,
                              op.getReductionAttr());
    if (!op.hasViews())
      result = tensor::CollapseShapeOp::create(
          rewriter, loc, op.getType(), result,
          ArrayRef<ReassociationIndices>{{0, 1}});
  } else {
    result = ReduceOp::create(rewriter, loc, op.getType(), stats,
                              op.getReductionAttr());
  }
  rewriter.replaceOp(op, result);
}

struct SigregDecomposePass
    : sigreg::impl::SigregDecomposeBase<SigregDecomposePass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](LossOp op) {
      rewriter.setInsertionPoint(op);
      decomposeLoss(rewriter, op);
    });
  }
};
} // namespace
