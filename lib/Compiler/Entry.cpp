//===- Entry.cpp - the entry function a runner compiles -------------------===//

#include "sigreg/Compiler/Entry.h"
#include "sigreg/Dialect/Sigreg/IR/SigregOps.h"

#include "llvm/ADT/StringExtras.h"

#include <type_traits>

using namespace mlir;
using namespace mlir::sigreg;

/// The sigreg.loss or sigreg.loss_grad whose result `func` returns, or null.
static Operation *returnedLoss(func::FuncOp func) {
  if (func.isExternal() || func.getNumResults() != 1 ||
      !func.getBody().hasOneBlock())
    return nullptr;
  auto ret = dyn_cast<func::ReturnOp>(func.getBody().front().getTerminator());
  Operation *def = ret ? ret.getOperand(0).getDefiningOp() : nullptr;
  return isa_and_nonnull<LossOp, LossGradOp>(def) ? def : nullptr;
}

/// Calls `fn` with the returned op as a LossOp or a LossGradOp.
template <typename Fn> static auto withLoss(Operation *op, Fn &&fn) {
  if (auto loss = dyn_cast<LossOp>(op))
    return fn(loss);
  return fn(cast<LossGradOp>(op));
}

/// Checks the form sigreg-run supports and emits an error otherwise.
static LogicalResult checkEntryForm(func::FuncOp func) {
  Operation *op = returnedLoss(func);
  if (!op)
    return func.emitError("entry function '")
           << func.getSymName()
           << "' must return the result of a sigreg.loss or sigreg.loss_grad "
              "(sigreg-run compiles single-block functions of the form (x, "
              "seed : i64) or (x, projection) -> sigreg.loss, and (x, seed or "
              "projection, grad) -> sigreg.loss_grad)";
  auto isArg = [&](Value v, unsigned index) {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner()->getParentOp() == func.getOperation() &&
           arg.getArgNumber() == index;
  };
  return withLoss(op, [&](auto loss) -> LogicalResult {
    bool isGrad = std::is_same_v<decltype(loss), LossGradOp>;
    Value second =
        loss.getSeed() ? Value(loss.getSeed()) : loss.getProjection();
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
    if (hasLoss)
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

::sigreg::runtime::ProblemDesc mlir::sigreg::describeEntry(func::FuncOp func) {
  return withLoss(returnedLoss(func), [](auto loss) {
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
    p.projection = loss.getSeed() ? "seed" : "explicit";
    return p;
  });
}

LogicalResult mlir::sigreg::specializeEntry(func::FuncOp func,
                                            std::optional<int64_t> batch,
                                            std::optional<std::string> dtype) {
  return withLoss(returnedLoss(func), [&](auto loss) -> LogicalResult {
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
    // The gradient has the input's (specialized) shape.
    if constexpr (std::is_same_v<decltype(loss), LossGradOp>) {
      results[0] = RankedTensorType::get(shape, b.getF32Type());
      loss.getResult().setType(cast<RankedTensorType>(results[0]));
    }
    func.setFunctionType(b.getFunctionType(body.getArgumentTypes(), results));
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
