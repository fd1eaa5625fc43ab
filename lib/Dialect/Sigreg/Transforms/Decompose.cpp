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
/// [N, D] -> [1, N, D] (a leading unit view dimension; N may be dynamic).
static Value addViewDim(RewriterBase &rewriter, Location loc, Value x) {
  auto inType = cast<RankedTensorType>(x.getType());
  SmallVector<OpFoldResult> outShape = {rewriter.getIndexAttr(1)};
  if (inType.isDynamicDim(0))
    outShape.push_back(tensor::DimOp::create(rewriter, loc, x, 0).getResult());
  else
    outShape.push_back(rewriter.getIndexAttr(inType.getDimSize(0)));
  outShape.push_back(rewriter.getIndexAttr(inType.getDimSize(1)));
  auto expandedType = RankedTensorType::get(
      {1, inType.getDimSize(0), inType.getDimSize(1)}, inType.getElementType());
  return tensor::ExpandShapeOp::create(
      rewriter, loc, expandedType, x,
      ArrayRef<ReassociationIndices>{{0, 1}, {2}}, outShape);
}

/// The forward regions up to the global ECF, shared by the loss and its
/// gradient.
struct ForwardRegions {
  Value x, projection, y;
  AllReduceMeanOp reduced;
};

template <typename OpT>
static ForwardRegions buildForward(RewriterBase &rewriter, OpT op) {
  Location loc = op.getLoc();
  Type f32 = rewriter.getF32Type();
  ForwardRegions f;
  f.x =
      op.hasViews() ? op.getInput() : addViewDim(rewriter, loc, op.getInput());
  auto xType = cast<RankedTensorType>(f.x.getType());
  int64_t numViews = xType.getDimSize(0), batch = xType.getDimSize(1),
          featureDim = xType.getDimSize(2);
  int64_t numSlices = op.getNumSlices(), numPoints = op.getNumPoints();

  f.projection = op.getProjection();
  if (!f.projection)
    f.projection = ProjectionOp::create(
        rewriter, loc, RankedTensorType::get({featureDim, numSlices}, f32),
        op.getSeed());

  auto ySlicesType = RankedTensorType::get({numViews, batch, numSlices}, f32);
  f.y = ProjectOp::create(rewriter, loc, ySlicesType, f.x, f.projection);

  auto ecfType = RankedTensorType::get({numViews, numSlices, numPoints}, f32);
  auto ecf =
      EcfOp::create(rewriter, loc, ecfType, ecfType, f.y, op.getTMaxAttr());

  Value localCount = tensor::DimOp::create(rewriter, loc, f.x, 1);
  f.reduced = AllReduceMeanOp::create(
      rewriter, loc, ecfType, ecfType, rewriter.getIndexType(), ecf.getCos(),
      ecf.getSin(), localCount, rewriter.getI64IntegerAttr(1));
  return f;
}

/// Replaces `op` by the mid-level ops.
static void decomposeLoss(RewriterBase &rewriter, LossOp op) {
  Location loc = op.getLoc();
  Type f32 = rewriter.getF32Type();
  ForwardRegions f = buildForward(rewriter, op);
  AllReduceMeanOp reduced = f.reduced;
  int64_t numViews = cast<RankedTensorType>(f.x.getType()).getDimSize(0),
          numSlices = op.getNumSlices();

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

/// Replaces `op` by the forward regions, then the backward ones in reverse
/// order: ecf_cotangent (epps_pulley + reduce), ecf_grad (ecf),
/// project_transpose (project). The ECF cotangents are those of the global
/// ECF; with one rank the all_reduce_mean boundary passes them through.
static void decomposeLossGrad(RewriterBase &rewriter, LossGradOp op) {
  Location loc = op.getLoc();
  Type f32 = rewriter.getF32Type();
  // Reduction none on [N, D]: the cotangent [S] -> [1, S], first, so that
  // it dominates the forward (a single-launch training step reads it in
  // the forward's kernel).
  Value grad = op.getGrad();
  if (op.getReduction() == Reduction::none && !op.hasViews())
    grad = tensor::ExpandShapeOp::create(
        rewriter, loc,
        RankedTensorType::get({1, static_cast<int64_t>(op.getNumSlices())},
                              f32),
        grad, ArrayRef<ReassociationIndices>{{0, 1}});
  ForwardRegions f = buildForward(rewriter, op);
  auto xType = cast<RankedTensorType>(f.x.getType());
  Type ecfType = f.reduced.getCosGlobal().getType();
  auto cot = EcfCotangentOp::create(
      rewriter, loc, ecfType, ecfType, f.reduced.getCosGlobal(),
      f.reduced.getSinGlobal(), f.reduced.getGlobalCount(), grad,
      op.getTMaxAttr(), op.getClipAttr(), op.getClipValueAttr(),
      op.getReductionAttr());
  Value dy = EcfGradOp::create(rewriter, loc, f.y.getType(), f.y, cot.getDcos(),
                               cot.getDsin(), op.getTMaxAttr());
  auto dxType = RankedTensorType::get(xType.getShape(), f32);
  Value dx =
      ProjectTransposeOp::create(rewriter, loc, dxType, dy, f.projection);
  if (!op.hasViews())
    dx = tensor::CollapseShapeOp::create(
        rewriter, loc, op.getType(), dx,
        ArrayRef<ReassociationIndices>{{0, 1}, {2}});
  rewriter.replaceOp(op, dx);
}

struct SigregDecomposePass
    : sigreg::impl::SigregDecomposeBase<SigregDecomposePass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](Operation *op) {
      rewriter.setInsertionPoint(op);
      if (auto loss = dyn_cast<LossOp>(op))
        decomposeLoss(rewriter, loss);
      else if (auto grad = dyn_cast<LossGradOp>(op))
        decomposeLossGrad(rewriter, grad);
    });
  }
};
} // namespace
