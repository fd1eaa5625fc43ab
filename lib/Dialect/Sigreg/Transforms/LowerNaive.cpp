//===- LowerNaive.cpp - mid-level ops -> linalg, like eager PyTorch -------===//
//
// The reference path. Each mid-level op becomes the sequence of tensor ops
// eager PyTorch runs, with the same intermediates: the projection is
// generated and normalized as a [D, S] tensor, y = x @ A is a [V, N, S]
// tensor, and the ECF materializes args = y * t, cos(args) and sin(args) as
// [V, N, S, P] tensors before the batch mean.
//
//===----------------------------------------------------------------------===//

#include "sigreg/Dialect/Sigreg/IR/SigregOps.h"
#include "sigreg/Dialect/Sigreg/Transforms/Passes.h"
#include "sigreg/Dialect/Sigreg/Utils/ProjectionBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace sigreg {
#define GEN_PASS_DEF_SIGREGLOWERNAIVE
#include "sigreg/Dialect/Sigreg/Transforms/Passes.h.inc"
} // namespace sigreg
} // namespace mlir

using namespace mlir;
using namespace mlir::sigreg;

namespace {
using utils::IteratorType;
constexpr IteratorType kPar = IteratorType::parallel;
constexpr IteratorType kRed = IteratorType::reduction;

/// Builds linalg.generic ops over tensors with the naive path's conventions.
class NaiveBuilder {
public:
  NaiveBuilder(RewriterBase &rewriter, Location loc, StringRef region)
      : b(loc, rewriter), f32(rewriter.getF32Type()),
        region(rewriter.getStringAttr(region)) {}

  ImplicitLocOpBuilder b;
  Type f32;
  /// The region (docs/CONTRACT.md section 7) every op built here belongs to,
  /// attached as `sigreg.region` so that later stages (GPU kernels,
  /// benchmarks) can attribute time to it.
  StringAttr region;

  /// An empty f32 tensor of `shape`, dynamic sizes taken from `dynSizes`.
  Value empty(ArrayRef<int64_t> shape, ValueRange dynSizes = {}) {
    return tensor::EmptyOp::create(b, shape, f32, dynSizes);
  }

  /// A zero-filled f32 tensor (accumulator of a reduction), built as a
  /// generic (not linalg.fill) so that it keeps its region attribute through
  /// bufferization and generalization.
  Value zeros(ArrayRef<int64_t> shape, ValueRange dynSizes = {}) {
    SmallVector<unsigned> dims;
    for (unsigned i = 0; i < shape.size(); ++i)
      dims.push_back(i);
    SmallVector<IteratorType> iterators(shape.size(), kPar);
    return generic({}, empty(shape, dynSizes), {dims}, iterators,
                   [](OpBuilder &ob, Location loc, ValueRange) -> Value {
                     return arith::ConstantOp::create(ob, loc,
                                                      ob.getF32FloatAttr(0.0f));
                   });
  }

  /// A 1-d f32 constant tensor.
  Value constant(ArrayRef<double> values) {
    SmallVector<float> f(values.begin(), values.end());
    auto type = RankedTensorType::get({static_cast<int64_t>(f.size())}, f32);
    return arith::ConstantOp::create(b, type,
                                     DenseElementsAttr::get(type, ArrayRef(f)));
  }

  /// linalg.generic with `numLoops` loops; maps are given as lists of loop
  /// dimensions (inputs..., output).
  Value generic(ValueRange inputs, Value init,
                ArrayRef<SmallVector<unsigned>> dims,
                ArrayRef<IteratorType> iterators,
                function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
    unsigned numLoops = iterators.size();
    SmallVector<AffineMap> maps;
    for (const SmallVector<unsigned> &d : dims) {
      SmallVector<AffineExpr> exprs;
      for (unsigned i : d)
        exprs.push_back(b.getAffineDimExpr(i));
      maps.push_back(AffineMap::get(numLoops, 0, exprs, b.getContext()));
    }
    auto op = linalg::GenericOp::create(
        b, TypeRange{init.getType()}, inputs, ValueRange{init}, maps, iterators,
        [&](OpBuilder &nb, Location loc, ValueRange args) {
          linalg::YieldOp::create(nb, loc, body(nb, loc, args));
        });
    op->setAttr("sigreg.region", region);
    return op.getResult(0);
  }

  /// Converts a bf16/f16/f32 scalar to f32.
  static Value toF32(OpBuilder &nb, Location loc, Value v) {
    if (v.getType().isF32())
      return v;
    return arith::ExtFOp::create(nb, loc, nb.getF32Type(), v);
  }

  /// `index` -> f32.
  Value indexToF32(Value v) {
    Value i64 = arith::IndexCastOp::create(b, b.getI64Type(), v);
    return arith::SIToFPOp::create(b, f32, i64);
  }
};

Value lowerProjection(NaiveBuilder &nb, ProjectionOp op) {
  auto type = op.getType();
  int64_t featureDim = type.getDimSize(0), numSlices = type.getDimSize(1);
  Value seed = op.getSeed();
  // g[d, s]: one Philox4x32-10 + Box-Muller per element.
  Value g = nb.generic(
      {}, nb.empty({featureDim, numSlices}), {{0, 1}}, {kPar, kPar},
      [&](OpBuilder &ob, Location loc, ValueRange) {
        ImplicitLocOpBuilder ib(loc, ob);
        auto idx = [&](unsigned dim) -> Value {
          Value i = linalg::IndexOp::create(ib, dim);
          return arith::IndexCastUIOp::create(ib, ib.getI32Type(), i);
        };
        return buildProjectionGaussian(ib, seed, idx(0), idx(1));
      });
  // sum_d g^2 in ascending d, f32 (loop order: d outer, s inner).
  Value sumSq =
      nb.generic({g}, nb.zeros({numSlices}), {{0, 1}, {1}}, {kRed, kPar},
                 [](OpBuilder &ob, Location loc, ValueRange a) -> Value {
                   Value sq = arith::MulFOp::create(ob, loc, a[0], a[0]);
                   return arith::AddFOp::create(ob, loc, a[1], sq);
                 });
  Value norm = nb.generic({sumSq}, nb.empty({numSlices}), {{0}, {0}}, {kPar},
                          [](OpBuilder &ob, Location loc, ValueRange a) {
                            return math::SqrtOp::create(ob, loc, a[0]);
                          });
  return nb.generic({g, norm}, nb.empty({featureDim, numSlices}),
                    {{0, 1}, {1}, {0, 1}}, {kPar, kPar},
                    [](OpBuilder &ob, Location loc, ValueRange a) {
                      return arith::DivFOp::create(ob, loc, a[0], a[1]);
                    });
}

Value lowerProject(NaiveBuilder &nb, ProjectOp op) {
  auto type = op.getType();
  SmallVector<Value> dyn;
  if (type.isDynamicDim(1))
    dyn.push_back(tensor::DimOp::create(nb.b, op.getInput(), 1));
  // y[v, n, s] = sum_d x[v, n, d] * A[d, s]; loops (v, n, s, d).
  return nb.generic(
      {op.getInput(), op.getProjection()}, nb.zeros(type.getShape(), dyn),
      {{0, 1, 3}, {3, 2}, {0, 1, 2}}, {kPar, kPar, kPar, kRed},
      [](OpBuilder &ob, Location loc, ValueRange a) -> Value {
        Value prod =
            arith::MulFOp::create(ob, loc, NaiveBuilder::toF32(ob, loc, a[0]),
                                  NaiveBuilder::toF32(ob, loc, a[1]));
        return arith::AddFOp::create(ob, loc, a[2], prod);
      });
}

/// The ECF's angles, as eager PyTorch forms them: args = y.unsqueeze(-1) * t,
/// [V, N, S, P], materialized; with the grid points t, the batch size n and
/// the shape (dynamic N in `dyn`) the callers build on.
struct Angles {
  Value t, n, args;
  SmallVector<Value> dyn;
  SmallVector<int64_t> shape;
};

Angles buildAngles(NaiveBuilder &nb, Value y, int64_t numPoints, double tMax) {
  auto yType = cast<RankedTensorType>(y.getType());
  Angles a;
  IntegrationGrid grid = computeIntegrationGrid(numPoints, tMax);
  a.t = nb.constant(grid.t);
  a.n = tensor::DimOp::create(nb.b, y, 1);
  if (yType.isDynamicDim(1))
    a.dyn.push_back(a.n);
  a.shape = {yType.getDimSize(0), yType.getDimSize(1), yType.getDimSize(2),
             numPoints};
  a.args = nb.generic({y, a.t}, nb.empty(a.shape, a.dyn),
                      {{0, 1, 2}, {3}, {0, 1, 2, 3}}, {kPar, kPar, kPar, kPar},
                      [](OpBuilder &ob, Location loc, ValueRange v) {
                        return arith::MulFOp::create(ob, loc, v[0], v[1]);
                      });
  return a;
}

std::pair<Value, Value> lowerEcf(NaiveBuilder &nb, EcfOp op) {
  Value y = op.getSlices();
  auto yType = op.getSlices().getType();
  int64_t numViews = yType.getDimSize(0), numSlices = yType.getDimSize(2),
          numPoints = op.getCos().getType().getDimSize(2);
  Angles angles = buildAngles(nb, y, numPoints, op.getTMax().convertToDouble());
  Value args = angles.args, n = angles.n;
  SmallVector<Value> dyn = angles.dyn;
  SmallVector<int64_t> bigShape = angles.shape;
  auto elementwise = [&](auto opTag) {
    using OpT = decltype(opTag);
    return nb.generic({args}, nb.empty(bigShape, dyn),
                      {{0, 1, 2, 3}, {0, 1, 2, 3}}, {kPar, kPar, kPar, kPar},
                      [](OpBuilder &ob, Location loc, ValueRange a) {
                        return OpT::create(ob, loc, a[0]);
                      });
  };
  Value cosv = elementwise(math::CosOp());
  Value sinv = elementwise(math::SinOp());
  Value nf = nb.indexToF32(n);
  auto batchMean = [&](Value v) {
    Value sum = nb.generic({v}, nb.zeros({numViews, numSlices, numPoints}),
                           {{0, 1, 2, 3}, {0, 2, 3}}, {kPar, kRed, kPar, kPar},
                           [](OpBuilder &ob, Location loc, ValueRange a) {
                             return arith::AddFOp::create(ob, loc, a[1], a[0]);
                           });
    return nb.generic({sum}, nb.empty({numViews, numSlices, numPoints}),
                      {{0, 1, 2}, {0, 1, 2}}, {kPar, kPar, kPar},
                      [&](OpBuilder &ob, Location loc, ValueRange a) {
                        return arith::DivFOp::create(ob, loc, a[0], nf);
                      });
  };
  return {batchMean(cosv), batchMean(sinv)};
}

Value lowerEppsPulley(NaiveBuilder &nb, EppsPulleyOp op) {
  auto cType = op.getCos().getType();
  int64_t numViews = cType.getDimSize(0), numSlices = cType.getDimSize(1),
          numPoints = cType.getDimSize(2);
  IntegrationGrid grid =
      computeIntegrationGrid(numPoints, op.getTMax().convertToDouble());
  Value phi = nb.constant(grid.phi), w = nb.constant(grid.w);
  // squared_error = (cos - phi)^2 + sin^2: [V, S, P].
  Value err =
      nb.generic({op.getCos(), op.getSin(), phi}, nb.empty(cType.getShape()),
                 {{0, 1, 2}, {0, 1, 2}, {2}, {0, 1, 2}}, {kPar, kPar, kPar},
                 [](OpBuilder &ob, Location loc, ValueRange a) -> Value {
                   Value d = arith::SubFOp::create(ob, loc, a[0], a[2]);
                   Value d2 = arith::MulFOp::create(ob, loc, d, d);
                   Value s2 = arith::MulFOp::create(ob, loc, a[1], a[1]);
                   return arith::AddFOp::create(ob, loc, d2, s2);
                 });
  // stats = squared_error @ w: [V, S].
  Value dot = nb.generic(
      {err, w}, nb.zeros({numViews, numSlices}), {{0, 1, 2}, {2}, {0, 1}},
      {kPar, kPar, kRed}, [](OpBuilder &ob, Location loc, ValueRange a) {
        Value prod = arith::MulFOp::create(ob, loc, a[0], a[1]);
        return arith::AddFOp::create(ob, loc, a[2], prod);
      });
  Value count = nb.indexToF32(op.getGlobalCount());
  ClipMode clip = op.getClip();
  float clipValue = static_cast<float>(op.getClipValue().convertToDouble());
  return nb.generic(
      {dot}, nb.empty({numViews, numSlices}), {{0, 1}, {0, 1}}, {kPar, kPar},
      [&](OpBuilder &ob, Location loc, ValueRange a) -> Value {
        Value stat = arith::MulFOp::create(ob, loc, a[0], count);
        if (clip == ClipMode::none)
          return stat;
        Value c =
            arith::ConstantOp::create(ob, loc, ob.getF32FloatAttr(clipValue));
        if (clip == ClipMode::clamp_min)
          return arith::MaximumFOp::create(ob, loc, stat, c);
        Value zero =
            arith::ConstantOp::create(ob, loc, ob.getF32FloatAttr(0.0f));
        Value below =
            arith::CmpFOp::create(ob, loc, arith::CmpFPredicate::OLT, stat, c);
        return arith::SelectOp::create(ob, loc, below, zero, stat);
      });
}

Value lowerReduce(NaiveBuilder &nb, ReduceOp op) {
  if (op.getReduction() == Reduction::none)
    return op.getStatistics();
  auto type = op.getStatistics().getType();
  Value sum =
      nb.generic({op.getStatistics()}, nb.zeros({}), {{0, 1}, {}}, {kRed, kRed},
                 [](OpBuilder &ob, Location loc, ValueRange a) {
                   return arith::AddFOp::create(ob, loc, a[1], a[0]);
                 });
  if (op.getReduction() == Reduction::sum)
    return sum;
  float count = static_cast<float>(type.getNumElements());
  return nb.generic({sum}, nb.empty({}), {{}, {}}, {},
                    [&](OpBuilder &ob, Location loc, ValueRange a) {
                      Value c = arith::ConstantOp::create(
                          ob, loc, ob.getF32FloatAttr(count));
                      return arith::DivFOp::create(ob, loc, a[0], c);
                    });
}

//===----------------------------------------------------------------------===//
// Backward (docs/CONTRACT.md section 2), as eager autograd runs it: the
// [V, N, S, P] angles are materialized again.
//===----------------------------------------------------------------------===//

std::pair<Value, Value> lowerEcfCotangent(NaiveBuilder &nb, EcfCotangentOp op) {
  auto cType = op.getCos().getType();
  int64_t numViews = cType.getDimSize(0), numSlices = cType.getDimSize(1),
          numPoints = cType.getDimSize(2);
  IntegrationGrid grid =
      computeIntegrationGrid(numPoints, op.getTMax().convertToDouble());
  Value phi = nb.constant(grid.phi), w = nb.constant(grid.w);
  Value count = nb.indexToF32(op.getGlobalCount());
  // The unclipped statistic T[v, s] = count * sum_p w_p ((c - phi)^2 + s^2).
  Value dot = nb.generic(
      {op.getCos(), op.getSin(), phi, w}, nb.zeros({numViews, numSlices}),
      {{0, 1, 2}, {0, 1, 2}, {2}, {2}, {0, 1}}, {kPar, kPar, kRed},
      [](OpBuilder &ob, Location loc, ValueRange a) -> Value {
        Value d = arith::SubFOp::create(ob, loc, a[0], a[2]);
        Value d2 = arith::MulFOp::create(ob, loc, d, d);
        Value s2 = arith::MulFOp::create(ob, loc, a[1], a[1]);
        Value e = arith::AddFOp::create(ob, loc, d2, s2);
        Value prod = arith::MulFOp::create(ob, loc, e, a[3]);
        return arith::AddFOp::create(ob, loc, a[4], prod);
      });
  // omega[v, s] = 2 * count * gate * (the reduction's factor).
  ClipMode clip = op.getClip();
  float clipValue = static_cast<float>(op.getClipValue().convertToDouble());
  Reduction reduction = op.getReduction();
  SmallVector<unsigned> gradDims = reduction == Reduction::none
                                       ? SmallVector<unsigned>{0, 1}
                                       : SmallVector<unsigned>{};
  float scale = reduction == Reduction::mean
                    ? 2.0f / static_cast<float>(numViews * numSlices)
                    : 2.0f;
  Value omega = nb.generic(
      {dot, op.getGrad()}, nb.empty({numViews, numSlices}),
      {{0, 1}, gradDims, {0, 1}}, {kPar, kPar},
      [&](OpBuilder &ob, Location loc, ValueRange a) -> Value {
        Value c2 = arith::MulFOp::create(
            ob, loc, count,
            arith::ConstantOp::create(ob, loc, ob.getF32FloatAttr(scale)));
        Value r = arith::MulFOp::create(ob, loc, a[1], c2);
        if (clip == ClipMode::none)
          return r;
        Value stat = arith::MulFOp::create(ob, loc, a[0], count);
        Value c =
            arith::ConstantOp::create(ob, loc, ob.getF32FloatAttr(clipValue));
        Value below =
            arith::CmpFOp::create(ob, loc, arith::CmpFPredicate::OLT, stat, c);
        Value zero =
            arith::ConstantOp::create(ob, loc, ob.getF32FloatAttr(0.0f));
        return arith::SelectOp::create(ob, loc, below, zero, r);
      });
  // dcos = omega w_p (cos - phi_p), dsin = omega w_p sin.
  auto cotangent = [&](Value v, bool centered) {
    return nb.generic(
        {v, omega, phi, w}, nb.empty(cType.getShape()),
        {{0, 1, 2}, {0, 1}, {2}, {2}, {0, 1, 2}}, {kPar, kPar, kPar},
        [&](OpBuilder &ob, Location loc, ValueRange a) -> Value {
          Value d =
              centered ? arith::SubFOp::create(ob, loc, a[0], a[2]) : a[0];
          Value ow = arith::MulFOp::create(ob, loc, a[1], a[3]);
          return arith::MulFOp::create(ob, loc, ow, d);
        });
  };
  return {cotangent(op.getCos(), true), cotangent(op.getSin(), false)};
}

Value lowerEcfGrad(NaiveBuilder &nb, EcfGradOp op) {
  Value y = op.getSlices();
  auto yType = op.getSlices().getType();
  int64_t numViews = yType.getDimSize(0), batch = yType.getDimSize(1),
          numSlices = yType.getDimSize(2),
          numPoints = op.getDcos().getType().getDimSize(2);
  // The angles, then t * (dsin cos(args) - dcos sin(args)): [V, N, S, P],
  // materialized, then summed over p.
  Angles angles = buildAngles(nb, y, numPoints, op.getTMax().convertToDouble());
  Value args = angles.args, n = angles.n, t = angles.t;
  SmallVector<Value> dyn = angles.dyn;
  SmallVector<int64_t> bigShape = angles.shape;
  Value terms =
      nb.generic({args, op.getDcos(), op.getDsin(), t}, nb.empty(bigShape, dyn),
                 {{0, 1, 2, 3}, {0, 2, 3}, {0, 2, 3}, {3}, {0, 1, 2, 3}},
                 {kPar, kPar, kPar, kPar},
                 [](OpBuilder &ob, Location loc, ValueRange a) -> Value {
                   Value c = math::CosOp::create(ob, loc, a[0]);
                   Value s = math::SinOp::create(ob, loc, a[0]);
                   Value pc = arith::MulFOp::create(ob, loc, a[2], c);
                   Value ps = arith::MulFOp::create(ob, loc, a[1], s);
                   Value diff = arith::SubFOp::create(ob, loc, pc, ps);
                   return arith::MulFOp::create(ob, loc, a[3], diff);
                 });
  Value sum = nb.generic({terms}, nb.zeros({numViews, batch, numSlices}, dyn),
                         {{0, 1, 2, 3}, {0, 1, 2}}, {kPar, kPar, kPar, kRed},
                         [](OpBuilder &ob, Location loc, ValueRange a) {
                           return arith::AddFOp::create(ob, loc, a[1], a[0]);
                         });
  Value nf = nb.indexToF32(n);
  return nb.generic({sum}, nb.empty({numViews, batch, numSlices}, dyn),
                    {{0, 1, 2}, {0, 1, 2}}, {kPar, kPar, kPar},
                    [&](OpBuilder &ob, Location loc, ValueRange a) {
                      return arith::DivFOp::create(ob, loc, a[0], nf);
                    });
}

Value lowerProjectTranspose(NaiveBuilder &nb, ProjectTransposeOp op) {
  auto type = op.getType();
  SmallVector<Value> dyn;
  if (type.isDynamicDim(1))
    dyn.push_back(tensor::DimOp::create(nb.b, op.getCotangent(), 1));
  // dx[v, n, d] = sum_s dy[v, n, s] * A[d, s]; loops (v, n, d, s).
  return nb.generic({op.getCotangent(), op.getProjection()},
                    nb.zeros(type.getShape(), dyn),
                    {{0, 1, 3}, {2, 3}, {0, 1, 2}}, {kPar, kPar, kPar, kRed},
                    [](OpBuilder &ob, Location loc, ValueRange a) -> Value {
                      Value prod = arith::MulFOp::create(
                          ob, loc, a[0], NaiveBuilder::toF32(ob, loc, a[1]));
                      return arith::AddFOp::create(ob, loc, a[2], prod);
                    });
}

struct SigregLowerNaivePass
    : sigreg::impl::SigregLowerNaiveBase<SigregLowerNaivePass> {
  using Base::Base;

  void runOnOperation() override {
    // Check first, rewrite after: a failing op leaves the IR untouched.
    WalkResult check = getOperation()->walk([&](Operation *op) {
      if (isa<AdvanceStepOp>(op) && !hostStep) {
        op->emitOpError("keeps its step counter in device memory, which the "
                        "naive GPU pipeline's host code cannot read: compile "
                        "it with --sigreg-gpu-pipeline");
        return WalkResult::interrupt();
      }
      if (isa<LossOp, LossGradOp>(op)) {
        op->emitOpError("must be decomposed first (run --sigreg-decompose)");
        return WalkResult::interrupt();
      }
      if (isa<FusedEcfOp, FusedEpilogueOp>(op)) {
        op->emitOpError("has no naive lowering: the naive path runs on the "
                        "unfused ops (do not run the fusion passes before "
                        "--sigreg-lower-naive)");
        return WalkResult::interrupt();
      }
      if (auto ar = dyn_cast<AllReduceMeanOp>(op);
          ar && ar.getWorldSize() != 1) {
        ar.emitOpError("world_size = ")
            << ar.getWorldSize()
            << " needs a communicator; the single-process pipelines support "
               "world_size = 1 only";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (check.wasInterrupted())
      return signalPassFailure();

    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](Operation *op) {
      rewriter.setInsertionPoint(op);
      StringRef region = isa<ProjectionOp>(op) ? "projection_generation"
                         : isa<ProjectOp>(op)  ? "projection_gemm"
                         : isa<EcfOp, AllReduceMeanOp>(op) ? "trig_reduction"
                         : isa<EcfCotangentOp>(op)         ? "backward_epilogue"
                         : isa<EcfGradOp>(op)              ? "backward_trig"
                         : isa<ProjectTransposeOp>(op)     ? "backward_gemm"
                                                           : "epilogue";
      NaiveBuilder nb(rewriter, op->getLoc(), region);
      if (auto a = dyn_cast<AdvanceStepOp>(op)) {
        // The counter in host memory: read, then advanced.
        Location loc = op->getLoc();
        Value seed = memref::LoadOp::create(rewriter, loc, a.getStep());
        Value next = arith::AddIOp::create(
            rewriter, loc, seed,
            arith::ConstantIntOp::create(rewriter, loc, seed.getType(), 1));
        memref::StoreOp::create(rewriter, loc, next, a.getStep());
        rewriter.replaceOp(op, seed);
      } else if (auto p = dyn_cast<ProjectionOp>(op))
        rewriter.replaceOp(op, lowerProjection(nb, p));
      else if (auto p = dyn_cast<ProjectOp>(op))
        rewriter.replaceOp(op, lowerProject(nb, p));
      else if (auto e = dyn_cast<EcfOp>(op)) {
        auto [c, s] = lowerEcf(nb, e);
        rewriter.replaceOp(op, ValueRange{c, s});
      } else if (auto ar = dyn_cast<AllReduceMeanOp>(op))
        rewriter.replaceOp(
            op, ValueRange{ar.getCos(), ar.getSin(), ar.getLocalCount()});
      else if (auto ep = dyn_cast<EppsPulleyOp>(op))
        rewriter.replaceOp(op, lowerEppsPulley(nb, ep));
      else if (auto r = dyn_cast<ReduceOp>(op))
        rewriter.replaceOp(op, lowerReduce(nb, r));
      else if (auto c = dyn_cast<EcfCotangentOp>(op)) {
        auto [dc, ds] = lowerEcfCotangent(nb, c);
        rewriter.replaceOp(op, ValueRange{dc, ds});
      } else if (auto g = dyn_cast<EcfGradOp>(op))
        rewriter.replaceOp(op, lowerEcfGrad(nb, g));
      else if (auto pt = dyn_cast<ProjectTransposeOp>(op))
        rewriter.replaceOp(op, lowerProjectTranspose(nb, pt));
    });
  }
};
} // namespace
