//===- SaveSlices.cpp - the backward reads the forward's slices -----------===//
//
// sigreg.fused_ecf_backward recomputes y = x A tile by tile (a GEMM as large
// as the forward's). When the forward in the same block runs on a kernel
// that can store y (the one-tile Hopper kernel), the forward returns y and
// the backward reads it: dL/dy becomes an elementwise pass over y
// (docs/BACKWARD.md). For 16-bit inputs what is saved is y's phase in i16
// (the harmonics depend on dt y modulo 2 pi only): half the bytes.
//
//===----------------------------------------------------------------------===//

#include "sigreg/Dialect/Sigreg/IR/SigregOps.h"
#include "sigreg/Dialect/Sigreg/Transforms/Passes.h"
#include "sigreg/Dialect/Sigreg/Utils/EcfSchedule.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace sigreg {
#define GEN_PASS_DEF_SIGREGSAVESLICES
#include "sigreg/Dialect/Sigreg/Transforms/Passes.h.inc"
} // namespace sigreg
} // namespace mlir

using namespace mlir;
using namespace mlir::sigreg;

namespace {
/// The forward of `bwd`: a sigreg.fused_ecf of the same input and
/// projection before it in its block.
FusedEcfOp findForward(FusedEcfBackwardOp bwd) {
  for (Operation *user : bwd.getInput().getUsers()) {
    auto ecf = dyn_cast<FusedEcfOp>(user);
    if (ecf && ecf.getProjection() == bwd.getProjection() &&
        ecf->getBlock() == bwd->getBlock() && ecf->isBeforeInBlock(bwd))
      return ecf;
  }
  return {};
}

/// The element type of the slices `ecf` saves: the i16 phase for 16-bit
/// inputs when `phase`, else y in f32.
Type slicesElement(FusedEcfOp ecf, bool phase) {
  Builder b(ecf.getContext());
  bool sixteenBit =
      ecf.getInput().getType().getElementType().getIntOrFloatBitWidth() == 16;
  return phase && sixteenBit ? Type(b.getI16Type()) : Type(b.getF32Type());
}

/// The cost rule: the forward stores the slices (the one-tile Hopper kernel
/// of 128-row tiles, static shapes) and they fit `maxBytes`.
bool worthSaving(FusedEcfOp ecf, Type elem, int64_t maxBytes) {
  ScheduleAttr schedule = ecf.getScheduleAttr();
  auto in = ecf.getInput().getType();
  auto cos = ecf.getCos().getType();
  if (!schedule || schedule.getKernel() != KernelKind::wgmma ||
      schedule.getRows() != kWgmmaTileRows || !in.hasStaticShape() ||
      !cos.hasStaticShape())
    return false;
  double bytes = (elem.getIntOrFloatBitWidth() / 8) *
                 static_cast<double>(in.getDimSize(0)) *
                 static_cast<double>(in.getDimSize(1)) *
                 static_cast<double>(cos.getDimSize(1));
  return bytes <= static_cast<double>(maxBytes);
}

struct SigregSaveSlicesPass
    : sigreg::impl::SigregSaveSlicesBase<SigregSaveSlicesPass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](FusedEcfBackwardOp bwd) {
      if (bwd.getSlices())
        return;
      FusedEcfOp ecf = findForward(bwd);
      if (!ecf)
        return;
      Type elem = slicesElement(ecf, phase);
      if (!worthSaving(ecf, elem, maxBytes))
        return;
      Value slices = ecf.getSlices();
      if (!slices) {
        auto in = ecf.getInput().getType();
        auto type =
            RankedTensorType::get({in.getDimSize(0), in.getDimSize(1),
                                   ecf.getCos().getType().getDimSize(1)},
                                  elem);
        rewriter.setInsertionPoint(ecf);
        auto saving = FusedEcfOp::create(
            rewriter, ecf.getLoc(), ecf.getCos().getType(),
            ecf.getSin().getType(), type, ecf.getInput(), ecf.getProjection(),
            ecf.getTMaxAttr(), ecf.getScheduleAttr());
        rewriter.replaceOp(ecf, saving->getResults().take_front(2));
        slices = saving.getSlices();
      }
      rewriter.modifyOpInPlace(bwd,
                               [&] { bwd.getSlicesMutable().assign(slices); });
    });
  }
};
} // namespace
