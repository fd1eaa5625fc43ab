//===- GridConstantParams.cpp - 128-byte by-value kernel parameters -------===//
//
// Gives the lowered kernel arguments listed in `sigreg.grid_constants` the
// LLVM/NVVM attributes of a 128-byte, 64-byte-aligned by-value grid constant
// (the pass description in Passes.td says why).
//
//===----------------------------------------------------------------------===//

#include "sigreg/Transforms/Passes.h"

namespace mlir {
namespace sigreg {
#define GEN_PASS_DEF_SIGREGGRIDCONSTANTPARAMS
#include "sigreg/Transforms/Passes.h.inc"
} // namespace sigreg
} // namespace mlir

using namespace mlir;
using namespace mlir::sigreg;

namespace {
struct GridConstantParamsPass
    : sigreg::impl::SigregGridConstantParamsBase<GridConstantParamsPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    Builder b(ctx);
    auto bytes =
        LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), kGridConstantBytes);
    WalkResult result = getOperation().walk([&](LLVM::LLVMFuncOp func) {
      Attribute listed = func->getAttr(kGridConstantAttrName);
      if (!listed)
        return WalkResult::advance();
      auto indices = dyn_cast<DenseI64ArrayAttr>(listed);
      if (!indices ||
          !func->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName())) {
        func.emitError() << kGridConstantAttrName
                         << " must be an array<i64> of argument indices on a "
                            "kernel";
        return WalkResult::interrupt();
      }
      for (int64_t i : indices.asArrayRef()) {
        if (i < 0 || i >= func.getNumArguments() ||
            !isa<LLVM::LLVMPointerType>(func.getArgument(i).getType())) {
          func.emitError() << kGridConstantAttrName << " lists argument " << i
                           << ", which is not a pointer argument";
          return WalkResult::interrupt();
        }
        func.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                        TypeAttr::get(bytes));
        func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                        b.getI64IntegerAttr(kGridConstantAlign));
        func.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                        b.getUnitAttr());
      }
      func->removeAttr(kGridConstantAttrName);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
