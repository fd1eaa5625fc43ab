//===- CpuJit.cpp - compile and run an entry function on the CPU ----------===//

#include "sigreg/Compiler/CpuJit.h"
#include "sigreg/Pipelines/Pipelines.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/TargetSelect.h"

#include <cmath>
#include <cstring>
#include <optional>

using namespace mlir;
using namespace mlir::sigreg;

FailureOr<std::unique_ptr<CpuJit>> CpuJit::compile(ModuleOp module,
                                                   StringRef entry) {
  OwningOpRef<ModuleOp> clone(module.clone());
  auto func = clone->lookupSymbol<func::FuncOp>(entry);
  if (!func)
    return module.emitError("no function named '") << entry << "'";
  func->setAttr("llvm.emit_c_interface", UnitAttr::get(module.getContext()));

  PassManager pm(module.getContext());
  buildCpuPipeline(pm, CpuPipelineOptions());
  if (failed(pm.run(*clone)))
    return failure();

  static bool targetInitialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)targetInitialized;

  ExecutionEngineOptions options;
  options.transformer = makeOptimizingTransformer(/*optLevel=*/2,
                                                  /*sizeLevel=*/0, nullptr);
  auto engine = ExecutionEngine::create(*clone, options);
  if (!engine)
    return module.emitError("cannot JIT-compile the lowered module: ")
           << llvm::toString(engine.takeError());
  std::unique_ptr<CpuJit> jit(new CpuJit());
  jit->engine = std::move(*engine);
  jit->symbol = ("_mlir_ciface_" + entry).str();
  return jit;
}

namespace {
/// A strided memref descriptor of any rank, laid out as the C interface
/// expects: {allocated, aligned, offset, sizes[rank], strides[rank]}.
class Descriptor {
public:
  Descriptor(const void *data, ArrayRef<int64_t> shape)
      : words(3 + 2 * shape.size()) {
    void *p = const_cast<void *>(data);
    std::memcpy(&words[0], &p, sizeof(p));
    std::memcpy(&words[1], &p, sizeof(p));
    words[2] = 0;
    int64_t stride = 1;
    for (size_t i = shape.size(); i-- > 0;) {
      words[3 + i] = shape[i];
      words[3 + shape.size() + i] = stride;
      stride *= shape[i];
    }
    pointer = words.data();
  }
  /// What invokePacked receives for this argument: the address of a pointer
  /// to the descriptor.
  void *packed() { return &pointer; }

private:
  SmallVector<int64_t> words;
  void *pointer;
};
} // namespace

LogicalResult CpuJit::run(const ::sigreg::runtime::ProblemInputs &inputs,
                          std::vector<float> &out, std::vector<float> *dx) {
  const ::sigreg::runtime::ProblemDesc &p = inputs.problem;
  if (p.step && !dx) {
    llvm::errs() << "error: a training step has two outputs (loss, dL/dx)\n";
    return failure();
  }
  SmallVector<int64_t> xShape;
  if (p.views)
    xShape.push_back(p.V);
  xShape.append({p.N, p.D});
  SmallVector<int64_t> lossShape;
  if (p.reduction == "none") {
    if (p.views)
      lossShape.push_back(p.V);
    lossShape.push_back(p.S);
  }
  out.assign(::sigreg::runtime::outputElementCount(p), std::nanf(""));

  Descriptor x(inputs.x.data(), xShape);
  Descriptor proj(inputs.proj.data(), {p.D, p.S});
  Descriptor result(out.data(), p.gradient ? ArrayRef<int64_t>(xShape)
                                           : ArrayRef<int64_t>(lossShape));
  // The gradient's upstream cotangent, as the runners give it.
  std::vector<float> cotangent = ::sigreg::runtime::runnerCotangent(p);
  Descriptor upstream(cotangent.data(), lossShape);
  int64_t seed = static_cast<int64_t>(inputs.projectionSeed);
  // A device step's counter (sigreg.advance_step): the call reads the seed
  // from it and leaves seed + 1.
  int64_t counter = seed;
  Descriptor step(&counter, {});
  SmallVector<void *> args = {x.packed()};
  args.push_back(p.projection == "seed"   ? static_cast<void *>(&seed)
                 : p.projection == "step" ? step.packed()
                                          : proj.packed());
  if (p.gradient || p.step)
    args.push_back(upstream.packed());
  args.push_back(result.packed());
  // A step's second result, dL/dx: f32, or 16-bit words (dxDtype) widened
  // after the call.
  std::optional<Descriptor> gradient;
  bool rounded = p.step && p.dxDtype != "f32";
  std::vector<uint16_t> half;
  if (p.step) {
    dx->assign(p.V * p.N * p.D, std::nanf(""));
    if (rounded) {
      half.assign(dx->size(), p.dxDtype == "bf16" ? 0x7FC0 : 0x7E00);
      gradient.emplace(half.data(), xShape);
    } else {
      gradient.emplace(dx->data(), xShape);
    }
    args.push_back(gradient->packed());
  }
  if (llvm::Error err = engine->invokePacked(symbol, args)) {
    llvm::errs() << "error: JIT invocation failed: "
                 << llvm::toString(std::move(err)) << "\n";
    return failure();
  }
  if (p.projection == "step" && counter != seed + 1) {
    llvm::errs() << "error: the step counter holds " << counter
                 << " after the call; it should have advanced from " << seed
                 << " to " << seed + 1 << "\n";
    return failure();
  }
  if (rounded)
    *dx = ::sigreg::runtime::widenSixteenBit(p.dxDtype, half);
  return success();
}
