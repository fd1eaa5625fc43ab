//===- ChooseSchedule.cpp - attach #sigreg.schedule to fused ECF ops ------===//
//
// The schedule becomes IR: every sigreg.fused_ecf gets the decisions
// EcfSchedule.cpp makes for it, so that --convert-sigreg-to-gpu builds its
// kernels from the attribute, and a user can write one by hand.
//
//===----------------------------------------------------------------------===//

#include "sigreg/Dialect/Sigreg/IR/SigregOps.h"
#include "sigreg/Dialect/Sigreg/Transforms/Passes.h"
#include "sigreg/Dialect/Sigreg/Utils/EcfSchedule.h"

namespace mlir {
namespace sigreg {
#define GEN_PASS_DEF_SIGREGCHOOSESCHEDULE
#include "sigreg/Dialect/Sigreg/Transforms/Passes.h.inc"
} // namespace sigreg
} // namespace mlir

using namespace mlir;
using namespace mlir::sigreg;

namespace {
struct SigregChooseSchedulePass
    : sigreg::impl::SigregChooseScheduleBase<SigregChooseSchedulePass> {
  using Base::Base;

  void runOnOperation() override {
    Operation *root = getOperation();
    std::string optionError = scheduleOptionError(
        blockRows, blockSlices, wgmmaSlices, singleLaunch, wgmmaCluster,
        wgmmaRows, singleLaunchWarps, promoteAccumulators, wgmmaCooperative);
    if (!optionError.empty()) {
      root->emitError(optionError);
      return signalPassFailure();
    }
    EcfScheduleOptions options;
    options.blockRows = blockRows;
    options.blockSlices = blockSlices;
    options.tensorCores = tensorCores;
    options.hopper = hopper;
    options.wgmmaSlices = wgmmaSlices;
    options.wgmmaPersistent = wgmmaPersistent;
    options.wgmmaGenerate = wgmmaGenerate;
    options.wgmmaCooperative = wgmmaCooperative;
    options.wgmmaCluster = wgmmaCluster;
    options.wgmmaRows = wgmmaRows;
    options.singleLaunch = singleLaunch;
    options.singleLaunchWarps = singleLaunchWarps;
    options.promoteKTiles = promoteAccumulators;
    root->walk([&](FusedEcfOp op) {
      // Dynamic shapes are scheduled once specialized.
      if (op.getScheduleAttr() || !op.getInput().getType().hasStaticShape() ||
          !op.getCos().getType().hasStaticShape())
        return;
      op.setScheduleAttr(chooseScheduleAttr(op, options));
    });
  }
};
} // namespace
