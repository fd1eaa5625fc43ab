//===- PreciseSqrt.cpp - correctly rounded f32 square roots ---------------===//
//
// Replaces the calls of libdevice's __nv_sqrtf (sqrt.approx.f32 under the
// default reflection) by llvm.intr.sqrt (sqrt.rn.f32); the pass description
// in Passes.td says why.
//
//===----------------------------------------------------------------------===//

#include "sigreg/Transforms/Passes.h"

namespace mlir {
namespace sigreg {
#define GEN_PASS_DEF_SIGREGPRECISESQRT
#include "sigreg/Transforms/Passes.h.inc"
} // namespace sigreg
} // namespace mlir

using namespace mlir;

namespace {
constexpr llvm::StringLiteral kLibdeviceSqrtF32 = "__nv_sqrtf";

struct PreciseSqrtPass : sigreg::impl::SigregPreciseSqrtBase<PreciseSqrtPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<LLVM::CallOp> calls;
    getOperation().walk([&](LLVM::CallOp call) {
      std::optional<StringRef> callee = call.getCallee();
      if (callee && *callee == kLibdeviceSqrtF32 &&
          call.getNumOperands() == 1 && call.getNumResults() == 1 &&
          call.getResult().getType().isF32())
        calls.push_back(call);
    });
    for (LLVM::CallOp call : calls) {
      OpBuilder b(call);
      Value root =
          LLVM::SqrtOp::create(b, call.getLoc(), call.getArgOperands()[0]);
      call.getResult().replaceAllUsesWith(root);
      call.erase();
    }
    auto decl =
        getOperation().lookupSymbol<LLVM::LLVMFuncOp>(kLibdeviceSqrtF32);
    if (decl && decl.isExternal() &&
        SymbolTable::symbolKnownUseEmpty(decl, getOperation()))
      decl.erase();
  }
};
} // namespace
