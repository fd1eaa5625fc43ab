//===- Entry.cpp - the entry function a runner compiles -------------------===//

#include "sigreg/Compiler/Entry.h"
#include "sigreg/Dialect/Sigreg/IR/SigregOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include "llvm/ADT/StringExtras.h"

#include <type_traits>

using namespace mlir;
using namespace mlir::sigreg;

/// The argument a seed comes from: the counter of a sigreg.advance_step (a
/// device step), else the seed itself.
static Value seedSource(Value seed) {
  if (auto step = seed.getDefiningOp<AdvanceStepOp>())
    return step.getStep();
  return seed;
}

/// The manifest's name of how a problem gets its projection from `source`
/// (seedSource, or an explicit projection).
static std::string projectionKind(Value source) {
  if (source.getType().isInteger(64))
    return "seed";
  return isa<MemRefType>(source.getType()) ? "step" : "explicit";
}

/// The sigreg.loss or sigreg.loss_grad whose result `func` returns, or null.
static Operation *returnedLoss(func::FuncOp func) {
  if (func.isExternal() || func.getNumResults() != 1 ||
      !func.getBody().hasOneBlock())
    return nullptr;
  auto ret = dyn_cast<func::ReturnOp>(func.getBody().front().getTerminator());
  Operation *def = ret ? ret.getOperand(0).getDefiningOp() : nullptr;
  return isa_and_nonnull<LossOp, LossGradOp>(def) ? def : nullptr;
}

/// A training step: the function returns (sigreg.loss, sigreg.loss_grad) of
/// the same x, seed or projection and knobs, so that the pipelines compile
/// one forward for both (CSE after --sigreg-decompose); dL/dx as the op's
/// f32, or rounded to x's element type by an arith.truncf (`truncation`).
struct Step {
  LossOp loss;
  LossGradOp grad;
  arith::TruncFOp truncation;
};

static std::optional<Step> returnedStep(func::FuncOp func) {
  if (func.isExternal() || func.getNumResults() != 2 ||
      !func.getBody().hasOneBlock())
    return std::nullopt;
  auto ret = dyn_cast<func::ReturnOp>(func.getBody().front().getTerminator());
  if (!ret)
    return std::nullopt;
  auto loss = ret.getOperand(0).getDefiningOp<LossOp>();
  Value dx = ret.getOperand(1);
  auto truncation = dx.getDefiningOp<arith::TruncFOp>();
  if (truncation)
    dx = truncation.getIn();
  auto grad = dx.getDefiningOp<LossGradOp>();
  if (!loss || !grad)
    return std::nullopt;
  return Step{loss, grad, truncation};
}

/// Checks that a step's two ops describe one problem; emits an error at the
/// gradient otherwise.
static LogicalResult checkStepAgrees(const Step &step) {
  LossOp l = step.loss;
  LossGradOp g = step.grad;
  auto differs = [&](StringRef what) {
    return g.emitError("the training step's sigreg.loss_grad differs from "
                       "its sigreg.loss in ")
           << what << " (a step computes one problem's loss and gradient)";
  };
  if (l.getInput() != g.getInput())
    return differs("x");
  if (l.getSeed() != g.getSeed() || l.getProjection() != g.getProjection())
    return differs("the seed or projection");
  if (l.getNumSlices() != g.getNumSlices() ||
      l.getNumPoints() != g.getNumPoints() || l.getTMax() != g.getTMax())
    return differs("slices, points or t_max");
  if (l.getClip() != g.getClip() || l.getClipValue() != g.getClipValue() ||
      l.getReduction() != g.getReduction())
    return differs("clip or reduction");
  if (arith::TruncFOp t = step.truncation) {
    Type elem = getElementTypeOrSelf(g.getInput().getType());
    if (getElementTypeOrSelf(t.getType()) != elem || elem.isF32() ||
        !t.getIn().hasOneUse() || t.getRoundingmodeAttr())
      return t.emitError("a training step returns dL/dx in f32 or rounded "
                         "(to nearest even) to x's 16-bit element type ")
             << elem << " by an arith.truncf of the sigreg.loss_grad alone";
  }
  return success();
}

/// Calls `fn` with the returned op as a LossOp or a LossGradOp.
template <typename Fn> static auto withLoss(Operation *op, Fn &&fn) {
  if (auto loss = dyn_cast<LossOp>(op))
    return fn(loss);
  return fn(cast<LossGradOp>(op));
}

/// The DDP split's entry points (docs/TORCH.md), in this form (x [V, N, D]
/// static, the projection a sigreg.projection of the seed argument or the
/// argument itself):
///   "ecf":          (x, seed | proj) -> (cos, sin) of one sigreg.ecf of
///                   sigreg.project(x, A);
///   "ecf_backward": (x, seed | proj, dcos, dsin) -> sigreg.project_transpose
///                   (sigreg.ecf_grad(sigreg.project(x, A), dcos, dsin), A).
struct EntryPoint {
  StringRef kind;
  Value x, projection;
  Operation *op = nullptr; // the sigreg.ecf or sigreg.ecf_grad
};

/// The value a sigreg.project reads as its projection, looking through a
/// sigreg.projection to its seed.
static Value projectionSource(Value a) {
  if (auto proj = a.getDefiningOp<ProjectionOp>())
    return seedSource(proj.getSeed());
  return a;
}

static std::optional<EntryPoint> returnedEntryPoint(func::FuncOp func) {
  if (func.isExternal() || !func.getBody().hasOneBlock())
    return std::nullopt;
  auto ret = dyn_cast<func::ReturnOp>(func.getBody().front().getTerminator());
  if (!ret)
    return std::nullopt;
  if (ret.getNumOperands() == 2) {
    auto ecf = ret.getOperand(0).getDefiningOp<EcfOp>();
    if (!ecf || ecf.getCos() != ret.getOperand(0) ||
        ecf.getSin() != ret.getOperand(1))
      return std::nullopt;
    auto project = ecf.getSlices().getDefiningOp<ProjectOp>();
    if (!project)
      return std::nullopt;
    return EntryPoint{"ecf", project.getInput(),
                      projectionSource(project.getProjection()), ecf};
  }
  if (ret.getNumOperands() != 1)
    return std::nullopt;
  auto transpose = ret.getOperand(0).getDefiningOp<ProjectTransposeOp>();
  auto grad = transpose ? transpose.getCotangent().getDefiningOp<EcfGradOp>()
                        : EcfGradOp();
  auto project =
      grad ? grad.getSlices().getDefiningOp<ProjectOp>() : ProjectOp();
  if (!project || project.getProjection() != transpose.getProjection())
    return std::nullopt;
  return EntryPoint{"ecf_backward", project.getInput(),
                    projectionSource(project.getProjection()), grad};
}

/// Checks an entry point's form and emits an error otherwise.
static LogicalResult checkEntryPointForm(func::FuncOp func,
                                         const EntryPoint &e) {
  auto isArg = [&](Value v, unsigned index) {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner()->getParentOp() == func.getOperation() &&
           arg.getArgNumber() == index;
  };
  bool backward = e.kind == "ecf_backward";
  bool ok = func.getNumArguments() == (backward ? 4u : 2u) && isArg(e.x, 0) &&
            isArg(e.projection, 1);
  if (backward) {
    auto grad = cast<EcfGradOp>(e.op);
    ok = ok && isArg(grad.getDcos(), 2) && isArg(grad.getDsin(), 3);
  }
  if (!ok)
    return e.op->emitError("sigreg-run expects the operands of the ")
           << e.kind
           << " entry point to be the function's arguments, in order (x, "
              "seed or projection"
           << (backward ? ", dcos, dsin)" : ")");
  auto xType = cast<RankedTensorType>(e.x.getType());
  if (xType.getRank() != 3 || !xType.hasStaticShape())
    return func.emitError("the ")
           << e.kind << " entry point needs a static x [V, N, D], got "
           << xType;
  return success();
}

/// Checks the form sigreg-run supports and emits an error otherwise.
static LogicalResult checkEntryForm(func::FuncOp func) {
  if (std::optional<EntryPoint> e = returnedEntryPoint(func))
    return checkEntryPointForm(func, *e);
  std::optional<Step> step = returnedStep(func);
  if (step && failed(checkStepAgrees(*step)))
    return failure();
  Operation *op = step ? step->grad.getOperation() : returnedLoss(func);
  if (!op)
    return func.emitError("entry function '")
           << func.getSymName()
           << "' must return the result of a sigreg.loss or sigreg.loss_grad "
              "(sigreg-run compiles single-block functions of the form (x, "
              "seed : i64) or (x, projection) -> sigreg.loss, the seed also "
              "as (x, step : memref<i64>) through sigreg.advance_step, (x, "
              "seed or "
              "projection, grad) -> sigreg.loss_grad, and a training step (x, "
              "seed or projection, grad) -> (sigreg.loss, sigreg.loss_grad); "
              "or an entry point of the DDP split: (x, seed or projection) -> "
              "the cos and sin of sigreg.ecf(sigreg.project), and (x, seed or "
              "projection, dcos, dsin) -> "
              "sigreg.project_transpose(sigreg.ecf_grad))";
  auto isArg = [&](Value v, unsigned index) {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner()->getParentOp() == func.getOperation() &&
           arg.getArgNumber() == index;
  };
  return withLoss(op, [&](auto loss) -> LogicalResult {
    bool isGrad = std::is_same_v<decltype(loss), LossGradOp>;
    Value second = loss.getSeed() ? seedSource(loss.getSeed())
                                  : Value(loss.getProjection());
    bool ok = func.getNumArguments() == (isGrad ? 3u : 2u) &&
              isArg(loss.getInput(), 0) && isArg(second, 1);
    if constexpr (std::is_same_v<decltype(loss), LossGradOp>)
      ok = ok && isArg(loss.getGrad(), 2);
    if (!ok)
      return loss.emitError("sigreg-run expects the ")
             << (isGrad ? "loss_grad" : "loss")
             << " operands to be the entry function's arguments, in order (x, "
             << (loss.getSeed() ? "seed" : "projection")
             << (isGrad ? ", grad)" : ")");
    return success();
  });
}

FailureOr<func::FuncOp> mlir::sigreg::findEntry(ModuleOp module,
                                                StringRef name) {
  if (!name.empty()) {
    auto func = module.lookupSymbol<func::FuncOp>(name);
    if (!func)
      return module.emitError("no function named '") << name << "'";
    if (failed(checkEntryForm(func)))
      return failure();
    return func;
  }
  SmallVector<func::FuncOp> candidates;
  module.walk([&](func::FuncOp f) {
    bool hasLoss = false;
    f.walk([&](Operation *op) { hasLoss |= isa<LossOp, LossGradOp>(op); });
    if (hasLoss || returnedEntryPoint(f))
      candidates.push_back(f);
  });
  if (candidates.empty())
    return module.emitError("no function holds a sigreg.loss");
  if (candidates.size() > 1)
    return module.emitError("several functions hold a sigreg.loss or "
                            "sigreg.loss_grad ('")
           << candidates[0].getSymName() << "', '" << candidates[1].getSymName()
           << "'...): choose one with --entry";
  if (failed(checkEntryForm(candidates.front())))
    return failure();
  return candidates.front();
}

static std::string dtypeName(Type t) {
  if (t.isBF16())
    return "bf16";
  if (t.isF16())
    return "f16";
  return "f32";
}

/// The problem of an entry point (clip and reduction are the loss's, which
/// the entry points leave to their caller: defaults).
static ::sigreg::runtime::ProblemDesc describeEntryPoint(const EntryPoint &e) {
  auto in = cast<RankedTensorType>(e.x.getType());
  ::sigreg::runtime::ProblemDesc p;
  p.entryPoint = e.kind.str();
  p.views = true;
  p.V = in.getDimSize(0);
  p.N = in.getDimSize(1);
  p.D = in.getDimSize(2);
  RankedTensorType ecfType;
  double tMax;
  if (auto ecf = dyn_cast<EcfOp>(e.op)) {
    ecfType = ecf.getCos().getType();
    tMax = ecf.getTMax().convertToDouble();
  } else {
    auto grad = cast<EcfGradOp>(e.op);
    ecfType = grad.getDcos().getType();
    tMax = grad.getTMax().convertToDouble();
  }
  p.S = ecfType.getDimSize(1);
  p.P = ecfType.getDimSize(2);
  p.tMax = tMax;
  p.dtype = dtypeName(in.getElementType());
  p.projection = projectionKind(e.projection);
  return p;
}

::sigreg::runtime::ProblemDesc mlir::sigreg::describeEntry(func::FuncOp func) {
  if (std::optional<EntryPoint> e = returnedEntryPoint(func))
    return describeEntryPoint(*e);
  std::optional<Step> step = returnedStep(func);
  Operation *op = step ? step->loss.getOperation() : returnedLoss(func);
  ::sigreg::runtime::ProblemDesc problem = withLoss(op, [](auto loss) {
    RankedTensorType in = loss.getInput().getType();
    ::sigreg::runtime::ProblemDesc p;
    p.gradient = std::is_same_v<decltype(loss), LossGradOp>;
    p.views = loss.hasViews();
    p.V = p.views ? in.getDimSize(0) : 1;
    int64_t n = in.getDimSize(p.views ? 1 : 0);
    p.N = ShapedType::isDynamic(n) ? -1 : n;
    p.D = in.getDimSize(in.getRank() - 1);
    p.S = loss.getNumSlices();
    p.P = loss.getNumPoints();
    p.tMax = loss.getTMax().convertToDouble();
    p.clip = stringifyClipMode(loss.getClip()).str();
    p.clipValue = loss.getClipValue().convertToDouble();
    p.reduction = stringifyReduction(loss.getReduction()).str();
    p.dtype = dtypeName(in.getElementType());
    p.projection = projectionKind(loss.getSeed() ? seedSource(loss.getSeed())
                                                 : Value(loss.getProjection()));
    return p;
  });
  problem.step = step.has_value();
  if (step && step->truncation)
    problem.dxDtype = problem.dtype;
  return problem;
}

LogicalResult mlir::sigreg::specializeEntry(func::FuncOp func,
                                            std::optional<int64_t> batch,
                                            std::optional<std::string> dtype) {
  if (std::optional<EntryPoint> e = returnedEntryPoint(func)) {
    // Static by form: only a request that agrees with the function.
    ::sigreg::runtime::ProblemDesc p = describeEntryPoint(*e);
    if (batch && *batch != p.N)
      return func.emitError("--shape batch size ")
             << *batch << " disagrees with the static batch dimension " << p.N
             << " of the " << e->kind << " entry point";
    if (dtype && *dtype != p.dtype)
      return func.emitError("--dtype=")
             << *dtype << " disagrees with the " << p.dtype << " input of the "
             << e->kind << " entry point (entry points are not specialized)";
    return success();
  }
  // A step's two ops read the same arguments: specialize through its
  // gradient, then check its loss too.
  std::optional<Step> step = returnedStep(func);
  Operation *op = step ? step->grad.getOperation() : returnedLoss(func);
  return withLoss(op, [&](auto loss) -> LogicalResult {
    Builder b(func.getContext());
    Type elem;
    if (dtype) {
      if (*dtype == "bf16")
        elem = b.getBF16Type();
      else if (*dtype == "f16")
        elem = b.getF16Type();
      else if (*dtype == "f32")
        elem = b.getF32Type();
      else
        return func.emitError("unsupported dtype '")
               << *dtype << "' (expected bf16, f16 or f32)";
    }
    Block &body = func.getBody().front();
    // x: batch and element type.
    BlockArgument x = body.getArgument(0);
    auto xType = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> shape(xType.getShape());
    unsigned batchDim = loss.hasViews() ? 1 : 0;
    if (batch) {
      if (!xType.isDynamicDim(batchDim) && shape[batchDim] != *batch)
        return func.emitError("--shape batch size ")
               << *batch << " disagrees with the static batch dimension "
               << shape[batchDim] << " of " << xType;
      shape[batchDim] = *batch;
    }
    x.setType(
        RankedTensorType::get(shape, elem ? elem : xType.getElementType()));
    if (elem && loss.getProjection()) {
      BlockArgument proj = body.getArgument(1);
      auto pType = cast<RankedTensorType>(proj.getType());
      proj.setType(RankedTensorType::get(pType.getShape(), elem));
    }
    SmallVector<Type> results(func.getResultTypes());
    // The gradient (a step's second result) has the input's (specialized)
    // shape.
    if constexpr (std::is_same_v<decltype(loss), LossGradOp>) {
      Type dx = RankedTensorType::get(shape, b.getF32Type());
      results.back() = dx;
      loss.getResult().setType(cast<RankedTensorType>(dx));
      // A step's dL/dx rounded to x's (specialized) element type.
      if (step && step->truncation) {
        if (elem && elem.isF32())
          return step->truncation.emitError(
              "--dtype=f32, but this step rounds dL/dx to x's 16-bit type "
              "(arith.truncf)");
        auto rounded =
            RankedTensorType::get(shape, elem ? elem : xType.getElementType());
        step->truncation.getResult().setType(rounded);
        results.back() = rounded;
      }
    }
    func.setFunctionType(b.getFunctionType(body.getArgumentTypes(), results));
    if (step && failed(step->loss.verify()))
      return failure();
    return loss.verify();
  });
}

OwningOpRef<ModuleOp> mlir::sigreg::extractEntryModule(func::FuncOp func) {
  OpBuilder b(func.getContext());
  OwningOpRef<ModuleOp> module = ModuleOp::create(func.getLoc());
  b.setInsertionPointToEnd(module->getBody());
  b.clone(*func.getOperation());
  return module;
}

SmallVector<int64_t> mlir::sigreg::parseShape(StringRef text) {
  SmallVector<StringRef> parts;
  text.split(parts, 'x');
  SmallVector<int64_t> dims;
  for (StringRef part : parts) {
    int64_t v;
    if (part == "?")
      dims.push_back(-1);
    else if (!part.getAsInteger(10, v) && v > 0)
      dims.push_back(v);
    else
      return {};
  }
  return dims;
}
