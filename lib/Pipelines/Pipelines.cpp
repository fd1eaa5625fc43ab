//===- Pipelines.cpp - registered sigreg pipelines ------------------------===//

#include "sigreg/Pipelines/Pipelines.h"
#include "sigreg/Dialect/Sigreg/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::sigreg;

/// Tensors -> memrefs with identity layouts at function boundaries; results
/// become out-parameters so that callers own every buffer.
static void addBufferization(OpPassManager &pm) {
  bufferization::OneShotBufferizePassOptions bufOpts;
  bufOpts.bufferizeFunctionBoundaries = true;
  bufOpts.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufOpts));
  bufferization::BufferResultsToOutParamsPassOptions outOpts;
  outOpts.modifyPublicFunctions = true;
  outOpts.hoistStaticAllocs = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outOpts));
  bufferization::BufferDeallocationPipelineOptions deallocOpts;
  bufferization::buildBufferDeallocationPipeline(pm, deallocOpts);
}

void mlir::sigreg::buildCpuPipeline(OpPassManager &pm,
                                    const CpuPipelineOptions &) {
  pm.addPass(createSigregDecompose());
  pm.addPass(createSigregLowerNaive());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  addBufferization(pm);
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void mlir::sigreg::registerSigregPipelines() {
  PassPipelineRegistration<CpuPipelineOptions>(
      "sigreg-cpu-pipeline",
      "Compile sigreg.loss for the CPU: decompose, naive linalg lowering, "
      "bufferization, loops, LLVM dialect",
      buildCpuPipeline);
}
