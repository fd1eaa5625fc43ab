//===- SigregOps.cpp - sigreg dialect ops and verifiers -------------------===//

#include "sigreg/Dialect/Sigreg/IR/SigregOps.h"
#include "sigreg/Dialect/Sigreg/Utils/EcfSchedule.h"
#include "sigreg/Reference/Limits.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::sigreg;

#include "sigreg/Dialect/Sigreg/IR/SigregEnums.cpp.inc"

#define GET_OP_CLASSES
#include "sigreg/Dialect/Sigreg/IR/SigregOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Shared checks
//===----------------------------------------------------------------------===//

/// Formats a shape as "[2, ?, 7]".
static std::string formatShape(ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(shape, os, [&](int64_t d) {
    if (ShapedType::isDynamic(d))
      os << "?";
    else
      os << d;
  });
  os << "]";
  return s;
}

/// Two dimensions are compatible when either is dynamic or they are equal.
static bool dimsCompatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

/// Same rank and, dimension by dimension, equal where both are static.
static bool dimsCompatibleShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  if (a.size() != b.size())
    return false;
  for (auto [x, y] : llvm::zip(a, b))
    if (!dimsCompatible(x, y))
      return false;
  return true;
}

static LogicalResult verifyPoints(Operation *op, int64_t points) {
  if (points < 3 || points % 2 == 0)
    return op->emitOpError(
               "number of integration points must be odd and >= 3, got ")
           << points;
  // ::sigreg::kMaxPoints says why: the GPU kernels unroll the points.
  if (points > ::sigreg::kMaxPoints)
    return op->emitOpError("number of integration points must be <= ")
           << ::sigreg::kMaxPoints
           << " (the GPU kernels unroll them: 2P accumulators per thread), got "
           << points;
  return success();
}

static LogicalResult verifyTMax(Operation *op, double tMax) {
  if (!(tMax > 0.0) || !std::isfinite(tMax))
    return op->emitOpError("t_max must be positive and finite, got ") << tMax;
  if (tMax > ::sigreg::kMaxTMax)
    return op->emitOpError("t_max must be <= ")
           << ::sigreg::kMaxTMax
           << " (the Gaussian weight is 0 past t = 40, and t_max * |y| must "
              "stay finite in f32), got "
           << tMax;
  return success();
}

/// Checks that every size derived from the problem (V*N*D, D*S, V*S*P, the
/// workspaces and their bytes) fits in 64 bits; the shared rule of
/// sigreg/Reference/Limits.h. Dynamic sizes count as 1.
static LogicalResult verifySizes(Operation *op, int64_t V, int64_t N, int64_t D,
                                 int64_t S, int64_t P, Type element = {}) {
  auto known = [](int64_t d) {
    return ShapedType::isDynamic(d) || d < 1 ? int64_t(1) : d;
  };
  ::sigreg::ProblemSizes sizes;
  sizes.V = known(V);
  sizes.N = known(N);
  sizes.D = known(D);
  sizes.S = known(S);
  sizes.P = known(P);
  sizes.inputBytes =
      element && element.isIntOrFloat()
          ? std::max<int64_t>(1, (element.getIntOrFloatBitWidth() + 7) / 8)
          : 4;
  ::sigreg::Footprint footprint;
  std::string error = ::sigreg::computeFootprint(sizes, footprint);
  if (!error.empty())
    return op->emitOpError("problem too large: ") << error;
  return success();
}

static LogicalResult verifyClip(Operation *op, ClipMode mode, double value) {
  if (!std::isfinite(value))
    return op->emitOpError("clip_value must be finite, got ") << value;
  if (mode == ClipMode::none && value != 0.0)
    return op->emitOpError("clip_value ")
           << value << " is set but the clip mode is 'none'";
  return success();
}

/// Checks that `type` has the given rank and static, positive dims at
/// `staticDims`.
static LogicalResult verifyRankAndStatic(Operation *op, StringRef what,
                                         RankedTensorType type, int64_t rank,
                                         ArrayRef<int64_t> staticDims,
                                         StringRef layout) {
  if (type.getRank() != rank)
    return op->emitOpError("expects ") << what << " of rank " << rank << " ("
                                       << layout << "), got " << type;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t d = type.getDimSize(i);
    if (!ShapedType::isDynamic(d) && d <= 0)
      return op->emitOpError("expects ")
             << what << " dimensions to be positive, got shape "
             << formatShape(type.getShape());
  }
  for (int64_t i : staticDims)
    if (type.isDynamicDim(i))
      return op->emitOpError("expects ")
             << what << " dimension " << i << " to be static (" << layout
             << "), got shape " << formatShape(type.getShape());
  return success();
}

//===----------------------------------------------------------------------===//
// LossOp
//===----------------------------------------------------------------------===//

/// The checks sigreg.loss and sigreg.loss_grad share: the input, the
/// projection, the knobs, and `lossType` (the loss's result type, or the type
/// of loss_grad's cotangent) against the reduction; `what` names it.
template <typename OpT>
static LogicalResult verifyLossOperands(OpT lossOp, RankedTensorType lossType,
                                        StringRef what) {
  Operation *op = lossOp.getOperation();
  RankedTensorType inType = lossOp.getInput().getType();
  int64_t rank = inType.getRank();
  if (rank != 2 && rank != 3)
    return op->emitOpError(
               "expects input of rank 2 ([N, D]) or 3 ([V, N, D]), got ")
           << inType;
  SmallVector<int64_t> staticDims = {rank - 1};
  if (rank == 3)
    staticDims.push_back(0);
  if (failed(verifyRankAndStatic(op, "input", inType, rank, staticDims,
                                 rank == 2 ? "[N, D]" : "[V, N, D]")))
    return failure();

  if (static_cast<bool>(lossOp.getSeed()) ==
      static_cast<bool>(lossOp.getProjection()))
    return op->emitOpError("expects exactly one of 'seed' or 'projection'");

  int64_t numSlices = lossOp.getNumSlices();
  if (numSlices <= 0)
    return op->emitOpError("num_slices must be positive, got ") << numSlices;
  if (failed(verifyPoints(op, lossOp.getNumPoints())) ||
      failed(verifyTMax(op, lossOp.getTMax().convertToDouble())) ||
      failed(verifyClip(op, lossOp.getClip(),
                        lossOp.getClipValue().convertToDouble())))
    return failure();

  int64_t featureDim = inType.getDimSize(rank - 1);
  if (Value proj = lossOp.getProjection()) {
    auto projType = cast<RankedTensorType>(proj.getType());
    if (projType.getRank() != 2 || !projType.hasStaticShape() ||
        projType.getDimSize(0) != featureDim ||
        projType.getDimSize(1) != numSlices)
      return op->emitOpError("expects projection of shape [D, S] = ")
             << formatShape({featureDim, numSlices}) << ", got "
             << formatShape(projType.getShape());
    if (projType.getElementType() != inType.getElementType())
      return op->emitOpError("projection element type ")
             << projType.getElementType()
             << " must match the input element type "
             << inType.getElementType();
  }

  if (failed(verifySizes(op, rank == 3 ? inType.getDimSize(0) : 1,
                         inType.getDimSize(rank - 2), featureDim, numSlices,
                         lossOp.getNumPoints(), inType.getElementType())))
    return failure();

  RankedTensorType resType = lossType;
  if (lossOp.getReduction() == Reduction::none) {
    SmallVector<int64_t> expected;
    if (rank == 3)
      expected.push_back(inType.getDimSize(0));
    expected.push_back(numSlices);
    if (resType.getShape() != ArrayRef<int64_t>(expected))
      return op->emitOpError("reduction 'none' expects a ")
             << what << " of shape " << formatShape(expected) << " ("
             << (rank == 3 ? "[V, S]" : "[S]") << "), got " << resType;
  } else if (resType.getRank() != 0) {
    return op->emitOpError("reduction '")
           << stringifyReduction(lossOp.getReduction()) << "' expects a 0-d "
           << what << " tensor<f32>, got " << resType;
  }
  return success();
}

LogicalResult LossOp::verify() {
  return verifyLossOperands(*this, getResult().getType(), "result");
}

LogicalResult LossGradOp::verify() {
  if (failed(verifyLossOperands(*this, getGrad().getType(), "grad")))
    return failure();
  RankedTensorType inType = getInput().getType();
  RankedTensorType resType = getResult().getType();
  if (!dimsCompatibleShapes(resType.getShape(), inType.getShape()))
    return emitOpError("expects a result of the input's shape ")
           << formatShape(inType.getShape()) << ", got "
           << formatShape(resType.getShape());
  return success();
}

//===----------------------------------------------------------------------===//
// ProjectionOp
//===----------------------------------------------------------------------===//

LogicalResult ProjectionOp::verify() {
  RankedTensorType type = getResult().getType();
  if (failed(verifyRankAndStatic(getOperation(), "result", type, 2, {0, 1},
                                 "[D, S]")))
    return failure();
  return verifySizes(getOperation(), 1, 1, type.getDimSize(0),
                     type.getDimSize(1), 3);
}

//===----------------------------------------------------------------------===//
// ProjectOp
//===----------------------------------------------------------------------===//

LogicalResult ProjectOp::verify() {
  Operation *op = getOperation();
  RankedTensorType inType = getInput().getType();
  RankedTensorType projType = getProjection().getType();
  RankedTensorType resType = getResult().getType();
  if (failed(
          verifyRankAndStatic(op, "input", inType, 3, {0, 2}, "[V, N, D]")) ||
      failed(verifyRankAndStatic(op, "projection", projType, 2, {0, 1},
                                 "[D, S]")) ||
      failed(
          verifyRankAndStatic(op, "result", resType, 3, {0, 2}, "[V, N, S]")))
    return failure();
  if (inType.getDimSize(2) != projType.getDimSize(0))
    return emitOpError("feature dimension mismatch: input has D = ")
           << inType.getDimSize(2)
           << " but projection has D = " << projType.getDimSize(0);
  if (resType.getDimSize(0) != inType.getDimSize(0) ||
      !dimsCompatible(resType.getDimSize(1), inType.getDimSize(1)) ||
      resType.getDimSize(2) != projType.getDimSize(1))
    return emitOpError("expects result of shape [V, N, S] = ")
           << formatShape({inType.getDimSize(0), inType.getDimSize(1),
                           projType.getDimSize(1)})
           << ", got " << formatShape(resType.getShape());
  return verifySizes(op, inType.getDimSize(0), inType.getDimSize(1),
                     inType.getDimSize(2), projType.getDimSize(1), 3,
                     inType.getElementType());
}

//===----------------------------------------------------------------------===//
// EcfOp
//===----------------------------------------------------------------------===//

/// Checks an ECF result [V, S, P] against the view and slice counts.
static LogicalResult verifyEcfResult(Operation *op, RankedTensorType cType,
                                     int64_t numViews, int64_t numSlices,
                                     double tMax) {
  if (failed(
          verifyRankAndStatic(op, "result", cType, 3, {0, 1, 2}, "[V, S, P]")))
    return failure();
  if (cType.getDimSize(0) != numViews || cType.getDimSize(1) != numSlices)
    return op->emitOpError("expects result of shape [V, S, P] with [V, S] = ")
           << formatShape({numViews, numSlices}) << ", got "
           << formatShape(cType.getShape());
  return failure(failed(verifyPoints(op, cType.getDimSize(2))) ||
                 failed(verifyTMax(op, tMax)));
}

/// The size check of an op that sees [V, N, *] and the ECF [V, S, P].
static LogicalResult verifyEcfSizes(Operation *op, RankedTensorType input,
                                    RankedTensorType cType, int64_t D = 1) {
  return verifySizes(op, cType.getDimSize(0), input.getDimSize(1), D,
                     cType.getDimSize(1), cType.getDimSize(2),
                     input.getElementType());
}

LogicalResult EcfOp::verify() {
  RankedTensorType yType = getSlices().getType();
  if (failed(verifyRankAndStatic(getOperation(), "slices", yType, 3, {0, 2},
                                 "[V, N, S]")))
    return failure();
  if (failed(verifyEcfResult(getOperation(), getCos().getType(),
                             yType.getDimSize(0), yType.getDimSize(2),
                             getTMax().convertToDouble())))
    return failure();
  return verifyEcfSizes(getOperation(), yType, getCos().getType());
}

//===----------------------------------------------------------------------===//
// AllReduceMeanOp
//===----------------------------------------------------------------------===//

LogicalResult AllReduceMeanOp::verify() {
  if (failed(verifyRankAndStatic(getOperation(), "ECF operands",
                                 getCos().getType(), 3, {0, 1, 2},
                                 "[V, S, P]")))
    return failure();
  int64_t worldSize = getWorldSizeAttr().getInt();
  if (worldSize < 1)
    return emitOpError("world_size must be >= 1, got ") << worldSize;
  return success();
}

//===----------------------------------------------------------------------===//
// EppsPulleyOp
//===----------------------------------------------------------------------===//

/// Checks the ECF operands [V, S, P] and the knobs of the statistic.
static LogicalResult verifyStatisticOperands(Operation *op,
                                             RankedTensorType cType,
                                             double tMax, ClipMode clip,
                                             double clipValue) {
  if (failed(verifyRankAndStatic(op, "ECF operands", cType, 3, {0, 1, 2},
                                 "[V, S, P]")) ||
      failed(verifyPoints(op, cType.getDimSize(2))) ||
      failed(verifyTMax(op, tMax)) || failed(verifyClip(op, clip, clipValue)))
    return failure();
  return verifySizes(op, cType.getDimSize(0), 1, 1, cType.getDimSize(1),
                     cType.getDimSize(2));
}

/// Checks a reduced result: 0-d for mean/sum, `statsType` for none.
static LogicalResult verifyReducedResult(Operation *op, Reduction reduction,
                                         RankedTensorType statsType,
                                         RankedTensorType resType) {
  if (reduction == Reduction::none) {
    if (resType != statsType)
      return op->emitOpError("reduction 'none' expects the result type to "
                             "equal the statistics type ")
             << statsType << ", got " << resType;
  } else if (resType.getRank() != 0) {
    return op->emitOpError("reduction '")
           << stringifyReduction(reduction)
           << "' expects a 0-d result tensor<f32>, got " << resType;
  }
  return success();
}

LogicalResult EppsPulleyOp::verify() {
  RankedTensorType cType = getCos().getType();
  RankedTensorType resType = getResult().getType();
  if (failed(verifyStatisticOperands(getOperation(), cType,
                                     getTMax().convertToDouble(), getClip(),
                                     getClipValue().convertToDouble())))
    return failure();
  if (resType.getShape() != cType.getShape().drop_back())
    return emitOpError("expects result of shape [V, S] = ")
           << formatShape(cType.getShape().drop_back()) << ", got "
           << formatShape(resType.getShape());
  return success();
}

//===----------------------------------------------------------------------===//
// ReduceOp
//===----------------------------------------------------------------------===//

LogicalResult ReduceOp::verify() {
  RankedTensorType inType = getStatistics().getType();
  RankedTensorType resType = getResult().getType();
  if (failed(verifyRankAndStatic(getOperation(), "statistics", inType, 2,
                                 {0, 1}, "[V, S]")))
    return failure();
  return verifyReducedResult(getOperation(), getReduction(), inType, resType);
}

//===----------------------------------------------------------------------===//
// Backward ops
//===----------------------------------------------------------------------===//

LogicalResult EcfCotangentOp::verify() {
  Operation *op = getOperation();
  RankedTensorType cType = getCos().getType();
  if (failed(verifyRankAndStatic(op, "ECF operands", cType, 3, {0, 1, 2},
                                 "[V, S, P]")) ||
      failed(verifyPoints(op, cType.getDimSize(2))) ||
      failed(verifyTMax(op, getTMax().convertToDouble())) ||
      failed(verifyClip(op, getClip(), getClipValue().convertToDouble())))
    return failure();
  RankedTensorType gType = getGrad().getType();
  if (getReduction() == Reduction::none) {
    if (gType.getShape() !=
        ArrayRef<int64_t>{cType.getDimSize(0), cType.getDimSize(1)})
      return emitOpError("reduction 'none' expects grad of shape [V, S] = ")
             << formatShape({cType.getDimSize(0), cType.getDimSize(1)})
             << ", got " << gType;
  } else if (gType.getRank() != 0) {
    return emitOpError("reduction '")
           << stringifyReduction(getReduction())
           << "' expects grad of type tensor<f32>, got " << gType;
  }
  return success();
}

LogicalResult EcfGradOp::verify() {
  Operation *op = getOperation();
  RankedTensorType yType = getSlices().getType();
  RankedTensorType cType = getDcos().getType();
  if (failed(
          verifyRankAndStatic(op, "slices", yType, 3, {0, 2}, "[V, N, S]")) ||
      failed(verifyRankAndStatic(op, "ECF cotangents", cType, 3, {0, 1, 2},
                                 "[V, S, P]")) ||
      failed(verifyPoints(op, cType.getDimSize(2))) ||
      failed(verifyTMax(op, getTMax().convertToDouble())))
    return failure();
  if (cType.getDimSize(0) != yType.getDimSize(0) ||
      cType.getDimSize(1) != yType.getDimSize(2))
    return emitOpError("expects ECF cotangents of shape [V, S, P] with "
                       "[V, S] = ")
           << formatShape({yType.getDimSize(0), yType.getDimSize(2)})
           << ", got " << formatShape(cType.getShape());
  return verifyEcfSizes(op, yType, cType);
}

LogicalResult ProjectTransposeOp::verify() {
  Operation *op = getOperation();
  RankedTensorType dyType = getCotangent().getType();
  RankedTensorType projType = getProjection().getType();
  RankedTensorType resType = getResult().getType();
  if (failed(verifyRankAndStatic(op, "cotangent", dyType, 3, {0, 2},
                                 "[V, N, S]")) ||
      failed(verifyRankAndStatic(op, "projection", projType, 2, {0, 1},
                                 "[D, S]")) ||
      failed(
          verifyRankAndStatic(op, "result", resType, 3, {0, 2}, "[V, N, D]")))
    return failure();
  if (dyType.getDimSize(2) != projType.getDimSize(1))
    return emitOpError("slice dimension mismatch: cotangent has S = ")
           << dyType.getDimSize(2)
           << " but projection has S = " << projType.getDimSize(1);
  SmallVector<int64_t> expected = {dyType.getDimSize(0), dyType.getDimSize(1),
                                   projType.getDimSize(0)};
  if (!dimsCompatibleShapes(resType.getShape(), expected))
    return emitOpError("expects result of shape [V, N, D] = ")
           << formatShape(expected) << ", got "
           << formatShape(resType.getShape());
  return verifySizes(op, dyType.getDimSize(0), dyType.getDimSize(1),
                     projType.getDimSize(0), projType.getDimSize(1), 3,
                     projType.getElementType());
}

//===----------------------------------------------------------------------===//
// FusedEcfOp
//===----------------------------------------------------------------------===//

/// The slices y = input @ projection of a fused op: f32 [V, N, S].
static LogicalResult verifySlicesType(Operation *op, StringRef what,
                                      Value slices, RankedTensorType inType,
                                      RankedTensorType projType) {
  auto type = cast<RankedTensorType>(slices.getType());
  SmallVector<int64_t> expected = {inType.getDimSize(0), inType.getDimSize(1),
                                   projType.getDimSize(1)};
  if (type.getRank() != 3 ||
      !dimsCompatibleShapes(type.getShape(), ArrayRef<int64_t>(expected)))
    return op->emitOpError("expects slices ")
           << what << " of shape [V, N, S] = " << formatShape(expected)
           << ", got " << formatShape(type.getShape());
  return success();
}

LogicalResult FusedEcfOp::verify() {
  Operation *op = getOperation();
  RankedTensorType inType = getInput().getType();
  RankedTensorType projType = getProjection().getType();
  if (failed(
          verifyRankAndStatic(op, "input", inType, 3, {0, 2}, "[V, N, D]")) ||
      failed(
          verifyRankAndStatic(op, "projection", projType, 2, {0, 1}, "[D, S]")))
    return failure();
  if (inType.getDimSize(2) != projType.getDimSize(0))
    return emitOpError("feature dimension mismatch: input has D = ")
           << inType.getDimSize(2)
           << " but projection has D = " << projType.getDimSize(0);
  if (failed(verifyEcfResult(op, getCos().getType(), inType.getDimSize(0),
                             projType.getDimSize(1),
                             getTMax().convertToDouble())))
    return failure();
  if (failed(
          verifyEcfSizes(op, inType, getCos().getType(), inType.getDimSize(2))))
    return failure();
  if (Value slices = getSlices())
    if (failed(verifySlicesType(op, "result", slices, inType, projType)))
      return failure();
  if (ScheduleAttr schedule = getScheduleAttr())
    return verifySchedule(*this, schedule, [&] { return emitOpError(); });
  return success();
}

//===----------------------------------------------------------------------===//
// FusedEpilogueOp
//===----------------------------------------------------------------------===//

LogicalResult FusedEpilogueOp::verify() {
  RankedTensorType cType = getCos().getType();
  if (failed(verifyStatisticOperands(getOperation(), cType,
                                     getTMax().convertToDouble(), getClip(),
                                     getClipValue().convertToDouble())))
    return failure();
  auto statsType = RankedTensorType::get(cType.getShape().drop_back(),
                                         cType.getElementType());
  return verifyReducedResult(getOperation(), getReduction(), statsType,
                             getResult().getType());
}

//===----------------------------------------------------------------------===//
// FusedEcfBackwardOp
//===----------------------------------------------------------------------===//

LogicalResult FusedEcfBackwardOp::verify() {
  Operation *op = getOperation();
  RankedTensorType inType = getInput().getType();
  RankedTensorType projType = getProjection().getType();
  RankedTensorType cType = getDcos().getType();
  RankedTensorType resType = getResult().getType();
  if (failed(
          verifyRankAndStatic(op, "input", inType, 3, {0, 2}, "[V, N, D]")) ||
      failed(verifyRankAndStatic(op, "projection", projType, 2, {0, 1},
                                 "[D, S]")) ||
      failed(verifyRankAndStatic(op, "ECF cotangents", cType, 3, {0, 1, 2},
                                 "[V, S, P]")) ||
      failed(verifyPoints(op, cType.getDimSize(2))) ||
      failed(verifyTMax(op, getTMax().convertToDouble())))
    return failure();
  if (inType.getDimSize(2) != projType.getDimSize(0))
    return emitOpError("feature dimension mismatch: input has D = ")
           << inType.getDimSize(2)
           << " but projection has D = " << projType.getDimSize(0);
  if (cType.getDimSize(0) != inType.getDimSize(0) ||
      cType.getDimSize(1) != projType.getDimSize(1))
    return emitOpError("expects ECF cotangents of shape [V, S, P] with "
                       "[V, S] = ")
           << formatShape({inType.getDimSize(0), projType.getDimSize(1)})
           << ", got " << formatShape(cType.getShape());
  if (!dimsCompatibleShapes(resType.getShape(), inType.getShape()))
    return emitOpError("expects result of shape [V, N, D] = ")
           << formatShape(inType.getShape()) << ", got "
           << formatShape(resType.getShape());
  Type resElem = resType.getElementType();
  if (!resElem.isF32() && resElem != inType.getElementType())
    return emitOpError("expects an f32 result or one in the input's element "
                       "type ")
           << inType.getElementType() << ", got " << resElem;
  if (Value slices = getSlices())
    if (failed(verifySlicesType(op, "operand", slices, inType, projType)))
      return failure();
  return verifyEcfSizes(op, inType, cType, inType.getDimSize(2));
}
