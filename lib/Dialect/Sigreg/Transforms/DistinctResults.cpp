//===- DistinctResults.cpp - one buffer per returned tensor ---------------===//
//
// A function that returns the same tensor twice (`return %l, %l`) would
// return one buffer twice after bufferization, which upstream
// buffer-results-to-out-params does not handle (it crashes with hoisted
// allocations). Every later occurrence of such a tensor becomes a copy.
//
//===----------------------------------------------------------------------===//

#include "sigreg/Dialect/Sigreg/Transforms/Passes.h"

#include "llvm/ADT/SmallPtrSet.h"

namespace mlir {
namespace sigreg {
#define GEN_PASS_DEF_SIGREGDISTINCTRESULTS
#include "sigreg/Dialect/Sigreg/Transforms/Passes.h.inc"
} // namespace sigreg
} // namespace mlir

using namespace mlir;
using namespace mlir::sigreg;

namespace {
struct SigregDistinctResults
    : public sigreg::impl::SigregDistinctResultsBase<SigregDistinctResults> {
  void runOnOperation() override {
    getOperation().walk([](func::ReturnOp ret) {
      llvm::SmallPtrSet<Value, 4> seen;
      OpBuilder b(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        Value v = operand.get();
        auto type = dyn_cast<RankedTensorType>(v.getType());
        if (!type || seen.insert(v).second)
          continue;
        // The copy takes its shape from `v`: no dynamic sizes.
        operand.set(bufferization::AllocTensorOp::create(
            b, ret.getLoc(), type, ValueRange{}, /*copy=*/v));
      }
    });
  }
};
} // namespace
