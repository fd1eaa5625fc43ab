//===- LinalgToGPU.cpp - bufferized linalg.generic -> naive GPU kernels ---===//
//
// One kernel per linalg.generic: a thread per point of the parallel
// iteration space, the reduction loops sequential inside the thread in the
// op's loop order. This is the eager-PyTorch-like baseline on the GPU (every
// intermediate goes through memory), kept for side-by-side timing; it is not
// meant to be fast.
//
//===----------------------------------------------------------------------===//

#include "sigreg/Conversion/GPUCommon/KernelBuilder.h"
#include "sigreg/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir {
namespace sigreg {
#define GEN_PASS_DEF_SIGREGLINALGTOGPU
#include "sigreg/Conversion/Passes.h.inc"
} // namespace sigreg
} // namespace mlir

using namespace mlir;
using namespace mlir::sigreg;

namespace {
constexpr int64_t kThreads = 256;

class GenericLowering {
public:
  GenericLowering(ModuleOp module, gpu::GPUModuleOp kernels)
      : module(module), kernels(kernels), kernelTable(kernels) {}

  LogicalResult lower(linalg::GenericOp op);

private:
  /// Makes the constant global `name` available inside the GPU module.
  void importGlobal(memref::GetGlobalOp get);

  ModuleOp module;
  gpu::GPUModuleOp kernels;
  SymbolTable kernelTable;
  unsigned counter = 0;
};

void GenericLowering::importGlobal(memref::GetGlobalOp get) {
  if (kernels.lookupSymbol(get.getNameAttr()))
    return;
  auto global = module.lookupSymbol<memref::GlobalOp>(get.getNameAttr());
  OpBuilder b = OpBuilder::atBlockBegin(kernels.getBody());
  b.clone(*global.getOperation());
}

/// Indices of `map` applied to the loop ivs.
static SmallVector<Value> applyMap(KernelBuilder &k, AffineMap map,
                                   ArrayRef<Value> ivs) {
  SmallVector<Value> indices;
  for (AffineExpr e : map.getResults()) {
    if (auto d = dyn_cast<AffineDimExpr>(e)) {
      indices.push_back(ivs[d.getPosition()]);
      continue;
    }
    indices.push_back(affine::AffineApplyOp::create(
        k.b, AffineMap::get(map.getNumDims(), 0, e), ivs));
  }
  return indices;
}

LogicalResult GenericLowering::lower(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics())
    return op.emitOpError("must be bufferized before --sigreg-linalg-to-gpu");
  SmallVector<int64_t> bounds = op.getStaticLoopRanges();
  if (llvm::any_of(bounds, ShapedType::isDynamic))
    return op.emitOpError("needs static loop bounds on the GPU");
  Location loc = op.getLoc();

  // Kernel operands: the op's memrefs (constant globals are read in place),
  // then the non-constant values the body captures.
  SetVector<Value> captured;
  getUsedValuesDefinedAbove(op.getRegion(), captured);
  SmallVector<Value> kernelArgs;
  DenseMap<Value, unsigned> argIndex;
  auto addArg = [&](Value v) {
    if (!argIndex.count(v)) {
      argIndex[v] = kernelArgs.size();
      kernelArgs.push_back(v);
    }
  };
  SmallVector<memref::GetGlobalOp> globals;
  for (Value v : op->getOperands()) {
    if (auto get = v.getDefiningOp<memref::GetGlobalOp>()) {
      importGlobal(get);
      continue;
    }
    if (v.getDefiningOp<arith::ConstantOp>())
      continue; // scalar constant (generalized fill): cloned in
    addArg(v);
  }
  for (Value v : captured)
    if (!v.getDefiningOp<arith::ConstantOp>())
      addArg(v);

  auto region = op->getAttrOfType<StringAttr>("sigreg.region");
  std::string name = ("naive_" + (region ? region.str() : "other") + "_" +
                      std::to_string(counter++));
  OpBuilder kb = OpBuilder::atBlockEnd(kernels.getBody());
  SmallVector<Type> argTypes;
  for (Value v : kernelArgs)
    argTypes.push_back(v.getType());
  auto func =
      gpu::GPUFuncOp::create(kb, loc, name, kb.getFunctionType(argTypes, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), kb.getUnitAttr());
  func.setKnownBlockSizeAttr(
      kb.getDenseI32ArrayAttr({static_cast<int32_t>(kThreads), 1, 1}));
  kernelTable.insert(func);
  kb.setInsertionPointToStart(&func.getBody().front());
  KernelBuilder k(loc, kb);

  // Operand values inside the kernel.
  auto operandInKernel = [&](Value v) -> Value {
    if (auto get = v.getDefiningOp<memref::GetGlobalOp>())
      return memref::GetGlobalOp::create(k.b, get.getType(), get.getName());
    if (auto cst = v.getDefiningOp<arith::ConstantOp>())
      return k.b.clone(*cst)->getResult(0);
    return func.getArgument(argIndex.lookup(v));
  };

  // Parallel point of this thread.
  SmallVector<unsigned> parDims, redDims;
  for (auto [i, it] : llvm::enumerate(op.getIteratorTypesArray()))
    (it == utils::IteratorType::parallel ? parDims : redDims).push_back(i);
  int64_t total = 1;
  for (unsigned d : parDims)
    total *= bounds[d];
  Value lin = k.add(k.mul(k.blockId(gpu::Dimension::x), k.idx(kThreads)),
                    k.threadId(gpu::Dimension::x));
  k.ifThen(k.lt(lin, k.idx(total)), [&] {
    SmallVector<Value> ivs(bounds.size());
    Value rest = lin;
    for (unsigned d : llvm::reverse(parDims)) {
      ivs[d] = k.rem(rest, k.idx(bounds[d]));
      rest = k.div(rest, k.idx(bounds[d]));
    }
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    unsigned numInputs = op.getNumDpsInputs();
    unsigned numOutputs = op.getNumDpsInits();
    // Outputs at this point; reductions carry them through the loops.
    SmallVector<Value> outs;
    for (unsigned o = 0; o < numOutputs; ++o) {
      OpOperand *init = op.getDpsInitOperand(o);
      Value memref = operandInKernel(init->get());
      Value cur = Value();
      if (!redDims.empty() || op.payloadUsesValueFromOperand(init))
        cur = k.load(memref, applyMap(k, maps[numInputs + o], ivs));
      outs.push_back(cur);
    }
    // The body, cloned at the innermost point.
    auto emitBody = [&](ValueRange carried) {
      IRMapping map;
      Block &body = op.getRegion().front();
      for (unsigned i = 0; i < numInputs; ++i) {
        if (body.getArgument(i).use_empty())
          continue;
        Value operand = operandInKernel(op.getDpsInputOperand(i)->get());
        map.map(body.getArgument(i),
                isa<MemRefType>(operand.getType())
                    ? k.load(operand, applyMap(k, maps[i], ivs))
                    : operand);
      }
      for (unsigned o = 0; o < numOutputs; ++o)
        if (carried[o])
          map.map(body.getArgument(numInputs + o), carried[o]);
      for (Value v : captured) {
        if (argIndex.count(v))
          map.map(v, func.getArgument(argIndex.lookup(v)));
        else // a constant: cloned into the kernel
          map.map(v, k.b.clone(*v.getDefiningOp())->getResult(0));
      }
      SmallVector<Value> results;
      for (Operation &inner : body.without_terminator()) {
        if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
          map.map(index.getResult(), ivs[index.getDim()]);
          continue;
        }
        k.b.clone(inner, map);
      }
      for (Value v : body.getTerminator()->getOperands())
        results.push_back(map.lookupOrDefault(v));
      return results;
    };
    // Reduction loops, outermost first, in the op's loop order.
    std::function<SmallVector<Value>(unsigned, ValueRange)> nest =
        [&](unsigned level, ValueRange carried) -> SmallVector<Value> {
      if (level == redDims.size())
        return emitBody(carried);
      unsigned d = redDims[level];
      return k.forEach(k.idx(0), k.idx(bounds[d]), k.idx(1), carried,
                       [&](Value iv, ValueRange inner) {
                         ivs[d] = iv;
                         return nest(level + 1, inner);
                       });
    };
    SmallVector<Value> results =
        redDims.empty() ? emitBody(outs) : nest(0, outs);
    for (unsigned o = 0; o < numOutputs; ++o)
      k.store(results[o], operandInKernel(op.getDpsInitOperand(o)->get()),
              applyMap(k, maps[numInputs + o], ivs));
  });
  gpu::ReturnOp::create(k.b);

  // Host side.
  OpBuilder hb(op);
  gpu::LaunchFuncOp launch =
      createLaunch(hb, loc, func, {(total + kThreads - 1) / kThreads, 1, 1},
                   kThreads, kernelArgs);
  if (region)
    launch->setAttr("sigreg.region", region);
  op.erase();
  return success();
}

struct SigregLinalgToGPUPass
    : sigreg::impl::SigregLinalgToGPUBase<SigregLinalgToGPUPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::GenericOp> generics;
    module.walk([&](linalg::GenericOp op) {
      if (!op->getParentOfType<gpu::GPUModuleOp>())
        generics.push_back(op);
    });
    if (generics.empty())
      return;
    GenericLowering lowering(module, getOrCreateKernelModule(module));
    for (linalg::GenericOp op : generics)
      if (failed(lowering.lower(op)))
        return signalPassFailure();
  }
};
} // namespace
